package dist

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(roleEnv) == "worker" {
		os.Exit(childWorker()) // this process is a worker for the process tests
	}
	goleak.VerifyTestMain(m)
}

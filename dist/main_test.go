package dist

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "worker":
		os.Exit(childWorker()) // this process is a worker for the process tests
	case "server":
		os.Exit(childServer()) // a NATS server of TestClusterLosesServer
	}
	goleak.VerifyTestMain(m)
}

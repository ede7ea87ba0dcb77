package deque

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// seedFlag fixes the seed of every randomised test in this package. Without
// it (or DEQUE_SEED in the environment) each run draws a fresh seed and logs
// it; a failure message always names the seed that reproduces it:
//
//	go test ./deque -run Linearizable -seed=12345
//	DEQUE_SEED=12345 go test ./deque
var seedFlag = flag.Int64("seed", 0, "seed for the randomised deque tests (0: derive from the clock)")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testSeed returns the seed a randomised test should use and logs it.
func testSeed(tb testing.TB) int64 {
	tb.Helper()
	s := *seedFlag
	if s == 0 {
		if e := os.Getenv("DEQUE_SEED"); e != "" {
			v, err := strconv.ParseInt(e, 10, 64)
			if err != nil {
				tb.Fatalf("DEQUE_SEED=%q: %v", e, err)
			}
			s = v
		}
	}
	if s == 0 {
		s = time.Now().UnixNano()
	}
	tb.Logf("seed %d (rerun with -seed=%d or DEQUE_SEED=%d)", s, s, s)
	return s
}

// spin burns a little time without a system call, so that goroutines
// interleave at many different points of each other's operations.
func spin(n int) {
	for i := 0; i < n; i++ {
		if i%64 == 63 {
			runtime.Gosched()
		}
	}
}

// gate releases a fixed number of goroutines together: each calls wait, and
// none returns before all have called it.
type gate struct{ wg sync.WaitGroup }

func newGate(n int) *gate {
	g := &gate{}
	g.wg.Add(n)
	return g
}

func (g *gate) wait() {
	g.wg.Done()
	g.wg.Wait()
}

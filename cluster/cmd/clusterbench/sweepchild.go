package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A worker process of the sweep is this program with roleEnv set to
// roleSweep and its childSpec, as JSON, in specEnv.
const (
	roleSweep = "sweep"
	specEnv   = "DISTBENCH_SPEC"
	// sweepChildSlack: a worker process exits this long after its trial's
	// limit whatever happens, should its parent neither kill it nor close
	// its stdin.
	sweepChildSlack = 30 * time.Second
	// reapWait bounds each wait for a killed worker process.
	reapWait = 10 * time.Second
	// askWait bounds the wait for a worker process's counts.
	askWait = 5 * time.Second
)

// childSpec is what a worker process runs: worker Index of design Design
// (with FetchK for the central designs), jobs of Workload, on the server
// at URL.
type childSpec struct {
	Design   string   `json:"design"`
	FetchK   int      `json:"fetch_k"`
	Workload workload `json:"workload"`
	URL      string   `json:"url"`
	Index    int      `json:"index"`
}

// sweepChild is this process's handle on one worker process.
type sweepChild struct {
	index        int
	cmd          *exec.Cmd
	in           io.WriteCloser
	ready        chan struct{} // closed when it wrote "ready"
	answer       chan struct{} // it answered an "s"
	eof          chan struct{} // closed when its stdout ended
	done, stolen atomic.Int64  // its last reported counts
}

// workerGOMAXPROCS, when above 0, is the GOMAXPROCS of every worker
// process (-worker-gomaxprocs); stealcluster cluster up -procs gives its
// workers their share of the machine's CPUs.
var workerGOMAXPROCS int

// sweepEnv is the environment of a worker process whose childSpec, as
// JSON, is spec.
func sweepEnv(spec []byte) []string {
	env := append(os.Environ(), roleEnv+"="+roleSweep, specEnv+"="+string(spec))
	if workerGOMAXPROCS > 0 {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(workerGOMAXPROCS))
	}
	return env
}

// startSweepChild starts the worker process spec names; it does not wait.
func startSweepChild(spec childSpec) (*sweepChild, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-test.run=^$") // under go test, TestMain dispatches
	cmd.Env = sweepEnv(b)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	k := &sweepChild{index: spec.Index, cmd: cmd, in: in, ready: make(chan struct{}),
		answer: make(chan struct{}, 1), eof: make(chan struct{})}
	go k.read(out)
	return k, nil
}

// read follows the process's reports until its stdout ends.
func (k *sweepChild) read(out io.Reader) {
	defer close(k.eof)
	sc := bufio.NewScanner(out)
	isReady := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 1 && f[0] == "ready" && !isReady:
			isReady = true
			close(k.ready)
		case len(f) == 3 && (f[0] == "n" || f[0] == "s"):
			done, err1 := strconv.ParseInt(f[1], 10, 64)
			stolen, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 == nil && err2 == nil {
				k.done.Store(done)
				k.stolen.Store(stolen)
			}
			if f[0] == "s" {
				poke(k.answer)
			}
		}
	}
}

// open tells the process that the gate is open. A process that has died
// cannot be told; its trial fails by its own timeout.
func (k *sweepChild) open() { io.WriteString(k.in, "go\n") }

// askCounts asks the process for its counts now and waits, at most
// askWait, until they have come.
func (k *sweepChild) askCounts() {
	select {
	case <-k.answer: // an answer to an earlier question, come late
	default:
	}
	if _, err := io.WriteString(k.in, "s\n"); err != nil {
		return
	}
	select {
	case <-k.answer:
	case <-k.eof:
	case <-time.After(askWait):
	}
}

// kill sends SIGKILL to the process, by its own pid.
func (k *sweepChild) kill() { k.cmd.Process.Kill() }

// reap waits, at most reapWait each, for the process's stdout to end and
// for the process to be reaped.
func (k *sweepChild) reap() {
	select {
	case <-k.eof:
	case <-time.After(reapWait):
	}
	waited := make(chan struct{})
	go func() { k.cmd.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(reapWait):
		fmt.Fprintf(os.Stderr, "clusterbench: worker process %d not reaped within %v\n", k.cmd.Process.Pid, reapWait)
	}
}

// sweepChildMain is a worker process of the sweep: it starts the worker
// its childSpec names, reports, and runs until it is killed (which is how
// a trial ends it), its stdin ends or its trial's limit and sweepChildSlack pass. It then exits
// at once, without closing its worker: the trial is over. Its stdin is
// followed from the start, so that a process whose parent died while it
// was starting exits too.
func sweepChildMain() int {
	var spec childSpec
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "worker process: bad", specEnv+":", err)
		return 2
	}
	d, ok := findDesign(spec.Design, spec.FetchK)
	if !ok {
		fmt.Fprintln(os.Stderr, "worker process: no design", spec.Design)
		return 2
	}
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	rep := &reporter{out: bufio.NewWriter(os.Stdout), poke: make(chan struct{}, 1), ask: make(chan struct{}, 1)}
	rep.sys = d.workers(overTCP(spec.URL), spec.Workload, gate, rep.handled)
	ctx, cancel := context.WithTimeout(context.Background(), trialLimit(spec.Workload)+sweepChildSlack)
	defer cancel()
	go followStdin(open, rep.ask)
	if err := rep.sys.start(ctx, spec.Index, spec.Index+1); err != nil {
		fmt.Fprintln(os.Stderr, "worker process:", err)
		return 2
	}
	fmt.Fprintln(rep.out, "ready")
	rep.out.Flush()
	rep.run(ctx)
	return 0
}

// followStdin calls open when "go" arrives and signals ask at each "s".
// At the end of stdin (the parent closed it or died) it exits the
// process: there is nothing left to report to.
func followStdin(open func(), ask chan<- struct{}) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "go":
			open()
		case "s":
			ask <- struct{}{}
		}
	}
	os.Exit(0)
}

// reporter writes the worker's counts to out: "n <completed> <stolen>"
// when they changed, "s <completed> <stolen>" when asked. It looks at them
// only after a job has run, every catchUpEvery until the worker has
// recorded as many completions as its handlers returned (the cluster package records a
// completion after its handler returns; at most catchUpFor), so that an
// idle worker process costs nothing.
type reporter struct {
	sys     system
	out     *bufio.Writer
	poke    chan struct{} // a job has run
	ask     chan struct{} // "s" arrived
	ran     atomic.Int64  // jobs whose handler returned
	written [2]int64
}

const (
	catchUpEvery = time.Millisecond
	catchUpFor   = 10 * time.Second
	// catchUpSlow: after catchUpFast, look every catchUpSlow instead. A
	// completion can take longer than catchUpFast to be recorded on a
	// loaded machine; stopping then left it unreported, and a trial
	// waited for it until its limit.
	catchUpFast = 100 * time.Millisecond
	catchUpSlow = 10 * time.Millisecond
)

// handled is the workers' onDone hook.
func (r *reporter) handled() {
	r.ran.Add(1)
	poke(r.poke)
}

func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// run reports until ctx ends.
func (r *reporter) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.ask:
			r.write("s")
		case <-r.poke:
			r.catchUp(ctx)
		}
	}
}

// catchUp writes the counts whenever they change until the completions
// recorded reach the jobs run, catchUpFor passes, or ctx ends.
func (r *reporter) catchUp(ctx context.Context) {
	t := time.NewTimer(catchUpEvery)
	defer t.Stop()
	t0 := time.Now()
	for limit := t0.Add(catchUpFor); ; {
		if r.write("n") >= r.ran.Load() || time.Now().After(limit) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-r.ask:
			r.write("s")
		case <-t.C:
			if time.Since(t0) < catchUpFast {
				t.Reset(catchUpEvery)
			} else {
				t.Reset(catchUpSlow)
			}
		}
	}
}

// write writes the counts under tag: always for "s", for "n" only when
// they changed. It returns the completions.
func (r *reporter) write(tag string) int64 {
	c := [2]int64{r.sys.completed(), r.sys.stolen()}
	if tag == "s" || c != r.written {
		r.written = c
		fmt.Fprintf(r.out, "%s %d %d\n", tag, c[0], c[1])
		r.out.Flush()
	}
	return c[0]
}

// findDesign returns the design named name among compareDesigns(fetchK).
func findDesign(name string, fetchK int) (design, bool) {
	for _, d := range compareDesigns(fetchK) {
		if d.Name == name {
			return d, true
		}
	}
	return design{}, false
}

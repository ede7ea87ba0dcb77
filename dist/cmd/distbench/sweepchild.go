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
	// sweepChildCap: a worker process exits after this whatever happens,
	// should its parent neither kill it nor close its stdin.
	sweepChildCap = trialTimeout + 30*time.Second
	// reapWait bounds each wait for a killed worker process.
	reapWait = 10 * time.Second
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
	eof          chan struct{} // closed when its stdout ended
	done, stolen atomic.Int64  // its last reported counts
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
	cmd.Env = append(os.Environ(), roleEnv+"="+roleSweep, specEnv+"="+string(b))
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
	k := &sweepChild{index: spec.Index, cmd: cmd, in: in, ready: make(chan struct{}), eof: make(chan struct{})}
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
		case len(f) == 3 && f[0] == "n":
			done, err1 := strconv.ParseInt(f[1], 10, 64)
			stolen, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 == nil && err2 == nil {
				k.done.Store(done)
				k.stolen.Store(stolen)
			}
		}
	}
}

// open tells the process that the gate is open. A process that has died
// cannot be told; its trial fails by its own timeout.
func (k *sweepChild) open() { io.WriteString(k.in, "go\n") }

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
		fmt.Fprintf(os.Stderr, "distbench: worker process %d not reaped within %v\n", k.cmd.Process.Pid, reapWait)
	}
}

// sweepChildMain is a worker process of the sweep: it starts the worker
// its childSpec names, reports, and runs until its stdin ends (or it is
// killed, which is how a trial ends it).
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
	sys := d.workers(overTCP(spec.URL), spec.Workload, gate)
	defer sys.close()
	defer open() // before close: handlers may wait at the gate
	ctx, cancel := context.WithTimeout(context.Background(), sweepChildCap)
	defer cancel()
	if err := sys.start(ctx, spec.Index, spec.Index+1); err != nil {
		fmt.Fprintln(os.Stderr, "worker process:", err)
		return 2
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	ended := make(chan struct{})
	go followStdin(open, ended)
	reportCounts(ctx, sys, out, ended)
	return 0
}

// followStdin calls open when "go" arrives and closes ended at the end of
// stdin.
func followStdin(open func(), ended chan<- struct{}) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if sc.Text() == "go" {
			open()
		}
	}
	close(ended)
}

// reportCounts writes the worker's counts to out every millisecond in which
// they changed, until ended closes or ctx ends.
func reportCounts(ctx context.Context, sys system, out *bufio.Writer, ended <-chan struct{}) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var done, stolen int64
	for {
		select {
		case <-ended:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		d, s := sys.completed(), sys.stolen()
		if d != done || s != stolen {
			done, stolen = d, s
			fmt.Fprintf(out, "n %d %d\n", d, s)
			out.Flush()
		}
	}
}

// findDesign returns the design named name among designs(fetchK).
func findDesign(name string, fetchK int) (design, bool) {
	for _, d := range designs(fetchK) {
		if d.Name == name {
			return d, true
		}
	}
	return design{}, false
}

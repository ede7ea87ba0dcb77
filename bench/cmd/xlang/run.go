package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/worksteal/steal/bench/internal/stats"
)

// settings are what every process of a run gets.
type settings struct {
	Warmup  int           `json:"warmup"`  // untimed iterations first
	Reps    int           `json:"reps"`    // timed iterations after them
	Threads int           `json:"threads"` // workers: GOMAXPROCS, Rayon's and ForkJoinPool's
	Timeout time.Duration `json:"timeout"` // per process
}

// runOne runs one fresh process of im on k and returns its sample: the
// median of its timed iterations, after checking its result.
func runOne(tc toolchain, im impl, k kernel, s settings) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	args := slices.Clone(tc.argv)
	env := append(os.Environ(), tc.env...)
	if im.Lang == "go" {
		env = append(env, goChildEnv(im, k, s)...)
	} else {
		args = append(args, k.Name, im.Arg, strconv.Itoa(k.Param),
			strconv.Itoa(s.Warmup), strconv.Itoa(s.Reps), strconv.Itoa(s.Threads))
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return 0, fmt.Errorf("timeout after %v", s.Timeout)
	}
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, tail(stderr.String(), 5))
	}
	if im.Lang == "go" {
		return parseGo(stdout.Bytes())
	}
	return parseOther(stdout.Bytes(), k, s.Reps)
}

// goChildEnv makes the bench harness binary a child that measures one
// (workload, impl): the harness's own protocol (bench/harness.go).
func goChildEnv(im impl, k kernel, s settings) []string {
	spec, _ := json.Marshal(map[string]any{
		"workload": k.Name, "impl": im.Arg, "param": k.Param,
		"runs": s.Reps, "warmup": s.Warmup, "timeout": s.Timeout,
	})
	return []string{"STEALBENCH_CHILD=" + string(spec), "GOMAXPROCS=" + strconv.Itoa(s.Threads)}
}

// parseGo reads the harness child's result line. The harness has already
// checked the result against the same count (bench/internal/uts).
func parseGo(out []byte) (int64, error) {
	var r struct {
		OK       bool   `json:"ok"`
		Error    string `json:"error"`
		MedianNs int64  `json:"median_ns"`
	}
	if err := lastJSON(out, &r); err != nil {
		return 0, err
	}
	if !r.OK {
		return 0, errors.New(r.Error)
	}
	return r.MedianNs, nil
}

// parseOther reads the result line of the Rust or Java program and checks
// its result and number of timings.
func parseOther(out []byte, k kernel, reps int) (int64, error) {
	var r struct {
		Result *int64  `json:"result"`
		Ns     []int64 `json:"ns"`
	}
	if err := lastJSON(out, &r); err != nil {
		return 0, err
	}
	switch {
	case r.Result == nil:
		return 0, errors.New("no result in output")
	case *r.Result != k.Want:
		return 0, fmt.Errorf("wrong result: got %d, want %d", *r.Result, k.Want)
	case len(r.Ns) != reps:
		return 0, fmt.Errorf("%d timings, want %d", len(r.Ns), reps)
	}
	return stats.Median(r.Ns), nil
}

// lastJSON decodes the last line of out that is a JSON object.
func lastJSON(out []byte, v any) error {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 && line[0] == '{' {
			last = slices.Clone(line)
		}
	}
	if last == nil {
		return fmt.Errorf("no result line in output: %q", tail(strings.TrimSpace(string(out)), 3))
	}
	if err := json.Unmarshal(last, v); err != nil {
		return fmt.Errorf("bad result line %q: %v", last, err)
	}
	return nil
}

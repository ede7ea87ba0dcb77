package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/worksteal/steal/cluster"
)

// answerWait is the least time report waits for the cluster's answer.
// A healthy cluster of a few dozen workers answers in milliseconds, not
// always within 10 ms.
const answerWait = time.Second

// report prints what the cluster is doing every interval until ctx ends:
// the live workers, those that joined or left since the last line, the
// jobs they completed and stole since they started, and their queues.
// A line that the cluster did not answer in time says so.
func report(ctx context.Context, cl *cluster.Client, every time.Duration, out io.Writer) {
	start := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	var last []cluster.WorkerState
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// The answer may take longer than a short -every: a line that
		// comes late is better than one that says the cluster is gone.
		actx, cancel := context.WithTimeout(ctx, max(every, answerWait))
		states, err := cl.Workers(actx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			fmt.Fprintf(out, "%7.1fs  no answer from the cluster: %v\n", time.Since(start).Seconds(), err)
			continue
		}
		fmt.Fprintln(out, statusLine(time.Since(start), states, last, nil))
		last = states
	}
}

// statusLine is one line of report: workers (joined, left since prev),
// jobs done and stolen since base, each queue.
func statusLine(at time.Duration, states, prev, base []cluster.WorkerState) string {
	states, prev = inNumberOrder(states), inNumberOrder(prev)
	names := func(ss []cluster.WorkerState) []string {
		var n []string
		for _, s := range ss {
			n = append(n, s.Name)
		}
		return n
	}
	now, before := names(states), names(prev)
	var joined, left []string
	for _, n := range now {
		if prev != nil && !slices.Contains(before, n) {
			joined = append(joined, n)
		}
	}
	for _, n := range before {
		if !slices.Contains(now, n) {
			left = append(left, n)
		}
	}
	done, stolen := since(states, base)
	var b strings.Builder
	fmt.Fprintf(&b, "%7.1fs  workers %d", at.Seconds(), len(states))
	if len(joined) > 0 {
		fmt.Fprintf(&b, " (joined %s)", strings.Join(joined, " "))
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, " (left %s)", strings.Join(left, " "))
	}
	fmt.Fprintf(&b, "  done %d  stolen %d  queues", done, stolen)
	for _, s := range states {
		fmt.Fprintf(&b, " %s=%d", s.Name, s.Queue)
	}
	return b.String()
}

// inNumberOrder returns the states ordered as a reader counts workers, w2
// before w10 (byNumber); Client.Workers sorts names as strings.
func inNumberOrder(states []cluster.WorkerState) []cluster.WorkerState {
	out := slices.Clone(states)
	slices.SortFunc(out, func(a, b cluster.WorkerState) int { return byNumber(a.Name, b.Name) })
	return out
}

// byNumber compares names with each run of digits taken as a number
// (w2 before w10, w02 beside w2) and the rest byte by byte; names that
// compare equal so (w02 and w2) fall back to string order.
func byNumber(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if !isDigit(a[i]) || !isDigit(b[j]) {
			if a[i] != b[j] {
				return cmp.Compare(a[i], b[j])
			}
			i, j = i+1, j+1
			continue
		}
		si, sj := i, j
		for i < len(a) && isDigit(a[i]) {
			i++
		}
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		x, y := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
		if c := cmp.Compare(len(x), len(y)); c != 0 {
			return c // more digits, a larger number
		}
		if c := strings.Compare(x, y); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

package steal

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

type eventKind uint8

const (
	evTaskStart eventKind = iota // a: the task's name, an index into timeline.names
	evTaskEnd
	evSteal // a: victim, b: tasks taken
	evPark
	evUnpark
)

type event struct {
	at   int64 // nanoseconds since the pool started
	kind eventKind
	a, b int32
}

// timeline is one worker's bounded event buffer, written by its owner only
// and read after the workers have exited. Once full it drops every later
// event, so no task end is kept whose start was dropped.
type timeline struct {
	start   time.Time
	max     int
	events  []event
	dropped int
	// names are the task names seen, names[0] being the slice name of an
	// unnamed task; nameIDs indexes them.
	names   []string
	nameIDs map[string]int32
}

func newTimeline(start time.Time, max int) *timeline {
	return &timeline{start: start, max: max, events: make([]event, 0, min(max, 4096)),
		names: []string{"task"}}
}

// nameID returns the index of a task name in tl.names, adding it if new;
// 0 for "". Names are only added while events are kept, so there are
// never more of them than events.
func (tl *timeline) nameID(name string) int32 {
	if name == "" || len(tl.events) >= tl.max {
		return 0
	}
	if id, ok := tl.nameIDs[name]; ok {
		return id
	}
	if tl.nameIDs == nil {
		tl.nameIDs = make(map[string]int32)
	}
	id := int32(len(tl.names))
	tl.names = append(tl.names, name)
	tl.nameIDs[name] = id
	return id
}

func (tl *timeline) add(kind eventKind, a, b int32) {
	if len(tl.events) >= tl.max {
		tl.dropped++
		return
	}
	tl.events = append(tl.events, event{at: int64(time.Since(tl.start)), kind: kind, a: a, b: b})
}

// traceEvent is one Chrome trace event ("Trace Event Format").
type traceEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"` // microseconds
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   int            `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteTrace writes the timeline recorded with WithTimeline as Chrome trace
// event JSON: one thread per worker, a slice per task named after the task
// (see Named; "task" if it has no name), a "parked" slice per park, and
// for each steal an instant event on the thief with a flow arrow from the
// victim. Call it once the pool's tasks have all finished: after Close
// has returned anything but ErrInsideTask or ErrDefaultPool (the tasks'
// panics included), or Shutdown anything but those or ctx.Err(). Before
// that it returns ErrNotClosed, and after a Shutdown that gave up it does
// so until the tasks still running end. Any goroutine may call it, any
// number of times. Without WithTimeline it writes a trace with no events
// but each worker's name.
func (p *Pool) WriteTrace(out io.Writer) error {
	p.made("Pool.WriteTrace")
	select {
	case <-p.done:
	default:
		return ErrNotClosed
	}
	p.workersDone.Wait()
	bw := bufio.NewWriter(out)
	enc := json.NewEncoder(bw)
	fmt.Fprint(bw, `{"displayTimeUnit":"ns","traceEvents":[`)
	first := true
	emit := func(e traceEvent) error {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		return enc.Encode(e)
	}
	flow := 0
	for _, w := range p.workers {
		if err := emit(traceEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: w.id,
			Args: map[string]any{"name": fmt.Sprintf("worker %d", w.id)}}); err != nil {
			return err
		}
		if w.timeline == nil {
			continue
		}
		var open []string // slices begun and not yet ended
		var last float64
		for _, e := range w.timeline.events {
			for _, te := range e.chrome(w.id, w.timeline.names, &flow) {
				switch te.Ph {
				case "B":
					open = append(open, te.Name)
				case "E": // named after the slice it ends
					te.Name = open[len(open)-1]
					open = open[:len(open)-1]
				}
				last = te.Ts
				if err := emit(te); err != nil {
					return err
				}
			}
		}
		for len(open) > 0 { // cut off by the buffer's limit: close at the last event
			name := open[len(open)-1]
			open = open[:len(open)-1]
			if err := emit(traceEvent{Name: name, Ph: "E", Ts: last, Pid: 1, Tid: w.id,
				Args: map[string]any{"truncated": true}}); err != nil {
				return err
			}
		}
	}
	fmt.Fprint(bw, "]}\n")
	return bw.Flush()
}

// chrome turns one event into trace events on worker tid's thread; names
// are the task names of its timeline.
func (e event) chrome(tid int, names []string, flow *int) []traceEvent {
	ts := float64(e.at) / 1e3
	switch e.kind {
	case evTaskStart:
		return []traceEvent{{Name: names[e.a], Ph: "B", Ts: ts, Pid: 1, Tid: tid}}
	case evTaskEnd:
		return []traceEvent{{Ph: "E", Ts: ts, Pid: 1, Tid: tid}}
	case evPark:
		return []traceEvent{{Name: "parked", Ph: "B", Ts: ts, Pid: 1, Tid: tid}}
	case evUnpark:
		return []traceEvent{{Ph: "E", Ts: ts, Pid: 1, Tid: tid}}
	case evSteal:
		*flow++
		args := map[string]any{"victim": int(e.a), "thief": tid, "tasks": int(e.b)}
		return []traceEvent{
			{Name: "steal", Ph: "s", Ts: ts, Pid: 1, Tid: int(e.a), ID: *flow},
			{Name: "steal", Ph: "f", BP: "e", Ts: ts, Pid: 1, Tid: tid, ID: *flow},
			{Name: "steal", Ph: "i", S: "t", Ts: ts, Pid: 1, Tid: tid, Args: args},
		}
	}
	return nil
}

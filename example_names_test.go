package steal_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strings"

	"github.com/worksteal/steal"
)

func ExampleNamed() {
	p := steal.New(steal.WithWorkers(2), steal.WithTimeline(100))
	g := p.Group(steal.Named(context.Background(), "thumbnail"))
	for range 3 {
		g.Go(func(w *steal.Worker) error {
			steal.Join(w, func(*steal.Worker) {}, func(*steal.Worker) {}) // the parts inherit the name
			return nil
		})
	}
	g.Wait()
	p.Close()
	var timeline bytes.Buffer
	p.WriteTrace(&timeline)
	fmt.Println(strings.Count(timeline.String(), `"name":"thumbnail","ph":"B"`) >= 3)
	// Output: true
}

func ExampleTaskName() {
	p := steal.New()
	defer p.Close()
	names := make(chan string)
	p.Submit(steal.Named(context.Background(), "resize"), func(w *steal.Worker) {
		names <- steal.TaskName(w.Context())
	})
	fmt.Println(<-names)
	// Output: resize
}

// Go's execution tracer shows each task as a region named after the task,
// on the goroutine of the worker that ran it, and each group round as a
// trace task. Open the file with go tool trace exec.trace: "User-defined
// tasks" and "User-defined regions" list "resize", and the goroutine view
// shows which worker ran which task. (Not run by go test: it writes a
// file.)
func ExampleNamed_executionTracer() {
	out, err := os.Create("exec.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	if err := trace.Start(out); err != nil {
		log.Fatal(err)
	}
	defer trace.Stop()

	p := steal.New()
	defer p.Close()
	g := p.Group(steal.Named(context.Background(), "resize"))
	for range 10 {
		g.Go(func(*steal.Worker) error { return nil })
	}
	g.Wait()
}

func ExampleWithProfileLabels() {
	p := steal.New(steal.WithProfileLabels())
	defer p.Close()
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("tenant", "acme"))
	labelled := make(chan bool)
	p.Submit(steal.Named(ctx, "report"), func(w *steal.Worker) {
		// A profile taken now shows this worker's goroutine with the
		// task's labels: go tool pprof -tagfocus tenant=acme selects it.
		var profile bytes.Buffer
		pprof.Lookup("goroutine").WriteTo(&profile, 1)
		labelled <- strings.Contains(profile.String(), `# labels: {"steal.task":"report", "tenant":"acme"}`)
	})
	fmt.Println(<-labelled)
	// Output: true
}

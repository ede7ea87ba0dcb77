package cluster_test

import (
	"context"
	"fmt"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// A catch-all handler takes every job type that has no handler of its
// own; Job.StolenFrom says whether a steal brought the job (here it was
// submitted, so it is empty). Queued counts the jobs still waiting in the
// worker's deque.
func ExampleWorker_HandleAll() {
	srv, err := natsserver.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()
	nc, _ := srv.Connect()
	defer nc.Close()

	w, _ := cluster.NewWorker(nc, "w1")
	w.HandleAll(func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		return fmt.Appendf(nil, "%s job, stolen from %q", j.Type, j.StolenFrom), nil
	})
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Close()

	c, _ := cluster.NewClient(ctx, nc)
	if err := c.Submit(ctx, "any-1", "resize", nil); err != nil {
		panic(err)
	}
	r, _ := c.Wait(ctx, "any-1")
	fmt.Printf("%s\n", r.Value)
	fmt.Println("queued:", w.Queued())
	// Output:
	// resize job, stolen from ""
	// queued: 0
}

package cluster_test

import (
	"context"
	"fmt"
	"time"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// Moving work by hand: w1 holds three jobs and runs one at a time; Steal
// gives the one at the back of its deque to w2, and Workers shows the
// queues and, once idle, who completed what.
func ExampleClient_Steal() {
	srv, err := natsserver.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()
	nc, _ := srv.Connect()
	defer nc.Close()
	release := make(chan struct{})
	for _, name := range []string{"w1", "w2"} {
		w, _ := cluster.NewWorker(nc, name, cluster.WithSlots(1), cluster.WithStealMode(cluster.StealOff))
		w.Handle("wait", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			<-release
			return nil, nil
		})
		if err := w.Start(ctx); err != nil {
			panic(err)
		}
		defer w.Close()
	}
	c, _ := cluster.NewClient(ctx, nc)
	for _, id := range []string{"a", "b", "c"} {
		c.Submit(ctx, id, "wait", nil, cluster.To("w1"))
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if states, _ := c.Workers(ctx); len(states) == 2 && states[0].Queue == 2 {
			break // w1 runs a; b and c wait
		}
	}
	res, err := c.Steal(ctx, "w2", "w1", 1)
	fmt.Println(res.Jobs, res.VictimQueue, err)
	close(release)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c.WaitIdle(wctx)
	states, _ := c.Workers(ctx)
	for i := 0; len(states) < 2 && i < 100; i++ { // a worker that answered late is asked again
		time.Sleep(10 * time.Millisecond)
		states, _ = c.Workers(ctx)
	}
	for _, s := range states {
		fmt.Println(s.Name, "completed", s.Completed, "gave", s.Given)
	}
	// Output:
	// [c] 1 <nil>
	// w1 completed 2 gave 1
	// w2 completed 1 gave 0
}

package cluster_test

import (
	"context"
	"fmt"
	"time"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// A parent that waits for its children (fork-join): with local spawn (the
// default, set here explicitly) each child stays in the worker's memory and
// completes before its parent, so it costs one write, its completion.
// WithLocalSpawn(false) would write each child's record at spawn as well.
func ExampleWithLocalSpawn() {
	srv, err := natsserver.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()
	nc, _ := srv.Connect()
	defer nc.Close()
	c, _ := cluster.NewClient(ctx, nc)

	// Two slots: the parent waits in one while its child runs in the other.
	w, _ := cluster.NewWorker(nc, "w1", cluster.WithLocalSpawn(true), cluster.WithSlots(2))
	w.Handle("square", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		return []byte(fmt.Sprint(len(j.Payload) * len(j.Payload))), nil
	})
	w.Handle("sum", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		a, _ := j.Spawn(ctx, "square", []byte("abc"))
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		r, err := c.Wait(wctx, a)
		if err != nil {
			return nil, err
		}
		return []byte("child " + a + " = " + string(r.Value)), nil
	})
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Close()

	c.Submit(ctx, "s", "sum", nil)
	r, _ := c.Wait(ctx, "s")
	fmt.Println(string(r.Value))
	// Output: child s-0 = 9
}

package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// A cluster on a laptop: an embedded server, one worker, one client.
func Example() {
	srv, err := natsserver.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()

	wc, _ := srv.Connect()
	defer wc.Close()
	w, _ := cluster.NewWorker(wc, "w1")
	w.Handle("upper", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		return []byte(strings.ToUpper(string(j.Payload))), nil
	})
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Close()

	cc, _ := srv.Connect()
	defer cc.Close()
	c, _ := cluster.NewClient(ctx, cc)
	if err := c.Submit(ctx, "greet-1", "upper", []byte("hello")); err != nil {
		panic(err)
	}
	r, _ := c.Wait(ctx, "greet-1")
	fmt.Printf("%s by %s\n", r.Value, r.Worker)
	// Output: HELLO by w1
}

// A handler spawns children onto its own worker's deque; WaitIdle returns
// once the whole tree has run.
func ExampleJob_Spawn() {
	srv, err := natsserver.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()
	nc, _ := srv.Connect()
	defer nc.Close()

	w, _ := cluster.NewWorker(nc, "w1", cluster.WithLease(time.Second))
	w.Handle("tree", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		if len(j.Payload) > 0 { // payload length = depth left
			for range 2 {
				if _, err := j.Spawn(ctx, "tree", j.Payload[1:]); err != nil {
					return nil, err
				}
			}
		}
		return nil, nil
	})
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Close()

	c, _ := cluster.NewClient(ctx, nc)
	c.Submit(ctx, "root", "tree", []byte{0, 0, 0})
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	fmt.Println(c.WaitIdle(wctx))
	r, _ := c.Wait(ctx, "root-1-0-1")
	fmt.Println(r.ID, r.Err)
	// Output:
	// <nil>
	// root-1-0-1 <nil>
}

// Failures are recorded as the job's result, with a code.
func ExampleJobError() {
	srv, err := natsserver.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()
	nc, _ := srv.Connect()
	defer nc.Close()
	w, _ := cluster.NewWorker(nc, "w1")
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Close()
	c, _ := cluster.NewClient(ctx, nc)
	c.Submit(ctx, "j1", "no-such-type", nil)
	r, _ := c.Wait(ctx, "j1")
	var je *cluster.JobError
	fmt.Println(errors.As(r.Err, &je), je.Code, errors.Is(r.Err, cluster.ErrUnknownType))
	// Output: true unknown_type true
}

package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// SubmitBatch queues many jobs in one call; a *BatchError says, job by
// job, which were not queued and why.
func ExampleClient_SubmitBatch() {
	srv, err := natsserver.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()
	nc, _ := srv.Connect()
	defer nc.Close()

	w, _ := cluster.NewWorker(nc, "w1")
	w.Handle("square", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		n, _ := strconv.Atoi(string(j.Payload))
		return []byte(strconv.Itoa(n * n)), nil
	})
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Close()

	c, _ := cluster.NewClient(ctx, nc)
	var jobs []cluster.BatchJob
	for i := range 3 {
		jobs = append(jobs, cluster.BatchJob{ID: "sq-" + strconv.Itoa(i), Type: "square", Payload: []byte(strconv.Itoa(i + 2))})
	}
	if err := c.SubmitBatch(ctx, jobs); err != nil {
		panic(err)
	}
	for _, j := range jobs {
		r, _ := c.Wait(ctx, j.ID)
		fmt.Printf("%s = %s\n", j.ID, r.Value)
	}

	// Submitting again: sq-1 completed already, sq-9 is new.
	again := []cluster.BatchJob{{ID: "sq-1", Type: "square"}, {ID: "sq-9", Type: "square", Payload: []byte("9")}}
	err = c.SubmitBatch(ctx, again)
	var be *cluster.BatchError
	if errors.As(err, &be) {
		for i, e := range be.Errs {
			fmt.Printf("%s: duplicate %v\n", again[i].ID, errors.Is(e, cluster.ErrDuplicateJob))
		}
	}
	r, _ := c.Wait(ctx, "sq-9")
	fmt.Printf("sq-9 = %s\n", r.Value)

	// Invalid input anywhere: nothing is sent.
	err = c.SubmitBatch(ctx, []cluster.BatchJob{{ID: "ok", Type: "square"}, {ID: "not ok", Type: "square"}})
	fmt.Println(errors.Is(err, cluster.ErrInvalidID), err)
	// Output:
	// sq-0 = 4
	// sq-1 = 9
	// sq-2 = 16
	// sq-1: duplicate true
	// sq-9: duplicate false
	// sq-9 = 81
	// true SubmitBatch: job 1 (id "not ok"): cluster: invalid job id
}

// SubmitBundle queues many small jobs in few records: each bundle is one
// record, run by one worker, whose jobs' completions are recorded
// together.
func ExampleClient_SubmitBundle() {
	srv, err := natsserver.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()
	nc, _ := srv.Connect()
	defer nc.Close()

	w, _ := cluster.NewWorker(nc, "w1")
	w.Handle("square", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		n, _ := strconv.Atoi(string(j.Payload))
		return []byte(strconv.Itoa(n * n)), nil
	})
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Close()

	c, _ := cluster.NewClient(ctx, nc)
	var jobs []cluster.BatchJob
	for i := range 40 {
		jobs = append(jobs, cluster.BatchJob{ID: "b-" + strconv.Itoa(i), Type: "square", Payload: []byte(strconv.Itoa(i))})
	}
	if err := c.SubmitBundle(ctx, jobs); err != nil {
		panic(err)
	}
	sum := 0
	for _, j := range jobs {
		r, _ := c.Wait(ctx, j.ID)
		n, _ := strconv.Atoi(string(r.Value))
		sum += n
	}
	fmt.Println("sum of squares:", sum)

	// An id submitted in a bundle is not checked then: b-3 completed
	// already, and keeps its first result.
	if err := c.SubmitBundle(ctx, []cluster.BatchJob{{ID: "b-3", Type: "square", Payload: []byte("100")}}); err != nil {
		panic(err)
	}
	if err := c.WaitIdle(ctx); err != nil {
		panic(err)
	}
	r, _ := c.Wait(ctx, "b-3")
	fmt.Println("b-3 =", string(r.Value), "duplicates:", w.Stats().Duplicates)
	// Output:
	// sum of squares: 20540
	// b-3 = 9 duplicates: 1
}

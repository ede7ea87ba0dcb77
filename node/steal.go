package node

// stealJob answers
//
//	{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": ["w1", "w2"]}
//
// with
//
//	{"type": "job_stolen", "in_reply_to": 1, "thief": "w3", "victim": "w1",
//	 "job_id": "job2", "victim_queue_size": 2}
//
// The job comes off the back of the victim's deque and goes on the front of
// the thief's. The victim is chosen among busy_workers (every other worker
// when the field is absent) by the cluster's victim policy: by default the
// most loaded, ties to the first listed. Error 1002 when none has a job.
func (n *Node) stealJob(req *request) error {
	thief, err := required(req.ThiefWorker, "thief_worker")
	if err != nil {
		return err
	}
	t, err := n.cluster.Steal(thief, req.BusyWorkers)
	if err != nil {
		return err
	}
	n.head("job_stolen", req)
	n.enc.str("thief", t.Thief)
	n.enc.str("victim", t.Victim)
	n.enc.str("job_id", t.Job.ID)
	n.enc.int("victim_queue_size", int64(t.VictimQueueSize))
	return nil
}

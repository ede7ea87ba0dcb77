package node

// checkClusterState answers {"type": "check_cluster_state", "msg_id": 2}
// with every worker, in worker order, and whether the whole cluster is idle:
//
//	{"type": "cluster_state_ok", "in_reply_to": 2, "workers": {
//	  "w1": {"queue_size": 0, "state": "idle"}, ...}, "all_idle": true}
//
// A worker is "idle" when its deque is empty and nothing is in flight at
// it, "busy" otherwise.
func (n *Node) checkClusterState(req *request) error {
	n.head("cluster_state_ok", req)
	n.enc.obj("workers")
	for _, w := range n.cluster.Workers() {
		n.enc.obj(w.Name)
		n.enc.int("queue_size", int64(w.QueueSize))
		n.enc.str("state", stateName(w.Idle()))
		n.enc.end()
	}
	n.enc.end()
	n.enc.bool("all_idle", n.cluster.AllIdle())
	return nil
}

func stateName(idle bool) string {
	if idle {
		return "idle"
	}
	return "busy"
}

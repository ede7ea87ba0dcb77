package coord

import "fmt"

// Check verifies conservation: every live job sits in exactly one deque or
// in flight at exactly one worker, and nothing else is anywhere, and
// PayloadBytes counts their payloads. A nil
// result means no job has been lost or duplicated. It is O(jobs) and meant
// for tests and debugging.
func (c *Cluster) Check() error {
	seen := make(map[string]string, len(c.live))
	bytes := 0
	note := func(id, where string) error {
		if prev, dup := seen[id]; dup {
			return fmt.Errorf("cluster: job %s is both %s and %s", id, prev, where)
		}
		if _, ok := c.live[id]; !ok {
			return fmt.Errorf("cluster: job %s is %s but not live", id, where)
		}
		seen[id] = where
		return nil
	}
	for _, s := range c.Snapshot() {
		for _, j := range s.Queue {
			if err := note(j.ID, "queued at "+s.Name); err != nil {
				return err
			}
			bytes += len(j.Payload)
		}
		for _, j := range s.InFlight {
			if err := note(j.ID, "in flight at "+s.Name); err != nil {
				return err
			}
			bytes += len(j.Payload)
		}
	}
	if len(seen) != len(c.live) {
		return fmt.Errorf("cluster: %d jobs live but %d found: a job was lost", len(c.live), len(seen))
	}
	if bytes != c.payload {
		return fmt.Errorf("cluster: payloads of %d bytes found, %d counted", bytes, c.payload)
	}
	return nil
}

package coord

import (
	"errors"
	"strings"
	"testing"
)

// layout renders every deque front to back and the in-flight ids, e.g.
// "w1[job0 job1] w2[] w3[]{job5}", so tests can compare whole states.
func layout(c *Cluster) string {
	var b strings.Builder
	for i, s := range c.Snapshot() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s.Name + "[" + ids(s.Queue) + "]")
		if len(s.InFlight) > 0 {
			b.WriteString("{" + ids(s.InFlight) + "}")
		}
	}
	return b.String()
}

func ids(jobs []Job) string {
	s := make([]string, len(jobs))
	for i, j := range jobs {
		s[i] = j.ID
	}
	return strings.Join(s, " ")
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("err = %v, want %v", err, target)
	}
}

func wantLayout(t *testing.T, c *Cluster, want string) {
	t.Helper()
	if got := layout(c); got != want {
		t.Fatalf("layout\n got %s\nwant %s", got, want)
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
}

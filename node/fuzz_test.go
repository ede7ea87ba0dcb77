package node

import (
	"strings"
	"testing"
)

// FuzzHandleLine feeds arbitrary input to Handle on the example cluster.
// Handle must not panic, must reply with one line of valid-looking JSON or
// report a skip, and a request answered with an error must leave the node
// exactly as it was. Its seed corpus runs in every go test.
func FuzzHandleLine(f *testing.F) {
	for _, s := range []string{
		`{"src":"c","dest":"n","body":{"type":"steal_job","msg_id":1,"thief_worker":"w3","busy_workers":["w1","w2"]}}`,
		`{"src":"c","dest":"n","body":{"type":"init","msg_id":1,"workers":["a","b"],"jobs_to_distribute":5,"distribution":"skewed"}}`,
		`{"src":"c","dest":"n","body":{"type":"run_simulation","msg_id":2,"duration_ms":12.5,"policies":["half/random"]}}`,
		`{"src":"c","dest":"n","body":{"type":"push_job","msg_id":3,"worker":"w1","job_id":"j","payload":[1,{"a":null}]}}`,
		`{"src":"c","dest":"n","body":{"type":"pop_job","msg_id":4,"worker":"w3"}}`,
		`{"src":"c","dest":"n","body":{"type":"complete_job","msg_id":5,"worker":"w1","job_id":"job0"}}`,
		`{"src":"c","dest":"n","body":{"type":"check_cluster_state","msg_id":6}}`,
		`{"src":"c","dest":"n","body":{"type":"init","msg_id":1.5,"workers":["a","a"]}}`,
		`{"body":{"type":"steal_job","msg_id":"x","thief_worker":7}}`,
		`{"body":{"type":"init","msg_id":1,"jobs_to_distribute":-3,"cost":{"mean_ms":-1}}}`,
		`{"body":[]}`, `{"body":null}`, `[]`, `"str"`, `{`, ``, `{"body":{}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		n := New()
		before := fingerprint(n)
		reply, err := n.Handle([]byte(line))
		if err != nil {
			if reply != nil || fingerprint(n) != before {
				t.Fatalf("skipped input produced a reply or changed state")
			}
			return
		}
		s := string(reply)
		if !strings.HasPrefix(s, `{"src": `) || strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "}}\n") {
			t.Fatalf("reply is not one envelope line: %q", s)
		}
		if strings.Contains(s, `"type": "error"`) && fingerprint(n) != before {
			t.Fatalf("error reply changed state: %s", s)
		}
		if err := n.cluster.Check(); err != nil {
			t.Fatal(err)
		}
	})
}

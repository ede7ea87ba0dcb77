package node

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

func TestRequestDecodesEveryField(t *testing.T) {
	var env envelope
	err := json.Unmarshal([]byte(`{"src": "c", "dest": "n", "body": {"type": "init", "msg_id": 7,
		"workers": ["a"], "jobs_to_distribute": 3, "cost": {"model": "fixed", "mean_ms": 2},
		"payload": {"x": 1}, "busy_workers": []}}`), &env)
	if err != nil {
		t.Fatal(err)
	}
	r := env.Body
	if err := r.parseMsgID(); err != nil {
		t.Fatal(err)
	}
	if *r.Type != "init" || *r.MsgID != 7 || r.Workers[0] != "a" || *r.JobsToDistribute != 3 ||
		*r.Cost.MeanMS != 2 || string(r.Payload) != `{"x": 1}` || r.BusyWorkers == nil || r.ThiefWorker != nil {
		t.Fatalf("decoded %+v", r)
	}
}

func TestParseMsgID(t *testing.T) {
	for raw, want := range map[string]string{"": "<nil>", "12": "12", "-3": "-3", "1.0": "error", "null": "error", `"1"`: "error"} {
		r := request{ID: rawNumber(raw)}
		got := "error"
		if err := r.parseMsgID(); err == nil {
			got = "<nil>"
			if r.MsgID != nil {
				got = strconv.FormatInt(*r.MsgID, 10)
			}
		}
		if got != want {
			t.Errorf("msg_id %q: got %s, want %s", raw, got, want)
		}
	}
}

func TestRequiredAndMillis(t *testing.T) {
	if _, err := required[string](nil, "worker"); toWire(err).text != "missing field worker" {
		t.Fatalf("required: %v", err)
	}
	s := "w1"
	if v, err := required(&s, "worker"); v != "w1" || err != nil {
		t.Fatalf("required = %q, %v", v, err)
	}
	if d, _ := millis(nil, "x", time.Second); d != time.Second {
		t.Fatalf("fallback %v", d)
	}
	half := 0.5
	if d, _ := millis(&half, "x", 0); d != 500*time.Microsecond {
		t.Fatalf("0.5 ms = %v", d)
	}
	for _, bad := range []float64{-1, 1e12} {
		if _, err := millis(&bad, "x", 0); err == nil || toWire(err).code != CodeMalformed {
			t.Errorf("%v accepted", bad)
		}
	}
	if toMillis(1500*time.Microsecond) != 1.5 {
		t.Fatal("toMillis")
	}
}

package node

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestFastDecodeAcceptsTheCommonShape(t *testing.T) {
	var env envelope
	ok := fastDecode([]byte(` { "src" : "c1", "dest":"n1", "body": {"type": "steal_job", "msg_id": -12,
		"thief_worker": "w3", "busy_workers": ["w1", "w2"], "worker": "w", "job_id": "j", "workers": []}}`), &env)
	if !ok {
		t.Fatal("rejected")
	}
	r := env.Body
	if env.Src != "c1" || env.Dest != "n1" || *r.Type != "steal_job" || string(r.ID) != "-12" ||
		*r.ThiefWorker != "w3" || !reflect.DeepEqual(r.BusyWorkers, []string{"w1", "w2"}) ||
		*r.Worker != "w" || *r.JobID != "j" || r.Workers == nil || len(r.Workers) != 0 {
		t.Fatalf("decoded %+v %+v", env, r)
	}
}

func TestFastDecodeDefersEverythingElse(t *testing.T) {
	for _, in := range []string{
		`{"src": "a\"b"}`, `{"src": "é"}`, `{"Src": "x"}`, `{"node_id": "n1"}`,
		`{"body": {"msg_id": 1.5}}`, `{"body": {"msg_id": 01}}`, `{"body": {"msg_id": 1e3}}`,
		`{"body": {"msg_id": 99999999999999999999}}`, `{"body": {"msg_id": -}}`,
		`{"body": {"duration_ms": 5}}`, `{"body": {"type": null}}`, `{"body": 5}`,
		`{"body": {"busy_workers": ["a",]}}`, `{"body": {"busy_workers": ["a" "b"]}}`,
		`{"src": "a",}`, `{"src": "a" "dest": "b"}`, `{"src": "a"} x`, `{"src": "a"`, `[]`, ``,
	} {
		var env envelope
		if fastDecode([]byte(in), &env) {
			t.Errorf("accepted %s", in)
		}
	}
}

// FuzzFastDecode checks that whatever fastDecode accepts, json.Unmarshal
// (the exact decoder of decode.go) decodes to the same envelope. Its seed
// corpus runs in every go test.
func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{
		`{"src":"c","dest":"n","body":{"type":"steal_job","msg_id":1,"thief_worker":"w3","busy_workers":["w1","w2"]}}`,
		`{"body":{"type":"pop_job","msg_id":0,"worker":"w1","worker":"w2"}}`,
		`{"body":{"workers":["a"],"workers":[]},"body":{}}`,
		`{"src":"x","src":"y"}`, `{}`, ` {"dest" : "d" } `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var fast envelope
		if !fastDecode([]byte(in), &fast) {
			return
		}
		var slow envelope
		if err := json.Unmarshal([]byte(in), &slow); err != nil {
			t.Fatalf("fast path accepted what encoding/json rejects (%v): %s", err, in)
		}
		if fast.Body != nil && len(fast.Body.ID) == 0 {
			fast.Body.ID = nil // an absent msg_id: nil either way
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s\nfast %+v\nslow %+v", in, fast, slow)
		}
	})
}

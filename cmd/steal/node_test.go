package main

import "testing"

func TestNodeCommandAnswersAndExitsZero(t *testing.T) {
	in := `{"src":"client","dest":"cluster","body":{"type":"init","msg_id":1,"workers":["w1","w2","w3"],"jobs_to_distribute":6}}` + "\nnot json\n"
	code, out, errs := runWith([]string{"node"}, in)
	if code != 0 || out != `{"src": "cluster", "dest": "client", "body": {"type": "init_ok", "in_reply_to": 1}}`+"\n" {
		t.Fatalf("code %d out %q", code, out)
	}
	if errs == "" {
		t.Fatal("bad line not reported on stderr")
	}
	if code, _, _ := runWith([]string{"node", "-bogus"}, ""); code != 2 {
		t.Fatalf("bad flag: code %d", code)
	}
}

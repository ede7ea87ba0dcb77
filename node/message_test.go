package node

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// messageSeeds are messages DecodeMessage must read as Handle does: keys
// matched exactly, bad strings, mistyped fields, null elements, msg_id.
var messageSeeds = []string{
	`{"src":"c","dest":"n","body":{"type":"check_cluster_state","msg_id":1}}`,
	`{"src":"c","dest":"n","body":{"Type":"check_cluster_state","msg_id":1}}`,
	`{"src":"c","dest":"n","body":{"type":"check_cluster_state","Msg_Id":2}}`,
	`{"src":"c","dest":"n","BODY":{"type":"check_cluster_state","msg_id":3}}`,
	`{"SRC":"c","Dest":"n","body":{"type":"steal_job","msg_id":6,"thief_worker":"w9"}}`,
	`{"src":"c","dest":"n","body":{"type":"steal_job","msg_id":4,"Thief_Worker":"w9"}}`,
	"{\"src\":\"c\",\"dest\":\"n\",\"body\":{\"type\":\"steal_job\",\"msg_id\":1,\"thief_worker\":\"w\xff\"}}",
	`{"src":"c","dest":"n","body":{"type":"steal_job","msg_id":1,"thief_worker":"\ud800"}}`,
	"{\"src\":\"c\",\"dest\":\"n\",\"body\":{\"type\":\"check_cluster_state\",\"msg_id\":1,\"\xff\":1}}",
	"{\"src\":\"c\xff\",\"dest\":\"n\",\"body\":{\"type\":\"check_cluster_state\",\"msg_id\":1}}",
	`{"src":"c","dest":"n","body":{"type":"steal_job","msg_id":1,"thief_worker":5}}`,
	`{"src":"c","dest":"n","body":{"type":"steal_job","msg_id":1,"thief_worker":"w1","busy_workers":["w2",null]}}`,
	`{"src":"c","dest":"n","body":{"type":"steal_job","msg_id":1,"thief_worker":"w1","busy_workers":["w2",7]}}`,
	`{"src":"c","dest":"n","body":{"type":"steal_job","msg_id":1,"busy_workers":[["w1"]]}}`,
	`{"src":"c","dest":"n","body":{"type":"check_cluster_state","msg_id":123456789012345678901234567890}}`,
	`{"src":"c","dest":"n","body":{"type":"check_cluster_state","msg_id":1.5}}`,
	`{"src":"c","dest":"n","body":{"type":"push_job","msg_id":1,"worker":"w1","job_id":"j","payload":{"a":[1,2]},"cost_ms":1e400}}`,
	`{"src":"c","dest":"n","body":null}`,
	`{"src":"c","dest":"n","body":[1]}`,
	`{"src":"c","dest":"n"}`,
	`[1,2]`,
	`not json`,
	`{"src":"c","dest":"n","body":{"type":"check_cluster_state","msg_id":1},"body":null}`,
	`{"src":"c","dest":"n","body":{"type":"check_cluster_state","msg_id":1,"worker":5}}`,
	`{"src":"c","dest":"n","body":{"type":"fly","msg_id":1,"worker":5}}`,
	`{"src":"c","dest":"n","body":{"worker":5,"type":"pop_job","msg_id":"x"}}`,
}

// FuzzDecodeMessageAgreesWithHandle: what DecodeMessage refuses, given
// the fields of the message's type, Handle refuses the same way: no reply
// for the same reason, or error 12 with the same text, and the same src
// and dest. Messages with init's nested
// cost are left out: DecodeMessage's Fields have no nested objects.
func FuzzDecodeMessageAgreesWithHandle(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		if bytes.Contains(msg, []byte(`cost"`)) || bytes.Contains(msg, []byte(`cost\`)) {
			return
		}
		// The type first, then the type's own fields, as a program that
		// refuses what the node refuses decodes.
		var typ *string
		DecodeMessage(msg, func(key string) any {
			if key == "type" {
				return &typ
			}
			return nil
		})
		var own []string
		if typ != nil {
			own = handlers[*typ].fields
		}
		var r request
		src, dest, ok, err := DecodeMessage(msg, func(key string) any {
			if key != "type" && key != "msg_id" && !slices.Contains(own, key) {
				return nil
			}
			if p := r.field([]byte(key)); p != nil {
				return p
			}
			return nil
		})
		reply, herr := New().Handle(msg)
		if !ok {
			if herr == nil || herr.Error() != err.Error() {
				t.Fatalf("DecodeMessage: no reply (%v); Handle: %v, reply %s", err, herr, reply)
			}
			return
		}
		if herr != nil {
			t.Fatalf("DecodeMessage: a reply; Handle: none (%v)", herr)
		}
		var got struct {
			Src  string `json:"src"`
			Dest string `json:"dest"`
			Body struct {
				Type string `json:"type"`
				Code int    `json:"code"`
				Text string `json:"text"`
			} `json:"body"`
		}
		if err := json.Unmarshal(reply, &got); err != nil {
			t.Fatalf("reply %s: %v", reply, err)
		}
		if got.Src != dest || got.Dest != src {
			t.Fatalf("DecodeMessage src %q dest %q; reply from %q to %q", src, dest, got.Src, got.Dest)
		}
		if err == nil {
			if _, idErr := ParseMsgID(r.ID); idErr != nil {
				err = idErr
			}
		}
		if err != nil && (got.Body.Type != "error" || got.Body.Code != CodeMalformed || got.Body.Text != DecodeErrorText(err)) {
			t.Fatalf("DecodeMessage: %q; Handle replied %s", DecodeErrorText(err), reply)
		}
	})
}

// TestDecodeMessageExactKeys: a key cased otherwise than the protocol's
// is not the field, and a bad string is named where it is.
func TestDecodeMessageExactKeys(t *testing.T) {
	var typ *string
	fields := func(key string) any {
		if key == "type" {
			return &typ
		}
		return nil
	}
	_, _, ok, err := DecodeMessage([]byte(`{"src":"c","dest":"n","body":{"Type":"x"}}`), fields)
	if !ok || err != nil || typ != nil {
		t.Fatalf("ok %v, err %v, type %v: want the Type key ignored", ok, err, typ)
	}
	_, _, ok, err = DecodeMessage([]byte("{\"src\":\"c\",\"dest\":\"n\",\"body\":{\"type\":\"x\xff\"}}"), fields)
	if !ok || err == nil || !strings.Contains(DecodeErrorText(err), "invalid UTF-8 (byte 0xff) in body.type") {
		t.Fatalf("ok %v, err %v: want invalid UTF-8 named in body.type", ok, err)
	}
}

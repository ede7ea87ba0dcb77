package main

import "github.com/worksteal/steal/node"

// obj is a reply body, or an object inside one: its fields in order,
// written by node.AppendReply exactly as stealcluster node writes its replies.
type obj = []node.Field

// kv is one field of an obj.
func kv(k string, v any) node.Field { return node.Field{Key: k, Value: v} }

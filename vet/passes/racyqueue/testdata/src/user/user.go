package user

import (
	"q"
	"sync/atomic"
)

func Steal(e *q.Exported) uint64 {
	e.Plain++
	return e.Stolen // want `plain read of Exported.Stolen, which is accessed with sync/atomic elsewhere`
}

func Count(e *q.Exported) {
	e.Stolen += 2 // want `plain write of Exported.Stolen`
}

// Local has a field used atomically in this package only.
type Local struct{ n int32 } // want n:"usedAtomically"

func (l *Local) Add() { atomic.AddInt32(&l.n, 1) }
func (l *Local) Get() int32 {
	return l.n // want `plain read of Local.n`
}

func Build() *q.Exported {
	return &q.Exported{Stolen: 1}
}

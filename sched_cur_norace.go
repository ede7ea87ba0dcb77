//go:build !race

package steal

// curSlot holds a worker's current task handle. The owner alone writes it,
// once before and once after each task; Worker.core reads it to catch a
// handle used from another goroutine. That read races with the owner only
// when the handle is misused, so a plain field is enough here: a torn read
// is impossible for a pointer, and a stale one still differs from a handle
// that is not current. Under the race detector (cur_race.go) it is atomic,
// so that misuse is reported by the misuse panic, not as a data race.
type curSlot struct{ p *Worker }

func (s *curSlot) load() *Worker   { return s.p }
func (s *curSlot) store(w *Worker) { s.p = w }

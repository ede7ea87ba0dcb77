package steal

// task is one unit of work. It is allocated once per Submit or Spawn and
// linked through next while it waits in the inject queue.
type task struct {
	fn       func(*Worker)
	next     *task // inject queue link, owned by whoever holds the queue lock
	external bool  // submitted from outside: counts against WithMaxQueued
}

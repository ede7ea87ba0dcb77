//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package schedcheck

import "time"

// cpuTime is unknown here: -1.
func cpuTime() time.Duration { return -1 }

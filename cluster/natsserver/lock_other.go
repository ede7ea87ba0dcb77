//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package natsserver

import "os"

// lockStore takes no lock here (no flock): nothing stops a second
// server on the same store directory.
func lockStore(string) (*os.File, error) { return nil, nil }

//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package natsserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockStore takes an exclusive lock on dir (a file in it), held until
// the returned file is closed. nats-server takes none: two servers on one
// store directory would both write the same stream files.
func lockStore(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("natsserver: store directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".steal-lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("natsserver: store directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("natsserver: store directory %s is in use by another server", dir)
		}
		return nil, fmt.Errorf("natsserver: store directory %s: lock: %w", dir, err)
	}
	return f, nil
}

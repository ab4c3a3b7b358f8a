//go:build unix

package storetest

import (
	"errors"
	"syscall"
)

// processGone reports whether no process with the given id runs.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

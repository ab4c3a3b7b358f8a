package storetest

import (
	"errors"
	"syscall"
)

// processGone reports whether no process with the given id runs. On Linux
// a server dies with the test process that started it (Pdeathsig), so its
// directory is free once that process is gone.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

//go:build unix

package store

import (
	"os"
	"syscall"
)

// lockShared takes a shared lock on f if no one holds it for writing, as
// bbolt does (flock), and reports whether it did; unlock releases it.
func lockShared(f *os.File) (unlock func(), ok bool) {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) != nil {
		return nil, false
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, true
}

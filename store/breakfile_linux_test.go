package store_test

import (
	"os"
	"syscall"
)

// breakFile points f's descriptor at /dev/full, so writes through it fail
// with ENOSPC as on a full disk.
func breakFile(f *os.File) error {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer full.Close()
	return syscall.Dup3(int(full.Fd()), int(f.Fd()), 0)
}

//go:build linux

package storetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A server directory whose test process is gone is removed before a server
// starts; one whose process runs, and one not named by a process, stay.
func TestSweepStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skipf("no true(1) to take a finished process's id from: %v", err)
	}
	running := exec.Command("sleep", "60")
	if err := running.Start(); err != nil {
		t.Skipf("no sleep(1): %v", err)
	}
	t.Cleanup(func() { _ = running.Process.Kill(); _ = running.Wait() })

	dir := func(name string) string {
		d := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(d, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		return d
	}
	stale := dir(fmt.Sprintf("%s%d-1", dirPrefix, gone.Process.Pid))
	live := dir(fmt.Sprintf("%s%d-2", dirPrefix, running.Process.Pid))
	own := dir(fmt.Sprintf("%s%d-3", dirPrefix, os.Getpid()))
	unnamed := dir(dirPrefix + "12345")

	sweepStale()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("%s: the directory of a finished process stayed (%v)", stale, err)
	}
	for _, d := range []string{live, own, unnamed} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: removed, want kept: %v", d, err)
		}
	}
}

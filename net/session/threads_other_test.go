//go:build !linux

package session

import "time"

// Elsewhere than Linux the benchmarks' threads are neither pinned,
// prioritised nor timed: these report so.

func gettid() int                       { return 0 }
func threadCPUOf(tid int) time.Duration { return 0 }
func setRealtime() bool                 { return false }
func threadCPU() time.Duration          { return 0 }
func setAffinity(tid, cpu int) bool     { return false }

// pinAllThreads pins nothing here: it reports so, and restores nothing.
func pinAllThreads(cpu int) (bool, func()) { return false, func() {} }

// queueClock reads threads' run-queue waits where the system says them.
type queueClock struct{}

func (q *queueClock) queued(tid int) (time.Duration, bool) { return 0, false }
func (q *queueClock) close()                               {}

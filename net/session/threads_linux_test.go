package session

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// The threads of the benchmarks that pin, prioritise and time them (Linux;
// threads_other_test.go has the others).

// setRealtime puts the calling thread in the real-time class, SCHED_FIFO at
// its lowest priority, and reports whether the system allowed it (Linux,
// CAP_SYS_NICE). The thread must be locked to its goroutine, and end with it.
func setRealtime() bool {
	const schedFIFO = 1
	prio := int32(1) // struct sched_param
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, 0, schedFIFO, uintptr(unsafe.Pointer(&prio)))
	return errno == 0
}

// gettid returns the calling thread's id.
func gettid() int { return syscall.Gettid() }

// threadCPUOf returns the CPU time thread tid of this process has used
// (its CPU clock, MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)), read from
// whichever thread calls, or 0 if the system does not say.
func threadCPUOf(tid int) time.Duration {
	const perThreadSched = 6 // CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED
	clk := ^int32(tid)<<3 | perThreadSched
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(int64(clk)), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// queueClock reads how long threads of this process have waited on the
// kernel's run queue, runnable but without a core (the second field of
// /proc/self/task/tid/schedstat), keeping each thread's file open so a
// reading is one pread and no allocation. Not safe for concurrent use.
type queueClock struct {
	files map[int]int // thread id → open schedstat
	buf   [128]byte
}

// queued returns thread tid's run-queue wait so far, and ok == false if
// the system does not say.
func (q *queueClock) queued(tid int) (d time.Duration, ok bool) {
	fd, seen := q.files[tid]
	if !seen {
		var err error
		fd, err = syscall.Open("/proc/self/task/"+strconv.Itoa(tid)+"/schedstat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
		if q.files == nil {
			q.files = map[int]int{}
		}
		q.files[tid] = fd
	}
	if fd < 0 {
		return 0, false
	}
	n, err := syscall.Pread(fd, q.buf[:], 0)
	if err != nil || n <= 0 {
		return 0, false
	}
	// "run-ns wait-ns timeslices\n": the second number.
	i := bytes.IndexByte(q.buf[:n], ' ') + 1
	if i == 0 || i == n || q.buf[i] < '0' || q.buf[i] > '9' {
		return 0, false
	}
	var ns int64
	for ; i < n && q.buf[i] >= '0' && q.buf[i] <= '9'; i++ {
		ns = ns*10 + int64(q.buf[i]-'0')
	}
	return time.Duration(ns), true
}

// close closes the files q keeps open.
func (q *queueClock) close() {
	for _, fd := range q.files {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
	q.files = nil
}

// threadCPU returns the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID), or 0 if the system does not say.
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// cpuSet is a set of CPUs, as sched_setaffinity takes it.
type cpuSet [16]uint64

// threadCPUs returns the CPUs the calling thread may run on.
func threadCPUs() (cpuSet, bool) {
	var s cpuSet
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(s), uintptr(unsafe.Pointer(&s[0])))
	return s, errno == 0
}

// setThreadCPUs puts thread tid (0: the calling thread) on the CPUs of s.
func setThreadCPUs(tid int, s cpuSet) bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(s), uintptr(unsafe.Pointer(&s[0])))
	return errno == 0
}

// setAffinity puts thread tid (0: the calling thread) on CPU cpu.
func setAffinity(tid, cpu int) bool {
	var s cpuSet
	s[cpu/64] = 1 << (cpu % 64)
	return setThreadCPUs(tid, s)
}

// pinAllThreads puts every thread of the process on CPU cpu, and the
// threads the runtime starts later with them (a thread inherits its
// creator's CPUs). It reports whether the system allowed it, and returns
// what puts every thread back on the CPUs the calling thread had.
func pinAllThreads(cpu int) (ok bool, restore func()) {
	before, known := threadCPUs()
	var s cpuSet
	s[cpu/64] = 1 << (cpu % 64)
	ok = allThreadsOn(s)
	return ok, func() {
		if known {
			allThreadsOn(before)
		}
	}
}

// allThreadsOn puts every thread of the process on the CPUs of s, going
// over the threads again until no new one appeared meanwhile (one created
// from a thread not yet set would keep that thread's CPUs).
func allThreadsOn(s cpuSet) bool {
	done := map[int]bool{}
	ok := true
	for range 10 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return false
		}
		fresh := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh, done[tid] = true, true
			if !setThreadCPUs(tid, s) {
				ok = false
			}
		}
		if !fresh {
			break
		}
	}
	return ok
}

// TestThreadCPUOfReadsThatThread: threadCPUOf read on another thread gives
// the named thread's CPU clock, not the reader's: a thread spins until its
// clock is 20 ms past the reader's while the reader waits, and the reader
// then reads at least that of it, and less of its own.
func TestThreadCPUOfReadsThatThread(t *testing.T) {
	type reading struct {
		tid int
		own time.Duration
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mine := threadCPU()
	got := make(chan reading)
	done := make(chan struct{})
	defer close(done)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for threadCPU() < mine+20*time.Millisecond {
		}
		got <- reading{gettid(), threadCPU()}
		<-done // the thread lives until it was read
	}()
	r := <-got
	if gettid() == r.tid {
		t.Fatal("the reader runs on the thread it reads")
	}
	if other := threadCPUOf(r.tid); other < r.own {
		t.Fatalf("thread %d's clock read from another thread %v, its own reading %v before", r.tid, other, r.own)
	}
	if now := threadCPU(); now >= r.own {
		t.Fatalf("the reader's clock %v is past the spinner's %v: it did not wait", now, r.own)
	}
}

// TestPinAllThreadsRestores: pinAllThreads puts the threads on one CPU, and
// what it returns puts them back where they were, so that a benchmark that
// pins leaves the ones after it free.
func TestPinAllThreadsRestores(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, ok := threadCPUs()
	if !ok {
		t.Skip("the system does not say this thread's CPUs")
	}
	pinned, restore := pinAllThreads(0)
	if !pinned {
		restore()
		t.Skip("the system did not allow pinning")
	}
	var one cpuSet
	one[0] = 1
	if got, _ := threadCPUs(); got != one {
		t.Errorf("pinned to CPU 0, the thread may run on %x", got[:1])
	}
	restore()
	if got, _ := threadCPUs(); got != before {
		t.Errorf("after restoring, the thread may run on %x, before pinning on %x", got[:1], before[:1])
	}
}

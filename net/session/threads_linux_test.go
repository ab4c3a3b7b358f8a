package session

import (
	"syscall"
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

// setAffinity puts thread tid (0: the calling thread) on CPU cpu.
func setAffinity(tid, cpu int) bool {
	var mask [16]uint64
	mask[cpu/64] = 1 << (cpu % 64)
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask[0])))
	return errno == 0
}

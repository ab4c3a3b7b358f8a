//go:build !linux

package storetest

// processGone reports false: where a server may outlive the test process
// that started it, its directory is left alone.
func processGone(pid int) bool { return false }

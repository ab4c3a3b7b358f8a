//go:build !unix

package storetest

// processGone reports false: without a way to ask, every directory is
// taken to be another test binary's.
func processGone(pid int) bool { return false }

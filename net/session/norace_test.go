//go:build !race

package session

// raceEnabled reports whether the race detector is on: long runs are cut
// to a sample under it.
const raceEnabled = false

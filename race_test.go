//go:build race

package tandem

// raceEnabled reports whether the race detector is on: tests that need
// the machine's own speed skip under it.
const raceEnabled = true

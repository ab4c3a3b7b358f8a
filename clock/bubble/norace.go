//go:build !race

package bubble

// raceEnabled reports whether the race detector is built in.
const raceEnabled = false

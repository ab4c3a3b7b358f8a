package replicate

// Every test of the package checks, at each send tick's end, that a peer's
// count of removals not in flight is its queue's.
func init() { unsentChecked = true }

package replicate

import (
	"flag"
	"os"
	"testing"
)

// TestMain has every test of the package check, at each send tick's end,
// that a peer's count of removals not in flight is its queue's; a run of
// benchmarks leaves the check out of what it measures.
func TestMain(m *testing.M) {
	flag.Parse()
	unsentChecked = flag.Lookup("test.bench").Value.String() == ""
	os.Exit(m.Run())
}

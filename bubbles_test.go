package tandem

import (
	"bytes"
	"os"
	"testing"
)

// TestBubblesGoThroughClockBubble: no test calls synctest.Test itself; each
// goes through clock/bubble.Test, which keeps race-enabled runs from
// crashing (see its doc).
func TestBubblesGoThroughClockBubble(t *testing.T) {
	forGoFiles(t, func(path, rel string) {
		if rel == "clock/bubble" {
			return
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The needles are split so that this file does not match itself.
		if bytes.Contains(src, []byte("synctest."+"Test(")) || bytes.Contains(src, []byte("synctest."+"Run(")) {
			t.Errorf("%s calls synctest.Test or Run: use bubble.Test (github.com/tandem-go/tandem/clock/bubble)", path)
		}
	})
}

package tandem

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBubblesGoThroughClockBubble: no test calls synctest.Test itself; each
// goes through clock/bubble.Test, which keeps race-enabled runs from
// crashing (see its doc).
func TestBubblesGoThroughClockBubble(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || filepath.ToSlash(filepath.Dir(path)) == "clock/bubble" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// The needles are split so that this file does not match itself.
		if bytes.Contains(src, []byte("synctest."+"Test(")) || bytes.Contains(src, []byte("synctest."+"Run(")) {
			t.Errorf("%s calls synctest.Test or Run: use bubble.Test (github.com/tandem-go/tandem/clock/bubble)", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

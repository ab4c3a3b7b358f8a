// Command gensounds writes the demo's sound effects (package sfx) into
// assets/sounds, one WAV file each. Run it from the assets directory:
// `go generate ./assets` does.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandem-go/tandem/assets/internal/sfx"
)

func main() {
	for _, e := range sfx.Effects {
		path := filepath.Join("sounds", e.Name+".wav")
		if err := os.WriteFile(path, e.WAV(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gensounds:", err)
			os.Exit(1)
		}
	}
}

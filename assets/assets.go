// Package assets holds the files a game embeds, each with its licence beside
// it: the demo's fonts (fonts/, the Go fonts, BSD-style licence in
// fonts/LICENSE) and its sound effects (sounds/, made by this module's own
// generator, internal/gensounds, and dedicated to the public domain in
// sounds/LICENSE).
//
// It exports bytes, not decoded fonts or sounds: it sits low in the module's
// layers and imports nothing, and only the demo's window side decodes them
// (Ebiten's text and audio packages). A game built from the demo puts its own
// files here the same way.
package assets

import _ "embed"

//go:generate go run ./internal/gensounds

// Fonts, TrueType: the Go fonts (golang.org/x/image/font/gofont v0.45.0,
// ttfs/), covering Latin, Greek and Cyrillic. Licence: fonts/LICENSE.
var (
	//go:embed fonts/Go-Regular.ttf
	GoRegular []byte
	//go:embed fonts/Go-Bold.ttf
	GoBold []byte
	//go:embed fonts/Go-Mono.ttf
	GoMono []byte
)

// Sound effects: 16-bit mono PCM WAV at 44.1 kHz, a few tenths of a second
// each. Licence: sounds/LICENSE.
var (
	// Hit is a ball struck.
	//go:embed sounds/hit.wav
	Hit []byte
	// Dash is a player's dash.
	//go:embed sounds/dash.wav
	Dash []byte
	// Goal is a goal scored.
	//go:embed sounds/goal.wav
	Goal []byte
	// Join is a player joining.
	//go:embed sounds/join.wav
	Join []byte
)

package tandem

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tandem-go/tandem"

// layers lists the module's packages from the bottom up. A package may import
// packages of lower layers, and packages of its own layer that sit under it in
// the tree (net/transport/quic may import net/transport), nothing else of the
// module. A new top-level package must be added here, in its place.
var layers = []string{
	"clock",         // the injectable clock
	"store",         // durable world records: bbolt, PostgreSQL, leases
	"agones",        // Agones SDK client (REST) and its fake sidecar
	"assets",        // embedded images, fonts, sounds
	"ecs",           // world, schedule, core components, change journal
	"physics",       // cp bridge
	"net/wire",      // encoding
	"save",          // a world's durable records: schema, change tracking, committer
	"net/transport", // Transport interface, QUIC, in-memory, conditioner
	"net/conn",      // one peer's connection: numbered datagrams, acks, lanes
	"interp",        // interpolation for drawing
	"net/replicate", // codecs, journal → per-peer updates
	"net/predict",   // input ring, prediction, reconciliation
	"net/command",   // commands with receipts: the host's books, the client's outbox
	"net/session",   // host and client sessions
	"",              // the root: tandem, the facade a game is written against
	"tandemtest",    // a game's host and clients stepped together in a test
	"fleet",         // a host as an Agones game server
	"launch",        // a networked game's command line: flags, listener, dialer, save
	"netgraph",      // what a net graph shows of a session: lines and curves
	"demo",          // the game
}

const ebiten = "github.com/hajimehoshi/ebiten"

// layerOf returns the layer index and the layer's path of a module package
// path relative to the module root.
func layerOf(rel string) (int, string, bool) {
	best, bestPath := -1, ""
	for i, l := range layers {
		if l == "" {
			if rel == "" {
				return i, l, true
			}
			continue
		}
		if (rel == l || strings.HasPrefix(rel, l+"/")) && len(l) > len(bestPath) {
			best, bestPath = i, l
		}
	}
	return best, bestPath, best >= 0
}

// mayDraw reports whether a package may import Ebiten: only demo and its
// subpackages, except the simulation, which must run without a display.
func mayDraw(rel string) bool {
	if rel != "demo" && !strings.HasPrefix(rel, "demo/") {
		return false
	}
	return !strings.HasPrefix(rel, "demo/game")
}

// checkImport returns why package rel may not import package dep of the
// module, or "" if it may. Within one layer any import is allowed (the
// compiler forbids cycles).
func checkImport(rel, dep string) string {
	layer, layerPath, _ := layerOf(rel)
	depLayer, depLayerPath, ok := layerOf(dep)
	switch {
	case !ok:
		return "imports " + dep + ", which is in no layer"
	case depLayer <= layer:
		return ""
	}
	return "package " + rel + " (layer " + layerPath + ") imports " + dep + " (layer " + depLayerPath + "): a package imports only lower layers"
}

// forGoFiles calls fn with every .go file of the module (testdata and
// hidden directories left out) and its package's path from the root ("" for
// the root).
func forGoFiles(t *testing.T, fn func(path, rel string)) {
	t.Helper()
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
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel := filepath.ToSlash(filepath.Dir(path))
		if rel == "." {
			rel = ""
		}
		fn(path, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLayering(t *testing.T) {
	fset := token.NewFileSet()
	forGoFiles(t, func(path, rel string) {
		if _, _, ok := layerOf(rel); !ok {
			t.Errorf("%s: package %q is in no layer; add it to layers in layers_test.go", path, rel)
			return
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, ebiten) && !mayDraw(rel) {
				t.Errorf("%s imports %s: only demo/ (not its simulation) may import Ebiten", path, p)
			}
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			if err := checkImport(rel, dep); err != "" {
				t.Errorf("%s: %s", path, err)
			}
		}
	})
}

func TestLayerOf(t *testing.T) {
	cases := map[string]string{
		"net/transport/quic": "net/transport",
		"demo/game":          "demo",
		"ecs":                "ecs",
		"net/session":        "net/session",
	}
	for rel, want := range cases {
		if _, got, ok := layerOf(rel); !ok || got != want {
			t.Errorf("layerOf(%q) = %q, want %q", rel, got, want)
		}
	}
	if _, _, ok := layerOf("netx"); ok {
		t.Error("unknown package placed in a layer")
	}
	allowed := [][2]string{{"net/conn", "net/transport"}, {"net/transport/quic", "net/transport"}, {"net/transport/mem", "net/transport/condition"}, {"demo/game", "physics"}, {"physics", "ecs"}}
	for _, c := range allowed {
		if err := checkImport(c[0], c[1]); err != "" {
			t.Errorf("%s → %s refused: %s", c[0], c[1], err)
		}
	}
	refused := [][2]string{{"net/transport", "net/conn"}, {"ecs", "physics"}, {"net/wire", "net/replicate"}, {"interp", "net/session"}, {"ecs", "nowhere"}}
	for _, c := range refused {
		if err := checkImport(c[0], c[1]); err == "" {
			t.Errorf("%s → %s allowed, want refused", c[0], c[1])
		}
	}
	if !mayDraw("demo") || mayDraw("demo/game") || mayDraw("ecs") {
		t.Error("mayDraw rules wrong")
	}
}

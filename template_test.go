package tandem

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The demo is the template for a new game: copied into a module of its own,
// with its import path and its name (its save, its log lines) changed, gofmt run and
// this module replaced by its directory, it builds, vets and passes its own
// tests. The test copies demo/ into a
// temporary directory and does exactly that, without the network (the module
// cache already holds what this module needs).
func TestDemoIsATemplate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own: not in -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const newPath = "example.com/mygame"
	err = filepath.WalkDir("demo", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, path)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".go") {
			b = []byte(strings.ReplaceAll(string(b), module+"/demo", newPath+"/demo"))
		}
		if path == filepath.Join("demo", "saves.go") {
			// The game's own names: for its save and key files, and for
			// its player to see.
			for _, r := range []struct{ from, to string }{
				{`const appName = "tandem-demo"`, `const appName = "mygame"`},
				{`const title = "Tandem"`, `const title = "My Game"`},
			} {
				renamed := strings.Replace(string(b), r.from, r.to, 1)
				if renamed == string(b) {
					t.Errorf("demo/saves.go has no line %s for README's recipe to rename", r.from)
				}
				b = []byte(renamed)
			}
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// go.mod: this module's requirements, the module itself replaced by
	// its directory, as README's "Start your own game" sets it up.
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	gomod := strings.Replace(string(mod), "module "+module, "module "+newPath, 1) +
		"\nrequire " + module + " v0.0.0\n\nreplace " + module + " => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	gocmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in the copy: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// The import paths changed: gofmt orders them again.
	gocmd("fmt", "./...")
	gocmd("build", "./...")
	gocmd("vet", "./...")
	// The window package's tests open windows and start processes; the
	// rules and the networking are tested here.
	gocmd("test", "-count=1", "./demo/game", "./demo/netplay")
	// No import of the original demo is left.
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		if b, _ := os.ReadFile(path); strings.Contains(string(b), module+"/demo") {
			t.Errorf("%s still imports the original demo", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package launch

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
)

// ParseJoin reads what a player gave -join or typed into a game's join
// field: a join line or short code (ADDRESS/CODE, joincode.Parse), or the
// host's whole printed "join with" line (... -join ADDRESS -pin HEX),
// pasted.
func ParseJoin(s string) (joincode.Code, error) {
	if f := strings.Fields(s); len(f) > 1 {
		var addr, pin string
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "-join", "--join":
				addr = f[i+1]
			case "-pin", "--pin":
				pin = f[i+1]
			}
		}
		if addr != "" && pin != "" {
			if fp, err := hex.DecodeString(pin); err != nil || len(fp) != 32 {
				return joincode.Code{}, errors.New("the pin in that line is damaged: it should be 64 hex digits")
			}
			return joincode.New(addr, pin)
		}
	}
	return joincode.Parse(s)
}

// Command is how to start this program from the directory it was started
// in, for the "join with" line a host prints: "go run" with the package's
// directory when go run built it, else the program as it was invoked.
func Command() string {
	wd, _ := os.Getwd()
	return commandFrom(os.Args[0], wd, os.TempDir())
}

// commandFrom is Command for a program invoked as arg0 from directory wd,
// with go run's builds under tmp.
func commandFrom(arg0, wd, tmp string) string {
	exe, err := filepath.Abs(arg0)
	if err != nil || !strings.HasPrefix(exe, filepath.Join(tmp, "go-build")) {
		return arg0
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return arg0
	}
	if bi.Main.Path == "" {
		return "go run " + bi.Path
	}
	return "go run " + packageDir(bi.Path, bi.Main.Path, wd)
}

// packageDir returns the directory of package pkg of module mod relative to
// wd, as go run takes it ("./demo", "."); the import path when wd is not in
// the module.
func packageDir(pkg, mod, wd string) string {
	for dir := wd; ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			if modfile := string(b); strings.Contains(modfile, "module "+mod+"\n") || strings.HasPrefix(modfile, "module "+mod) {
				rel, err := filepath.Rel(wd, filepath.Join(dir, strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")))
				if err == nil {
					if rel == "." || strings.HasPrefix(rel, "..") {
						return filepath.ToSlash(rel)
					}
					return "./" + filepath.ToSlash(rel)
				}
			}
			return pkg
		}
		if filepath.Dir(dir) == dir {
			return pkg
		}
	}
}

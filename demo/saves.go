package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/store"
)

// The host's save: with -save FILE (a bbolt file, or a postgres:// URL) the
// world is saved there as it changes and restored from it at the next start;
// the host's identity (its certificate, the pin clients hold, and its
// stateless-reset key) is kept there too, so a restarted host is the same
// host to its players. -save '' keeps the world in memory only.

// saveWorld is the world's name in the save.
const saveWorld = "demo"

// saveFlag is -save: a path or URL, set or not.
type saveFlag struct {
	target string
	set    bool
}

func (s *saveFlag) String() string { return s.target }

func (s *saveFlag) Set(v string) error { s.target, s.set = v, true; return nil }

// appName names the directories the host keeps its save (the user's state
// directory) and reset key (the user's config directory) in, and begins
// every line the program logs. A game copied from the demo gives its own:
// one that keeps it restores the demo's world.
const appName = "tandem-demo"

// title is the game's name as the player sees it: the window's title, and in
// capitals on the start screen and the HUD. A copied game gives its own.
const title = "Tandem"

// banner is the title in capitals.
var banner = strings.ToUpper(title)

// savePath returns where the host saves: -save's target, or by default
// appName/world.db in the user's state directory (tandem.DefaultSavePath);
// "" keeps the world in memory.
func savePath(f saveFlag) (string, error) {
	if f.set {
		return f.target, nil
	}
	p, err := tandem.DefaultSavePath(appName)
	if err != nil {
		return "", fmt.Errorf("%v; give a file with -save, or -save '' to keep the world in memory", err)
	}
	return p, nil
}

// hostSave is the host's open save (nil: the world lives in memory).
type hostSave struct{ *tandem.SaveFile }

// openSave opens the save o names (nil when -save is empty) and loads the
// host's identity from it. It tells stderr where the world is saved.
func openSave(o options, stderr io.Writer) (*hostSave, error) {
	target, err := savePath(o.save)
	if err != nil || target == "" {
		if err == nil {
			fmt.Fprintln(stderr, appName+": the world lives in memory only (-save '')")
		}
		return nil, err
	}
	sf, err := tandem.OpenSave(context.Background(), target, saveWorld)
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("save %s is in use by another host; give another with -save", target)
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, appName+": saving the world to %s (-save FILE to choose, -save '' for none)\n", target)
	return &hostSave{sf}, nil
}

// configure points the host at the save and logs to stderr each restore,
// each failed save, and each save that knows another number of players than
// the one before.
func (s *hostSave) configure(hc *tandem.HostConfig, stderr io.Writer) {
	if s == nil {
		return
	}
	hc.Store = s.World
	hc.OnRestore = func(r tandem.RestoreReport) {
		fmt.Fprintf(stderr, appName+": %v\n", r)
	}
	players := -1
	hc.OnSave = func(r tandem.SavedReport) {
		if r.Players != players { // a line when who the save knows changes, not at every save
			players = r.Players
			people := "players"
			if r.Players == 1 {
				people = "player"
			}
			fmt.Fprintf(stderr, appName+": save %d (frame %d) holds %d %s\n", r.Seq, r.Frame, r.Players, people)
		}
	}
	hc.OnSaveError = saveFailed(stderr)
}

// saveFailed says on stderr that a save failed (the host retries).
func saveFailed(stderr io.Writer) func(error) {
	return func(err error) {
		fmt.Fprintln(stderr, appName+": save failed (the world goes on; retrying):", err)
	}
}

// identity is the host's kept identity, nil without a save.
func (s *hostSave) identity() *quicnet.Identity {
	if s == nil {
		return nil
	}
	return &s.Identity
}

// Close closes the store, after the host's Close.
func (s *hostSave) Close() error {
	if s == nil {
		return nil
	}
	return s.SaveFile.Close()
}

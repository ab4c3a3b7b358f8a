package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/save"
	"github.com/tandem-go/tandem/store"
)

// HostConfig returns the host's settings the flags give: MaxPeers (the
// -max-players people, less the host's own player when it plays: with
// -max-players 1 it plays alone, every player refused as the match being
// full), MaxPeersPerAddress, Grace (-grace 0: no resumes), SaveEvery and, with
// -check-writes, Replication.CheckReports; Replication.OnUnreported,
// which says on stderr what the host's audit finds (a write without a
// report, sent when found); Name when the host's own player plays
// (plays); and, when the host plays alone by the flags (-max-players 1),
// Admit, which refuses every player as the match being full (a game that
// sets its own Admit then keeps that refusal by calling this one first).
// A game adds its own: Spectators (none by default,
// so -spectate is refused until the game takes some), a save
// (Save.Configure).
func (f *Flags) HostConfig(plays bool) tandem.HostConfig {
	hc := tandem.HostConfig{MaxPeers: f.MaxPlayers, MaxPeersPerAddress: f.PerAddress, Grace: f.Grace, SaveEvery: f.SaveEvery}
	if f.Grace <= 0 {
		hc.Grace = -1 // -grace 0, or the game's default of none
	}
	if plays {
		hc.Name = f.Name
		hc.MaxPeers = f.MaxPlayers - 1 // the host's own player is one of them
		if hc.MaxPeers < 1 {
			// Alone by the flags: MaxPeers 0 would be the engine's default.
			hc.MaxPeers = 1
			hc.Admit = func(a session.Arrival) error {
				if a.Spectator {
					return nil
				}
				return errors.New("host full (-max-players 1: the host plays alone); try again later")
			}
		}
	}
	hc.Replication.CheckReports = f.CheckWrites
	hc.Replication.OnUnreported = logUnreported(f.App, os.Stderr)
	return hc
}

// logUnreported says on stderr what the host's audit found: each
// component's first write without a report, then its count at each power
// of ten.
func logUnreported(app string, stderr io.Writer) func(*replicate.UnreportedError) {
	counts := map[string]int{}
	return func(e *replicate.UnreportedError) {
		counts[e.Component]++
		n := counts[e.Component]
		for n%10 == 0 {
			n /= 10
		}
		if n != 1 {
			return
		}
		if counts[e.Component] == 1 {
			fmt.Fprintf(stderr, "%s: a bug in the game: %v (run the host with -check-writes to stop at the first)\n", app, e)
			return
		}
		fmt.Fprintf(stderr, "%s: %d writes of %s without a report found and sent so far\n", app, counts[e.Component], e.Component)
	}
}

// SavePath returns where the host saves: -save's file or URL when given
// (an empty one keeps the world in memory; "env:NAME", the one environment
// variable NAME holds, which keeps a database password out of the command
// line), else App/world.db in the user's state directory
// (tandem.DefaultSavePath).
func (f *Flags) SavePath() (string, error) {
	if name, ok := strings.CutPrefix(f.Save, "env:"); ok {
		// A target kept out of the command line (and the process list): a
		// database URL with its password, from a secret.
		target, set := os.LookupEnv(name)
		if !set || target == "" {
			return "", fmt.Errorf("-save %s: the environment variable %s is not set or empty: set it to a file or a postgres:// URL, or give -save another", f.Save, name)
		}
		return target, nil
	}
	if f.Save != "" || f.Given("save") {
		return f.Save, nil
	}
	p, err := tandem.DefaultSavePath(f.App)
	if err != nil {
		return "", fmt.Errorf("%v; give a file with -save, or -save '' to keep the world in memory", err)
	}
	return p, nil
}

// Save is a host's open save, holding the world called by OpenSave's name
// and the host's identity. A nil *Save is a world in memory: its methods do
// nothing.
type Save struct {
	*tandem.SaveFile
	app string
}

// OpenSave opens the save SavePath names for the world called world (nil,
// with no error, for a world in memory) and loads the host's identity kept
// there. It says on stderr where the world is saved. Close it after the
// host's Close.
func (f *Flags) OpenSave(world string, stderr io.Writer) (*Save, error) {
	target, err := f.SavePath()
	if err != nil || target == "" {
		if err == nil {
			fmt.Fprintf(stderr, "%s: the world lives in memory only (-save '')\n", f.App)
		}
		return nil, err
	}
	sf, err := tandem.OpenSave(context.Background(), target, world)
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("save %s is in use by another host; give another with -save", store.Describe(target))
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "%s: saving the world to %s (-save FILE to choose, -save '' for none)\n", f.App, store.Describe(target))
	return &Save{SaveFile: sf, app: f.App}, nil
}

// Configure points the host's settings at the save, and logs to stderr each
// restore, each failed save (the same failure again in a row only at its
// 10th, 100th, ... time), the first save that lands after failures, and each
// save that knows another number of players than the one before. Hooks the
// game set before (OnRestore, OnSave, OnSaveError) are called too, after
// the line logged.
func (s *Save) Configure(hc *tandem.HostConfig, stderr io.Writer) {
	if s == nil {
		return
	}
	hc.Store = s.World
	gameRestore, gameSave, gameError := hc.OnRestore, hc.OnSave, hc.OnSaveError
	hc.OnRestore = func(r tandem.RestoreReport) {
		fmt.Fprintf(stderr, "%s: %v\n", s.app, r)
		if gameRestore != nil {
			gameRestore(r)
		}
	}
	log := &saveLog{app: s.app, w: stderr}
	hc.OnSaveError = func(err error) {
		log.failed(err)
		if gameError != nil {
			gameError(err)
		}
	}
	players := -1
	hc.OnSave = func(r tandem.SavedReport) {
		if gameSave != nil {
			defer gameSave(r)
		}
		log.saved(r)
		if r.Players == players {
			return // a line when who the save knows changes, not at every save
		}
		players = r.Players
		fmt.Fprintf(stderr, "%s: save %d (frame %d) holds %d %s\n", s.app, r.Seq, r.Frame, r.Players, plural(r.Players, "player", "players"))
	}
}

// saveLog says on stderr that saves fail (the host retries them): each
// failure in full the first time, the same failure again (among the
// failures since the last save that landed) only at its 10th, 100th, ...
// time, and the first save that lands after failures.
type saveLog struct {
	app   string
	w     io.Writer
	n     int            // failures since the last save that landed
	seen  map[string]int // of them, how many of each (at most maxSaveErrors kinds)
	other int            // those past maxSaveErrors kinds, counted together
}

// maxSaveErrors bounds the failures a saveLog tells apart: past it, a new
// one is said at its first time only while counting.
const maxSaveErrors = 16

func (l *saveLog) failed(err error) {
	l.n++
	msg := err.Error()
	if l.seen == nil {
		l.seen = map[string]int{}
	}
	k, known := l.seen[msg]
	switch {
	case known:
		k++
		l.seen[msg] = k
	case len(l.seen) < maxSaveErrors:
		l.seen[msg] = 1
		fmt.Fprintf(l.w, "%s: save failed (the world goes on; retrying): %v\n", l.app, err)
		return
	default:
		l.other++
		k = l.other
	}
	for k%10 == 0 {
		k /= 10
	}
	if k == 1 && known {
		fmt.Fprintf(l.w, "%s: save failed %d times since the last save that landed, the same way (the world goes on; retrying): %v\n", l.app, l.seen[msg], err)
	} else if k == 1 {
		fmt.Fprintf(l.w, "%s: save failed (the world goes on; retrying): %v\n", l.app, err)
	}
}

func (l *saveLog) saved(r tandem.SavedReport) {
	if l.n > 0 {
		fmt.Fprintf(l.w, "%s: saved again (save %d, frame %d) after %d failed %s\n", l.app, r.Seq, r.Frame, l.n, plural(l.n, "try", "tries"))
	}
	l.n, l.other = 0, 0
	clear(l.seen)
}

// plural returns one for n == 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Identity is the host's identity kept in the save, for Listen; nil for a
// world in memory.
func (s *Save) Identity() *quicnet.Identity {
	if s == nil {
		return nil
	}
	return &s.SaveFile.Identity
}

// Explain adds to an error of tandem.NewHost what a player does about it
// when the save was made by another version of the game (save.ErrMismatch):
// the error stays as it was otherwise.
func (s *Save) Explain(err error) error {
	if s == nil || !errors.Is(err, save.ErrMismatch) {
		return err
	}
	return fmt.Errorf("%w; the save %s was made by another version of this game: start with -save '' (or another file) to play without it, or remove the file to begin again (it holds the host's certificate too: the join line changes)", err, store.Describe(s.Target))
}

// Close closes the store: call it after the host's Close, which saves last.
func (s *Save) Close() error {
	if s == nil {
		return nil
	}
	return s.SaveFile.Close()
}

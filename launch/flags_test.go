package launch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
)

// newFlagSet is a quiet flag set for a test.
func newFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("mygame", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse registers a game's flags, parses args and checks them, as a
// game's main does.
func parse(args []string, later bool) (*Flags, error) {
	f := &Flags{App: "mygame", Fleet: true}
	fs := flag.NewFlagSet("mygame", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	f.ChooseLater = later
	return f, f.Check(fs)
}

// Every flag has its help and its default; each refusal names what to
// change.
func TestCheck(t *testing.T) {
	f := &Flags{App: "mygame", Fleet: true}
	fs := flag.NewFlagSet("mygame", flag.ContinueOnError)
	var usage bytes.Buffer
	fs.SetOutput(&usage)
	f.Register(fs)
	fs.PrintDefaults()
	for _, name := range []string{"host", "join", "addr", "pin", "name", "spectate", "ticket", "max-players", "per-address", "grace", "idle-timeout", "lag", "jitter", "loss", "reset-key", "save", "save-every", "agones", "empty-for", "check-writes"} {
		if !strings.Contains(usage.String(), "-"+name+" ") && !strings.Contains(usage.String(), "-"+name+"\n") {
			t.Errorf("the usage does not document -%s:\n%s", name, usage.String())
		}
	}
	if !strings.Contains(usage.String(), "mygame/world.db") {
		t.Errorf("-save's default does not name the game's directory:\n%s", usage.String())
	}
	d, err := parse(nil, false)
	if err != nil || d.Addr != ":4242" || d.Name != "player" || d.MaxPlayers != 8 || d.Grace != 30*time.Second || d.SaveEvery != 5*time.Second || d.Networked() || d.Conditioned() {
		t.Fatalf("defaults: %+v, %v", d, err)
	}
	for args, says := range map[string]string{
		"-host -join 127.0.0.1:4242":                    "exclude each other",
		"-host -max-players 0":                          "at least 1",
		"-max-players 12":                               "use it with -host",
		"-per-address 8":                                "use it with -host",
		"-host -per-address -1":                         "at least 0",
		"-pin ab":                                       "use it with -join",
		"-ticket t.txt":                                 "use it with -join",
		"-join 127.0.0.1:4242 -reset-key k":             "the host's",
		"-join 127.0.0.1:4242 -save-every 1s":           "the host's",
		"-host -save-every 0s":                          "must be positive",
		"-agones":                                       "use it with -host",
		"-host -empty-for 1m":                           "use it with -host -agones",
		"-host -agones -empty-for -1s":                  "not negative",
		"-join 127.0.0.1:4242 -pin abcd":                "-join with -pin: the host's fingerprint is damaged",
		"-join 127.0.0.1":                               "-join: \"127.0.0.1\" is not an address",
		"-join 127.0.0.1:4242 -check-writes":            "-check-writes is the host's",
		"-spectate":                                     "use it with -join",
		"-join 127.0.0.1:4242 -grace 5s":                "use it with -host",
		"-idle-timeout 1s":                              "use it with -host or -join",
		"-host -grace -1s":                              "must not be negative",
		"-host -idle-timeout 1ms":                       "give 1s or more",
		"-join 127.0.0.1:4242 -addr :5000":              "-addr is the host's",
		"-lag 100ms":                                    "use them with -host or -join",
		"-host -lag -5ms":                               "must not be negative",
		"-host -loss 2":                                 "between 0 and 1",
		"-host -loss x%":                                "a percentage",
		"-host -name ann\u0007":                         "-name",
		"-join 192.168.1.20:4242/KKKKK":                 "-join: the code has 5 characters",
		"-join 10.0.0.2:4242/" + strings.Repeat("0", 4): "-join:",
	} {
		if _, err := parse(strings.Fields(args), false); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want a refusal saying %q", args, err, says)
		}
	}
	if _, err := parse([]string{"-join", " "}, false); err == nil || !strings.Contains(err.Error(), "needs the host's join line") {
		t.Errorf("a blank -join: %v", err)
	}
	// A game that does not serve in a fleet has no fleet flags.
	nofleet := &Flags{App: "mygame"}
	nfs := flag.NewFlagSet("mygame", flag.ContinueOnError)
	nfs.SetOutput(io.Discard)
	nofleet.Register(nfs)
	if nfs.Lookup("agones") != nil || nfs.Lookup("empty-for") != nil || nfs.Lookup("check-writes") == nil {
		t.Error("without Fleet, -agones and -empty-for are registered (or -check-writes is not)")
	}
	var unnamed Flags
	ufs := flag.NewFlagSet("x", flag.ContinueOnError)
	unnamed.Register(ufs)
	if err := unnamed.Check(ufs); err == nil || !strings.Contains(err.Error(), "Flags.App") {
		t.Errorf("flags of a game without a name: %v", err)
	}
	// A game that chooses its mode later (a start screen) keeps the
	// network's flags for then.
	for _, args := range []string{"-grace 5s", "-idle-timeout 1s", "-lag 100ms -loss 5%"} {
		if _, err := parse(strings.Fields(args), true); err != nil {
			t.Errorf("%q before a start screen: %v", args, err)
		}
	}
	c, err := parse([]string{"-join", "127.0.0.1:4242", "-lag", "150ms", "-jitter", "30ms", "-loss", "5%"}, false)
	if err != nil || c.Loss != 0.05 {
		t.Fatalf("-loss 5%%: %+v, %v", c, err)
	}
	if cc := c.Conditions(); cc.Latency != 75*time.Millisecond || cc.Jitter != 15*time.Millisecond || cc.Loss != 0.05 {
		t.Fatalf("-lag 150ms -jitter 30ms -loss 5%%: each way %+v, want 75ms ± 15ms and 5%%", cc)
	}
	if cfg := c.QUIC(); cfg.WrapPacketConn == nil || !cfg.InsecureSkipVerify {
		t.Fatalf("a conditioned client without a pin: %+v; want the conditioner, and no authentication", cfg)
	}
}

// -join takes the host's join line and its short code as they are, and the
// host's printed "join with" line pasted whole: each pins the host (its
// whole fingerprint, or the short code's check), never skipping
// verification. -pin beside a join line, and a damaged line, are refused
// with what is wrong.
func TestJoinLines(t *testing.T) {
	sum := sha256.Sum256([]byte("a host's certificate"))
	fp := hex.EncodeToString(sum[:])
	full, short, err := joincode.Lines("192.168.1.20:4242", fp)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{full, short, "join with: go run ./mygame -join 192.168.1.20:4242 -pin " + fp} {
		f, err := parse([]string{"-join", line}, false)
		if err != nil || f.Join != "192.168.1.20:4242" || f.Code == nil {
			t.Fatalf("-join %q: %+v, %v", line, f, err)
		}
		cfg := f.QUIC()
		pinned := cfg.Fingerprint == fp && cfg.CheckFingerprint == nil
		if !f.Code.Full() {
			pinned = cfg.Fingerprint == "" && cfg.CheckFingerprint != nil && cfg.CheckFingerprint(sum) == nil
		}
		if !pinned || cfg.InsecureSkipVerify {
			t.Fatalf("-join %q dials with %+v: want the host pinned", line, cfg)
		}
	}
	if _, err := parse([]string{"-join", full, "-pin", fp}, false); err == nil || !strings.Contains(err.Error(), "leave out -pin") {
		t.Fatalf("-join with a join line and -pin: %v, want refused", err)
	}
	for line, says := range map[string]string{
		"join with: mygame -join 10.0.0.2:4242 -pin zz":         "the pin in that line is damaged",
		"join with: mygame -join 10.0.0.2 -pin " + fp:           "\"10.0.0.2\" is not an address",
		"join with: mygame -join 10.0.0.2:4242 (no pin at all)": "a join line is the host's address, a slash",
	} {
		if _, err := ParseJoin(line); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseJoin(%q): %v, want %q", line, err, says)
		}
	}
	var f Flags
	f.Host = true
	jc, _ := ParseJoin(short)
	f.JoinWith(jc)
	if f.Host || f.Join != "192.168.1.20:4242" || f.Code == nil || !f.Networked() {
		t.Fatalf("JoinWith: %+v", f)
	}
}

// The host's settings: -grace 0 is no resumes, the host's own name only
// when it plays, and a fleet's world is saved to its store once an
// allocation names it.
func TestHostConfig(t *testing.T) {
	f, err := parse([]string{"-host", "-max-players", "12", "-per-address", "64", "-grace", "0s", "-save-every", "2s", "-name", "ann", "-check-writes"}, false)
	if err != nil {
		t.Fatal(err)
	}
	hc := f.HostConfig(true)
	if hc.MaxPeers != 11 || hc.MaxPeersPerAddress != 64 || hc.Grace >= 0 || hc.SaveEvery != 2*time.Second || hc.Name != "ann" || !hc.Replication.CheckReports {
		t.Fatalf("host settings %+v; want 12 people (11 beside the host's ann), 64 from one address, no resumes, a save every 2 s, ann playing, writes checked", hc)
	}
	if hc := f.HostConfig(false); hc.Name != "" || hc.MaxPeers != 12 {
		t.Fatalf("a host that does not play: its own player %q, %d player slots; want none and 12", hc.Name, hc.MaxPeers)
	}
	// -max-players 1 with the host playing: it plays alone; spectators
	// may still watch.
	alone, err := parse([]string{"-host", "-max-players", "1"}, false)
	if err != nil {
		t.Fatal(err)
	}
	hc = alone.HostConfig(true)
	if hc.Admit == nil || hc.Admit(session.Arrival{Name: "bob"}) == nil || hc.Admit(session.Arrival{Name: "eve", Spectator: true}) != nil {
		t.Fatal("-max-players 1 with the host playing: want every player refused, spectators let in")
	}
	// A game whose host keeps no one by default; -grace still sets one.
	for args, want := range map[string]time.Duration{"-host": -1, "-host -grace 5s": 5 * time.Second} {
		g := &Flags{App: "mygame", Grace: -1}
		fs := flag.NewFlagSet("mygame", flag.ContinueOnError)
		g.Register(fs)
		if err := fs.Parse(strings.Fields(args)); err != nil {
			t.Fatal(err)
		}
		if err := g.Check(fs); err != nil || g.HostConfig(false).Grace != want {
			t.Errorf("%q with no grace by default: %v, grace %v; want %v", args, err, g.HostConfig(false).Grace, want)
		}
	}
	in := f.fleetHostConfig("worlds.db", "", io.Discard)
	if in.SaveTo != "" || in.MaxPeers != 12 {
		t.Errorf("a fleet's world before an allocation: %+v; want it in memory, 12 people", in)
	}
	at := f.fleetHostConfig("worlds.db", "arena-3", io.Discard)
	if at.SaveTo != "worlds.db" || at.World != "arena-3" || at.OnSaveError == nil || at.MaxPeers != 12 {
		t.Errorf("a fleet's world: %+v; want it saved to its store, 12 people", at)
	}
	if mem := f.fleetHostConfig("", "arena-3", io.Discard); mem.SaveTo != "" {
		t.Errorf("a fleet without -save: %+v; want the world in memory", mem)
	}
}

// The join line's command works from where the program was started: the
// binary as invoked, or go run with the package's directory seen from there.
func TestCommand(t *testing.T) {
	if got := commandFrom("./mygame", "/home/ann", os.TempDir()); got != "./mygame" {
		t.Errorf("a built binary: %q, want ./mygame", got)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/mygame\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ wd, want string }{
		{root, "./demo"},
		{filepath.Join(root, "demo"), "."},
		{filepath.Join(root, "docs"), "../demo"},
		{t.TempDir(), "example.com/mygame/demo"},
	} {
		if got := packageDir("example.com/mygame/demo", "example.com/mygame", c.wd); got != c.want {
			t.Errorf("from %s: %q, want %q", c.wd, got, c.want)
		}
	}
}

// The host's audit findings are logged: each component's first in full,
// then its count at each power of ten.
func TestLogUnreported(t *testing.T) {
	var b strings.Builder
	log := logUnreported("mygame", &b)
	for range 120 {
		log(&replicate.UnreportedError{Component: "Transform", ID: 7, Audit: true})
	}
	log(&replicate.UnreportedError{Component: "Score", ID: 9, Audit: true})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("logged %d lines, want the first Transform, 10, 100 and the first Score:\n%s", len(lines), b.String())
	}
	for i, want := range []string{"mygame: a bug in the game: replicate: component Transform of networked entity 7", "mygame: 10 writes of Transform", "mygame: 100 writes of Transform", "component Score of networked entity 9"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d: %q, want it to hold %q", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[0], "-check-writes") || !strings.Contains(lines[0], "MutateComponent") {
		t.Errorf("the first line does not say what to do: %q", lines[0])
	}
	if hc := (&Flags{App: "mygame"}).HostConfig(false); hc.Replication.OnUnreported == nil {
		t.Error("the host's settings do not log the audit's findings")
	}
}

// Failed saves are said without flooding the log: a failure in full, the
// same one again in a row only at its 10th, 100th, ... time, another one in
// full, and the save that lands after them.
func TestSaveLog(t *testing.T) {
	var b strings.Builder
	l := &saveLog{app: "mygame", w: &b}
	full := errors.New("store: disk full")
	for range 25 {
		l.failed(full)
	}
	l.failed(errors.New("store: lease lost"))
	l.saved(tandem.SavedReport{Seq: 9, Frame: 600})
	l.failed(full)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"mygame: save failed (the world goes on; retrying): store: disk full",
		"mygame: save failed 10 times since the last save that landed, the same way",
		"mygame: save failed (the world goes on; retrying): store: lease lost",
		"mygame: saved again (save 9, frame 600) after 26 failed tries",
		"mygame: save failed (the world goes on; retrying): store: disk full",
	}
	if len(lines) != len(want) {
		t.Fatalf("logged %d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d: %q, want %q", i, lines[i], want[i])
		}
	}

	// Two failures in turn are each said once, then at their 10th time.
	b.Reset()
	l = &saveLog{app: "mygame", w: &b}
	lost := errors.New("store: lease lost")
	for range 10 {
		l.failed(full)
		l.failed(lost)
	}
	if got := strings.Count(b.String(), "\n"); got != 4 {
		t.Errorf("two failures in turn, ten times each: %d lines, want 4:\n%s", got, b.String())
	}
}

package launch

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
	"github.com/tandem-go/tandem/net/wire"
)

// Flags are a networked game's command line. Set App (and any default the
// game wants other than Register's) before Register; read the fields after
// Check. A Flags is not safe for concurrent use; copy it freely once
// checked.
type Flags struct {
	// App names the directories the save (the user's state directory) and
	// the reset key (the user's config directory) are kept in by default,
	// and begins every line logged: "mygame". Required.
	App string
	// ChooseLater says the game picks hosting or joining after it starts
	// (a start screen): -grace, -idle-timeout, -addr and the link
	// conditioner's flags given without -host or -join are kept for then
	// rather than refused (the save's and the host's other flags still
	// need -host). Set it between parsing and Check.
	ChooseLater bool
	// Fleet registers -agones and -empty-for too, for a game that serves
	// as an Agones game server (ServeFleet). Set it before Register.
	Fleet bool

	Host     bool           // -host: host a match (HostConfig says whether its own player plays)
	Join     string         // -join: after Check, the host's address
	Code     *joincode.Code // the join line or short code -join gave, nil for a bare address
	Addr     string         // -addr: the host's UDP address (default ":4242")
	Pin      string         // -pin: the host's certificate fingerprint, hex SHA-256
	Name     string         // -name: the player's name (default "player")
	Spectate bool           // -spectate: join to watch, not to play
	Ticket   string         // -ticket: the file a client keeps its player's ticket in (tandem.ClientConfig.TicketFile)

	MaxPlayers  int           // -max-players: the most people in the match, the host's own player included (default 8)
	PerAddress  int           // -per-address: players from one IP address (0: the engine's)
	Grace       time.Duration // -grace: how long a broken player is kept (default 30 s; 0: none; a negative default: none)
	IdleTimeout time.Duration // -idle-timeout: a silent connection's end (0: the transport's)

	Lag    time.Duration // -lag: added round trip, half each way
	Jitter time.Duration // -jitter: ± variation of each packet's delay, half each way
	Loss   Fraction      // -loss: packets lost each way

	ResetKey  string        // -reset-key: the host's stateless-reset key file
	Save      string        // -save: a bbolt file or a postgres:// URL; see SavePath
	SaveEvery time.Duration // -save-every: the host's save interval (default 5 s)
	Agones    bool          // -agones: a game server of an Agones fleet
	EmptyFor  time.Duration // -empty-for: with -agones, end an allocated world nobody played in for this long

	CheckWrites bool // -check-writes: the host checks every step that each write was reported (development)

	given map[string]bool
	log   *slog.Logger // the engine's notices (Log); nil: Log(App, os.Stderr)
}

// Fraction is a share of packets, written 0.05 or 5% on the command line.
type Fraction float64

// String returns f as a decimal fraction.
func (f *Fraction) String() string { return strconv.FormatFloat(float64(*f), 'g', -1, 64) }

// Set reads a fraction (0.05) or a percentage (5%) between 0 and 1.
func (f *Fraction) Set(s string) error {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return errors.New("write a fraction (0.05) or a percentage (5%)")
	}
	if pct {
		v /= 100
	}
	if !(v >= 0 && v <= 1) {
		return errors.New("loss must be between 0 and 1 (0% and 100%)")
	}
	*f = Fraction(v)
	return nil
}

// Register defines the flags on fs (-agones and -empty-for only with
// Fleet), with f's fields as their defaults; those left zero take Addr
// ":4242", Name "player", MaxPlayers 8, Grace 30 s and SaveEvery 5 s. A
// game whose host keeps no one by default sets Grace negative.
func (f *Flags) Register(fs *flag.FlagSet) {
	if f.Addr == "" {
		f.Addr = ":4242"
	}
	if f.Name == "" {
		f.Name = "player"
	}
	if f.MaxPlayers == 0 {
		f.MaxPlayers = 8
	}
	if f.Grace == 0 {
		f.Grace = 30 * time.Second
	}
	if f.SaveEvery == 0 {
		f.SaveEvery = 5 * time.Second
	}
	fs.BoolVar(&f.Host, "host", f.Host, "host a networked game; others join with the line it prints")
	fs.StringVar(&f.Join, "join", f.Join, "join the game the host's join line names: `HOST:PORT/CODE` (the full line, or the short code it reads out), or HOST:PORT with -pin")
	fs.StringVar(&f.Addr, "addr", f.Addr, "with -host: the UDP `address` to listen on (port 0 picks a free one)")
	fs.StringVar(&f.Pin, "pin", f.Pin, "with -join: the host's certificate `fingerprint` (hex SHA-256) from its join line; without it the host is not authenticated")
	fs.StringVar(&f.Name, "name", f.Name, "your player's `name`, shown to the host")
	fs.BoolVar(&f.Spectate, "spectate", f.Spectate, "with -join: watch the game without playing in it (a host that takes spectators: tandem.HostConfig.Spectators)")
	fs.StringVar(&f.Ticket, "ticket", f.Ticket, "with -join: keep the player's ticket in `FILE` (mode 0600), so that the game started again after a crash takes the player's place back while the host keeps it; quitting removes it (tandem.ClientConfig.TicketFile)")
	fs.IntVar(&f.MaxPlayers, "max-players", f.MaxPlayers, "with -host: the most people in the match, the host's own player included")
	fs.IntVar(&f.PerAddress, "per-address", f.PerAddress, "with -host: the most players and spectators from one IP address (0: the engine's 4); raise it to load a host with clients from one machine")
	fs.DurationVar(&f.Grace, "grace", f.Grace, "with -host: how long a player whose connection broke is kept for its client to come back on a new connection; 0 turns that off")
	fs.DurationVar(&f.IdleTimeout, "idle-timeout", f.IdleTimeout, "networked: end a connection that brought nothing for this long (default 10s, at least 1s); a client whose connection ends so reconnects to the host by itself")
	fs.DurationVar(&f.Lag, "lag", f.Lag, "networked: add this much round-trip `delay`, half each way, on this machine's socket")
	fs.DurationVar(&f.Jitter, "jitter", f.Jitter, "networked: vary each packet's delay by up to ± this `duration` (half each way)")
	fs.Var(&f.Loss, "loss", "networked: lose this `fraction` of packets each way, e.g. 0.05 or 5%")
	fs.StringVar(&f.ResetKey, "reset-key", f.ResetKey, "with -host: the `file` of the host's stateless-reset key (made on first run, mode 0600), so that the clients of a host restarted on the same address learn at once that it is gone (default: the one kept in the save, or without one "+f.App+"/reset-key in the user's config directory)")
	fs.StringVar(&f.Save, "save", f.Save, "with -host: save the world to `FILE` (bbolt, or a postgres:// URL; env:NAME reads it from the environment variable NAME, out of the process list) and restore it from there at the next start, with the host's certificate and reset key; '' keeps the world in memory only (default: "+f.App+"/world.db in the user's state directory)")
	fs.DurationVar(&f.SaveEvery, "save-every", f.SaveEvery, "with -host and a save: how often the host saves what changed (a command's change is saved at the end of its frame in any case)")
	fs.BoolVar(&f.CheckWrites, "check-writes", f.CheckWrites, "with -host: check at every step that each write of a replicated or saved component was reported (ecs.MutateComponent), and that each codec gives back what it was given; one that was not stops the host with a panic naming the component and the system that wrote it. It reads the whole world after every system: for development")
	if !f.Fleet {
		return
	}
	fs.DurationVar(&f.EmptyFor, "empty-for", f.EmptyFor, "with -agones: end an allocated world nobody has played in for this long, from its start (its final save, then Shutdown, so a warm server takes the pod's place); 0 keeps it until Agones stops it")
	fs.BoolVar(&f.Agones, "agones", f.Agones, "with -host: run as a game server of an Agones fleet, headless (the SDK server's port from AGONES_SDK_HTTP_PORT, default 9358); the world an allocation names (fleet.WorldKey) is loaded from -save, best a postgres:// URL")
}

// Networked reports whether the command line hosts or joins.
func (f *Flags) Networked() bool { return f.Host || f.Join != "" }

// Conditioned reports whether -lag, -jitter or -loss is on.
func (f *Flags) Conditioned() bool { return f.Lag > 0 || f.Jitter > 0 || f.Loss > 0 }

// Given reports whether the command line Check read gave the flag name
// ("save", not "-save").
func (f *Flags) Given(name string) bool { return f.given[name] }

// Check validates the flags fs parsed, once fs.Parse has run: each refusal
// names the flags to change. It reads -join's join line, short code or
// pasted "join with" line into Join (the address) and Code.
func (f *Flags) Check(fs *flag.FlagSet) error {
	f.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	given, later := f.Given, f.ChooseLater
	switch {
	case f.App == "":
		return errors.New("launch: Flags.App is empty: set it to the game's name before Register (it names the save's directory and begins every line logged)")
	case f.Host && f.Join != "":
		return errors.New("-host and -join exclude each other: host a game or join one")
	case given("join") && strings.TrimSpace(f.Join) == "":
		return errors.New("-join needs the host's join line (HOST:PORT/CODE) or its address with -pin; it was empty or blank")
	case f.MaxPlayers < 1:
		return errors.New("-max-players must be at least 1")
	case !f.Host && given("max-players"):
		return errors.New("-max-players is the host's: use it with -host")
	case !f.Host && given("per-address"), f.PerAddress < 0:
		return errors.New("-per-address is the host's, and at least 0: use it with -host")
	case f.Join == "" && given("pin"):
		return errors.New("-pin is for a client: use it with -join")
	case !f.Host && (given("reset-key") || given("save") || given("save-every")):
		return errors.New("-reset-key, -save and -save-every are the host's: use them with -host")
	case f.SaveEvery <= 0:
		return errors.New("-save-every must be positive")
	case f.Agones && !f.Host:
		return errors.New("-agones runs a host: use it with -host")
	case !f.Host && f.CheckWrites:
		return errors.New("-check-writes is the host's: use it with -host")
	case !f.Agones && given("empty-for"), f.EmptyFor < 0:
		return errors.New("-empty-for is a fleet's game server's, and not negative: use it with -host -agones")
	case f.Join == "" && f.Spectate:
		return errors.New("-spectate is for a client: use it with -join")
	case f.Join == "" && !later && given("ticket"):
		return errors.New("-ticket is for a client: use it with -join")
	case !f.Host && !later && given("grace"):
		return errors.New("-grace is the host's: use it with -host")
	case !f.Networked() && !later && given("idle-timeout"):
		return errors.New("-idle-timeout is for a networked game: use it with -host or -join")
	case given("grace") && f.Grace < 0, f.IdleTimeout < 0:
		return errors.New("-grace and -idle-timeout must not be negative")
	case f.IdleTimeout > 0 && f.IdleTimeout < time.Second:
		return fmt.Errorf("-idle-timeout %v would end connections at every hiccup of the network (and ping many times a second): give 1s or more", f.IdleTimeout)
	case f.Join != "" && given("addr"):
		return errors.New("-addr is the host's: a client dials the address in -join")
	case !f.Networked() && !later && (f.Conditioned() || given("addr")):
		return errors.New("-lag, -jitter, -loss and -addr condition the network: use them with -host or -join")
	case f.Lag < 0 || f.Jitter < 0:
		return errors.New("-lag and -jitter must not be negative")
	}
	if err := wire.CheckName(f.Name); err != nil {
		// The player reads what is wrong with the name, not the package's
		// prefix.
		return fmt.Errorf("-name: %s", strings.TrimPrefix(err.Error(), wire.ErrBadName.Error()+": "))
	}
	switch {
	case strings.Contains(f.Join, "/") || strings.Contains(f.Join, " "):
		jc, err := ParseJoin(f.Join)
		switch {
		case err != nil:
			return fmt.Errorf("-join: %w", err)
		case given("pin"):
			return errors.New("-join's join line holds the pin already: leave out -pin")
		}
		f.JoinWith(jc)
	case f.Join != "" && f.Pin != "":
		// An address and its pin given apart: checked as a join line is.
		jc, err := joincode.New(f.Join, f.Pin)
		if err != nil {
			return fmt.Errorf("-join with -pin: %w", err)
		}
		f.JoinWith(jc)
	case f.Join != "":
		if _, err := joincode.New(f.Join, strings.Repeat("0", 64)); err != nil {
			return fmt.Errorf("-join: %w", err)
		}
	}
	return nil
}

// JoinWith makes f join the host jc names, pinned by it: for a game that
// reads a join line after starting (a start screen's field, ParseJoin).
func (f *Flags) JoinWith(jc joincode.Code) {
	f.Host = false
	f.Join, f.Code = jc.Addr(), &jc
}

// Command demo is Tandem's demo game and the template for a new one: a
// top-down arena where discs driven by the keyboard push crates and a ball
// into goals, alone or with up to eight people over the network.
//
//	go run ./demo                        the start screen: alone, host or join
//	go run ./demo -alone                 play alone against bots at once
//	go run ./demo -host                  host a game and play in it
//	go run ./demo -join HOST:PORT/CODE   join a hosted game with its join line
//	go run ./demo -host -headless        a host with no window, bots playing
//	go run ./demo -join HOST:PORT/CODE -spectate  watch a hosted game
//	demo -host -agones -save postgres://…  a game server of an Agones fleet
//
// Its files read as a template: main.go (flags and modes), net.go (the QUIC
// transport, the link conditioner, the join line and short code a host
// shows and a friend joins with, made and read by package
// net/transport/quicnet/joincode), match.go (what the
// window and the headless loops drive: a local match, a hosted one or a
// joined one), headless.go (the simulation loop, on its own goroutine when
// a window draws), window.go (the Ebiten loop: the start screen or a match,
// drawn at the display's rate from what the simulation publishes between its
// steps), menu.go (the start screen), input.go (keyboard → input), render.go,
// hud.go (messages, overlays), scoreboard.go, netgraph.go and text.go
// (drawing, in the fonts of package assets), cues.go and sound.go (the sound
// effects the frames call for), saves.go (where a host saves its world and
// keeps its identity), fleet.go (the host as an Agones game server), commands.go (the players' commands: keys, receipts). The game's rules live in demo/game and what it tells the engine
// (package tandem) in demo/netplay; neither imports Ebiten.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
	"github.com/tandem-go/tandem/net/wire"
)

// options are the command line.
type options struct {
	host       bool
	join       string
	addr       string
	pin        string
	name       string
	headless   bool
	bot        bool
	bots       int
	crates     int
	props      int
	maxPlayers int
	perAddress int
	ticks      int
	screenshot string
	lag        time.Duration
	jitter     time.Duration
	loss       lossFlag
	netGraph   bool // F3's state at the start
	resetKey   string
	mute       bool
	alone      bool           // play alone at once, without the start screen
	menu       bool           // the start screen even with -ticks
	code       *joincode.Code // -join's join line or short code, parsed
	save       saveFlag
	saveEvery  time.Duration
	spectate   bool
	grace      time.Duration
	idle       time.Duration
	agones     bool // with -host: a game server of an Agones fleet
}

// lossFlag is a fraction of packets, written 0.05 or 5%.
type lossFlag float64

func (l *lossFlag) String() string { return strconv.FormatFloat(float64(*l), 'g', -1, 64) }

func (l *lossFlag) Set(s string) error {
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
	*l = lossFlag(v)
	return nil
}

// networked reports whether the demo hosts or joins.
func (o *options) networked() bool { return o.host || o.join != "" }

// conditioned reports whether the link conditioner is on.
func (o *options) conditioned() bool { return o.lag > 0 || o.jitter > 0 || o.loss > 0 }

func parseOptions(args []string, stderr io.Writer) (options, error) {
	o := options{addr: ":4242", name: "player", bots: 3, crates: game.DefaultConfig().Crates, maxPlayers: game.MaxPlayers}
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: demo [-host | -join HOST:PORT] [flags]\n\n"+
			"Tandem's demo: push crates and a ball into the opponent's goal, alone or with\n"+
			"other people over the network (up to %d by default, -max-players for more).\n"+
			"Without -host or -join (or -alone, or -ticks) it opens on a start screen.\n"+
			"Keys: WASD or arrows thrust, Space dash, %s, Tab scoreboard,\n"+
			"M sound on/off, F2 interpolation on/off, F3 net graph, Esc back to the start screen (or quit).\n\nFlags:\n", game.MaxPlayers, commandHelp(true, ", "))
		fs.PrintDefaults()
	}
	fs.BoolVar(&o.host, "host", false, "host a networked game and play in it; others join with the line it prints")
	fs.StringVar(&o.join, "join", "", "join the game the host's join line names: `HOST:PORT/CODE` (the full line, or the short code it reads out), or HOST:PORT with -pin")
	fs.StringVar(&o.addr, "addr", o.addr, "with -host: the UDP `address` to listen on (port 0 picks a free one)")
	fs.StringVar(&o.pin, "pin", "", "with -join: the host's certificate `fingerprint` (hex SHA-256) from its join line; without it the host is not authenticated")
	fs.StringVar(&o.name, "name", o.name, "your player's `name`, shown to the host")
	fs.BoolVar(&o.headless, "headless", false, "no window: a host where only bots play, or (with -join) a client whose player stands still or, with -bot, plays as a bot")
	fs.BoolVar(&o.bot, "bot", false, "with -join: a computer player plays for you")
	fs.IntVar(&o.bots, "bots", o.bots, "number of computer players the host (or a game alone) adds; they join the right team first, then alternate")
	fs.IntVar(&o.crates, "crates", o.crates, "number of crates in the arena (host or alone)")
	fs.IntVar(&o.props, "props", 0, "scatter `N` networked static props (decor that never changes) over grounds around the field (host or alone); a joiner receives them all, and they cost nothing a tick")
	fs.IntVar(&o.maxPlayers, "max-players", o.maxPlayers, "with -host: the most people in the match, the host's own player included (bots come on top)")
	fs.IntVar(&o.perAddress, "per-address", 0, "with -host: the most players and spectators from one IP address (0: the engine's 4); raise it to load a host with -bot clients from one machine")
	fs.IntVar(&o.ticks, "ticks", 0, "stop after `N` simulation ticks (a client counts them from its join, a host restored from a save from the save's frame), print one summary line and exit 0 (0: run until closed)")
	fs.StringVar(&o.screenshot, "screenshot", "", "with a window: write the last drawn frame to `FILE` as PNG when the demo ends (-ticks reached, Esc, Ctrl-C, or the host ending the game)")
	fs.DurationVar(&o.lag, "lag", 0, "networked: add this much round-trip `delay`, half each way, on this machine's socket")
	fs.DurationVar(&o.jitter, "jitter", 0, "networked: vary each packet's delay by up to ± this `duration` (half each way)")
	fs.Var(&o.loss, "loss", "networked: lose this `fraction` of packets each way, e.g. 0.05 or 5%")
	fs.BoolVar(&o.netGraph, "netgraph", false, "with a window: start with the net graph shown (F3 toggles it; -lag, -jitter and -loss show it too)")
	fs.BoolVar(&o.mute, "mute", false, "with a window: start with the sound off (M turns it on)")
	fs.BoolVar(&o.alone, "alone", false, "play alone at once, without the start screen")
	fs.BoolVar(&o.menu, "menu", false, "open on the start screen even with -ticks (which then counts the ticks of the match started from it)")
	fs.DurationVar(&o.grace, "grace", 30*time.Second, "with -host: how long a player whose connection broke is kept (its disc stays, standing still) for its client to come back on a new connection; 0 turns that off")
	fs.DurationVar(&o.idle, "idle-timeout", 0, "networked: end a connection that brought nothing for this long (default 10s); a client whose connection ends so reconnects to the host by itself")
	fs.StringVar(&o.resetKey, "reset-key", "", "with -host: the `file` of the host's stateless-reset key (made on first run, mode 0600), so that the clients of a host restarted on the same address learn at once that it is gone (default: the one kept in the save, or without one "+appName+"/reset-key in the user's config directory)")
	fs.Var(&o.save, "save", "with -host: save the world to `FILE` (bbolt, or a postgres:// URL) and restore it from there at the next start, with the host's certificate and reset key; '' keeps the world in memory only (default: "+appName+"/world.db in the user's state directory)")
	fs.DurationVar(&o.saveEvery, "save-every", 5*time.Second, "with -host and a save: how often the host saves what changed (a command's change is saved at the end of its frame in any case)")
	fs.BoolVar(&o.spectate, "spectate", false, "with -join: watch the game without playing in it")
	fs.BoolVar(&o.agones, "agones", false, "with -host: run as a game server of an Agones fleet, headless (the SDK server's port from AGONES_SDK_HTTP_PORT, default 9358); the world an allocation names ("+fleetWorldKey+") is loaded from -save, best a postgres:// URL")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	o.netGraph = o.netGraph || o.conditioned()
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q; flags start with -, see -help", fs.Arg(0))
	case o.host && o.join != "":
		return o, errors.New("-host and -join exclude each other: host a game or join one")
	case set["join"] && strings.TrimSpace(o.join) == "":
		return o, errors.New("-join needs the host's join line (HOST:PORT/CODE) or its address with -pin; it was empty or blank")
	case o.ticks < 0 || o.crates < 0 || o.bots < 0 || o.props < 0:
		return o, errors.New("-ticks, -crates, -bots and -props must not be negative")
	case o.maxPlayers < 1:
		return o, errors.New("-max-players must be at least 1")
	case !o.host && set["max-players"]:
		return o, errors.New("-max-players is the host's: use it with -host")
	case !o.host && set["per-address"], o.perAddress < 0:
		return o, errors.New("-per-address is the host's, and at least 0: use it with -host")
	case o.screenshot != "" && o.headless:
		return o, errors.New("-screenshot needs a window; leave out -headless")
	case o.menu && (o.networked() || o.headless || o.alone):
		return o, errors.New("-menu is the start screen, which chooses the mode: leave out -host, -join, -headless and -alone")
	case o.alone && o.networked():
		return o, errors.New("-alone plays without the network: leave out -host and -join")
	case o.join == "" && (set["pin"] || o.bot):
		return o, errors.New("-pin and -bot are for a client: use them with -join")
	case !o.host && (set["reset-key"] || set["save"] || set["save-every"]):
		return o, errors.New("-reset-key, -save and -save-every are the host's: use them with -host")
	case o.saveEvery <= 0:
		return o, errors.New("-save-every must be positive")
	case o.agones && !o.host:
		return o, errors.New("-agones runs a host: use it with -host")
	case o.agones && (o.screenshot != "" || o.menu || o.ticks > 0):
		return o, errors.New("-agones is a game server with no window that runs until Agones stops it: leave out -screenshot, -menu and -ticks")
	case o.join == "" && o.spectate:
		return o, errors.New("-spectate is for a client: use it with -join")
	case o.spectate && o.bot:
		return o, errors.New("-spectate and -bot exclude each other: a spectator does not play")
	case !o.host && !o.startScreen() && set["grace"]:
		return o, errors.New("-grace is the host's: use it with -host (or on the start screen)")
	case !o.networked() && !o.startScreen() && set["idle-timeout"]:
		return o, errors.New("-idle-timeout is for a networked game: use it with -host or -join (or on the start screen)")
	case o.grace < 0 || o.idle < 0:
		return o, errors.New("-grace and -idle-timeout must not be negative")
	case o.join != "" && (set["bots"] || set["crates"] || set["props"] || set["addr"]):
		return o, errors.New("-bots, -crates, -props and -addr are the host's: a client joins the host's game as it is")
	case !o.networked() && !o.menu && (o.conditioned() || set["addr"]):
		return o, errors.New("-lag, -jitter, -loss and -addr condition the network: use them with -host or -join")
	case o.lag < 0 || o.jitter < 0:
		return o, errors.New("-lag and -jitter must not be negative")
	}
	if err := wire.CheckName(o.name); err != nil {
		return o, fmt.Errorf("-name: %w", err)
	}
	if strings.Contains(o.join, "/") || strings.Contains(o.join, " ") {
		jc, err := parseJoin(o.join)
		switch {
		case err != nil:
			return o, fmt.Errorf("-join: %w", err)
		case set["pin"]:
			return o, errors.New("-join's join line holds the pin already: leave out -pin")
		}
		o.join, o.code = jc.Addr(), &jc
	}
	return o, nil
}

// startScreen reports whether the demo opens on the start screen: with a
// window, when no flag chose the match (-host, -join, -alone, or -ticks for
// a script), or with -menu.
func (o *options) startScreen() bool {
	return o.menu || (!o.headless && !o.networked() && !o.alone && o.ticks == 0)
}

func main() {
	if os.Getenv(probeEnv) != "" {
		os.Exit(probeAudio(os.Stdout)) // the sound's device check (sound.go)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) (code int) {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 2
	}
	if o.startScreen() {
		if err := runWindow(nil, o, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "demo:", err)
			return 1
		}
		return 0
	}
	if o.agones {
		if err := runAgones(o, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "demo:", err)
			return 1
		}
		return 0
	}
	var m match
	switch {
	case o.join != "":
		m, err = joinMatch(o, stderr)
	case o.host:
		m, err = hostMatch(o, stdout, stderr)
	default:
		m, err = newLocalMatch(o)
	}
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 1
	}
	defer func() {
		// A host's close saves the world last: a failure is the run's.
		// (A client's close ends a session that may have ended already.)
		if err := m.Close(); err != nil && o.host {
			fmt.Fprintln(stderr, "demo: closing the host (its final save, its store):", err)
			code = max(code, 1)
		}
	}()
	if o.headless {
		err = runHeadless(m, o, stdout)
	} else {
		err = runWindow(m, o, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		if o.ticks > 0 || m.Ended() {
			fmt.Fprintln(stdout, m.Summary())
		}
		return 1
	}
	if o.ticks > 0 || o.networked() || o.headless {
		fmt.Fprintln(stdout, m.Summary())
	}
	return 0
}

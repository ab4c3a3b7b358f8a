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
// Its files read as a template: main.go (flags and modes: package launch's
// flags of a networked game beside the demo's own), match.go (what the
// window and the headless loop drive: package launch's Match, played
// alone, hosted or joined as the flags say, with the save, the QUIC
// listener and its join line, the client's dialer and the logs; opened
// with the demo's settings, and the demo's summary line), headless.go (the
// loop without a window: Match.RunHeadless), window.go (the Ebiten loop:
// the start screen or a match, simulated on its own goroutine by
// Match.Play and drawn at the display's rate from what the simulation
// publishes between its steps), menu.go (the start screen), input.go
// (keyboard → input), render.go, hud.go (messages, overlays),
// scoreboard.go, netgraph.go and text.go (drawing, in the fonts of package
// assets), cues.go and sound.go (the sound effects the frames call for),
// saves.go (the game's names: its save's world, its directories, its
// title), fleet.go (the host as an Agones game server), commands.go (the
// players' commands: keys, and their receipts on the HUD). The game's
// rules live in demo/game and what it tells the engine (package tandem) in
// demo/netplay; neither imports Ebiten.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/launch"
)

// options are the command line: the engine's flags of a networked game
// (package launch: -host, -join, -save, -agones, the link conditioner…)
// and the demo's own.
type options struct {
	launch.Flags
	headless   bool
	bot        bool
	bots       int
	crates     int
	props      int
	ticks      int
	screenshot string
	netGraph   bool // F3's state at the start
	mute       bool
	alone      bool // play alone at once, without the start screen
	menu       bool // the start screen even with -ticks
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	o := options{Flags: launch.Flags{App: appName, MaxPlayers: game.MaxPlayers, Fleet: true}, bots: 3, crates: game.DefaultConfig().Crates}
	fs := flag.NewFlagSet(appName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: demo [-host | -join HOST:PORT] [flags]\n\n"+
			"Tandem's demo: push crates and a ball into the opponent's goal, alone or with\n"+
			"other people over the network (up to %d by default, -max-players for more;\n"+
			"bots come on top). Without -host or -join (or -alone, or -ticks) it opens on\n"+
			"a start screen.\n"+
			"Keys: WASD or arrows thrust, Space dash, %s, Tab scoreboard,\n"+
			"M sound on/off, F2 interpolation on/off, F3 net graph, Esc back to the start screen (or quit).\n\nFlags:\n", game.MaxPlayers, commandHelp(true, ", "))
		fs.PrintDefaults()
	}
	o.Register(fs)
	fs.BoolVar(&o.headless, "headless", false, "no window: a host where only bots play, or (with -join) a client whose player stands still or, with -bot, plays as a bot")
	fs.BoolVar(&o.bot, "bot", false, "with -join: a computer player plays for you")
	fs.IntVar(&o.bots, "bots", o.bots, "number of computer players the host (or a game alone) adds; they join the right team first, then alternate")
	fs.IntVar(&o.crates, "crates", o.crates, "number of crates in the arena (host or alone)")
	fs.IntVar(&o.props, "props", 0, "scatter `N` networked static props (decor that never changes) over grounds around the field (host or alone); a joiner receives them all, and they cost nothing a tick")
	fs.IntVar(&o.ticks, "ticks", 0, "stop after `N` simulation ticks (a client counts them from its join, a host restored from a save from the save's frame), print one summary line and exit 0 (0: run until closed)")
	fs.StringVar(&o.screenshot, "screenshot", "", "with a window: write the last drawn frame to `FILE` as PNG when the demo ends (-ticks reached, Esc, Ctrl-C, or the host ending the game)")
	fs.BoolVar(&o.netGraph, "netgraph", false, "with a window: start with the net graph shown (F3 toggles it; -lag, -jitter and -loss show it too)")
	fs.BoolVar(&o.mute, "mute", false, "with a window: start with the sound off (M turns it on)")
	fs.BoolVar(&o.alone, "alone", false, "play alone at once, without the start screen")
	fs.BoolVar(&o.menu, "menu", false, "open on the start screen even with -ticks (which then counts the ticks of the match started from it)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q; flags start with -, see -help", fs.Arg(0))
	}
	// The start screen chooses hosting or joining: the network's flags
	// wait for it.
	o.ChooseLater = o.startScreen()
	if err := o.Check(fs); err != nil {
		return o, err
	}
	o.netGraph = o.netGraph || o.Conditioned()
	given := o.Given
	switch {
	case o.ticks < 0 || o.crates < 0 || o.bots < 0 || o.props < 0:
		return o, errors.New("-ticks, -crates, -bots and -props must not be negative")
	case o.screenshot != "" && o.headless:
		return o, errors.New("-screenshot needs a window; leave out -headless")
	case o.menu && (o.Networked() || o.headless || o.alone):
		return o, errors.New("-menu is the start screen, which chooses the mode: leave out -host, -join, -headless and -alone")
	case o.alone && o.Networked():
		return o, errors.New("-alone plays without the network: leave out -host and -join")
	case o.Join == "" && o.bot:
		return o, errors.New("-bot is for a client: use it with -join")
	case o.Agones && (o.screenshot != "" || o.menu || o.ticks > 0):
		return o, errors.New("-agones is a game server with no window that runs until Agones stops it: leave out -screenshot, -menu and -ticks")
	case o.Spectate && o.bot:
		return o, errors.New("-spectate and -bot exclude each other: a spectator does not play")
	case o.Join != "" && (given("bots") || given("crates") || given("props")):
		return o, errors.New("-bots, -crates and -props are the host's: a client joins the host's game as it is")
	}
	return o, nil
}

// startScreen reports whether the demo opens on the start screen: with a
// window, when no flag chose the match (-host, -join, -alone, or -ticks for
// a script), or with -menu.
func (o *options) startScreen() bool {
	return o.menu || (!o.headless && !o.Networked() && !o.alone && o.ticks == 0)
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
		fmt.Fprintln(stderr, appName+":", err)
		return 2
	}
	if o.startScreen() {
		if err := runWindow(nil, o, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, appName+":", err)
			return 1
		}
		return 0
	}
	if o.Agones {
		if err := runAgones(o, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, appName+":", err)
			return 1
		}
		return 0
	}
	m, err := openMatch(o, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, appName+":", err)
		return 1
	}
	defer func() {
		// A host's close saves the world last: a failure is the run's.
		// (A client's close ends a session that may have ended already.)
		if err := m.Close(); err != nil && o.Host {
			fmt.Fprintln(stderr, appName+": closing the host (its final save, its store):", err)
			code = max(code, 1)
		}
	}()
	if o.headless {
		err = runHeadless(m, o, stdout)
	} else {
		err = runWindow(m, o, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, appName+":", err)
		if o.ticks > 0 || m.Ended() {
			fmt.Fprintln(stdout, m.summary())
		}
		return 1
	}
	if o.ticks > 0 || o.Networked() || o.headless {
		fmt.Fprintln(stdout, m.summary())
	}
	return 0
}

// Command demo is Tandem's demo game and the template for a new one: a
// top-down arena where discs driven by the keyboard push crates and a ball
// into goals.
//
//	go run ./demo -host              host a game and play in it
//	go run ./demo -headless -bots 3  a host with no window, bots playing
//
// Its files read as a template: main.go (flags and wiring), headless.go (the
// loop without a window), window.go (the Ebiten loop: step at 60 Hz, draw at
// the display's rate), input.go (keyboard → stamped input), render.go and
// hud.go (drawing). The game's rules live in demo/game, which has no Ebiten
// import.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

// options are the command line.
type options struct {
	host       bool
	headless   bool
	ticks      int
	screenshot string
	crates     int
	bots       int
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: demo [-host | -headless] [flags]\n\n"+
			"Tandem's demo: push crates and a ball into the opponent's goal.\n"+
			"Keys: WASD or arrows thrust, Space dash, Esc quit.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	fs.BoolVar(&o.host, "host", false, "host a game and play in it, in a window (the default mode)")
	fs.BoolVar(&o.headless, "headless", false, "host with no window: only bots play; the simulation runs at real time (as fast as it can with -ticks)")
	fs.IntVar(&o.ticks, "ticks", 0, "stop after `N` simulation ticks, print one summary line and exit 0 (0: run until closed)")
	fs.StringVar(&o.screenshot, "screenshot", "", "with -ticks and a window: write the last drawn frame to `FILE` as PNG before exiting")
	fs.IntVar(&o.crates, "crates", 30, "number of crates in the arena")
	fs.IntVar(&o.bots, "bots", 3, "number of computer players that chase the ball (they join the right team first, then alternate)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q; flags start with -, see -help", fs.Arg(0))
	case o.host && o.headless:
		return o, errors.New("-host and -headless exclude each other: -host opens a window, -headless does not")
	case o.ticks < 0 || o.crates < 0 || o.bots < 0:
		return o, errors.New("-ticks, -crates and -bots must not be negative")
	case o.screenshot != "" && (o.ticks == 0 || o.headless):
		return o, errors.New("-screenshot needs -ticks N and a window (not -headless)")
	}
	return o, nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 2
	}
	cfg := game.DefaultConfig()
	cfg.Crates = o.crates
	g := game.New(cfg, clock.Real{})
	g.Populate()
	var local arche.Entity
	if !o.headless {
		local = g.SpawnPlayer(ecs.HostPeer, game.Left, game.LocalColor)
	}
	for i := range o.bots {
		team := game.Right
		if i%2 == 1 {
			team = game.Left
		}
		g.SpawnBot(team)
	}

	if o.headless {
		runHeadless(g, o, stdout)
	} else if err := runWindow(g, local, o); err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 1
	}
	if o.ticks > 0 {
		fmt.Fprintln(stdout, summary(g))
	}
	return 0
}

// summary is the one line printed at the end of a -ticks run.
func summary(g *game.Game) string {
	s := g.ScoreNow()
	b := g.Pose(g.Ball)
	return fmt.Sprintf("tandem-demo: ticks=%d frame=%d score=%d-%d ball=(%.1f,%.1f) moved=%.1f goals=%d awake=%d reports=%d",
		g.World.Frame(), g.World.Frame(), s.Left, s.Right, b.X, b.Y, g.Stats.BallTravel, g.Stats.Goals, g.Space.Awake(), g.Stats.Reports)
}

package launch_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/launch"
)

// A game's command line: the engine's flags beside the game's own, checked,
// and the host's settings they give.
func ExampleFlags() {
	f := launch.Flags{App: "mygame", MaxPlayers: 4} // the game's default: 4 people
	fs := flag.NewFlagSet("mygame", flag.ContinueOnError)
	f.Register(fs)
	bots := fs.Int("bots", 2, "computer players") // a flag of the game's own
	if err := fs.Parse([]string{"-host", "-max-players", "16", "-grace", "0s", "-name", "ann"}); err != nil {
		fmt.Println(err)
		return
	}
	if err := f.Check(fs); err != nil {
		fmt.Println("mygame:", err)
		return
	}
	hc := f.HostConfig(true) // the host's own player plays
	fmt.Println(f.Host, hc.MaxPeers, hc.Grace < 0, hc.Name, *bots)
	// Output: true 15 true ann 2
}

// mygame is a game's definition (its components, systems and input).
var mygame = &tandem.Game[struct{ Fire bool }]{
	Setup: func(w *tandem.World) {}, // its systems, added to w.Schedule
}

// A host's main with the flags: the save opened (the host's identity in
// it), the host made and served on the listener whose join lines it
// prints, its events logged, and run until Ctrl-C; SIGHUP closes it for a
// restart, its players coming back to the host started next on the same
// save.
func ExampleRunHost() {
	f := launch.Flags{App: "mygame"}
	f.Register(flag.CommandLine)
	flag.Parse()
	if err := f.Check(flag.CommandLine); err != nil {
		fmt.Fprintln(os.Stderr, "mygame:", err)
		os.Exit(2)
	}
	sv, err := f.OpenSave("main", os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mygame:", err)
		os.Exit(1)
	}
	defer sv.Close() // after the host's close, which saves last
	hc := f.HostConfig(true)
	sv.Configure(&hc, os.Stderr)
	h, err := tandem.NewHost(mygame, hc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mygame:", sv.Explain(err))
		return
	}
	hosting, err := f.Listen(os.Stdout, sv.Identity(), 0)
	if err != nil {
		h.Close()
		fmt.Fprintln(os.Stderr, "mygame:", err)
		return
	}
	launch.LogHost(h, f.App, os.Stderr)
	h.Serve(hosting.Listener)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := launch.RunHost(ctx, h, f.App, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mygame:", err)
	}
}

// A client's main with the flags: it dials the host -join names (again
// after a break), logs its joins and breaks, and plays until the session
// ends or Ctrl-C, which leaves the game (Close). LogClient has said why a
// session ended: Run's error is for the exit code.
func ExampleLogClient() {
	f := launch.Flags{App: "mygame"}
	f.Register(flag.CommandLine)
	flag.Parse()
	if err := f.Check(flag.CommandLine); err != nil {
		fmt.Fprintln(os.Stderr, "mygame:", err)
		os.Exit(2)
	}
	if f.Join == "" {
		fmt.Fprintln(os.Stderr, "mygame: give -join and the host's join line (HOST:PORT/CODE)")
		os.Exit(2)
	}
	dial, err := f.Dialer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mygame:", err)
		os.Exit(1)
	}
	c, err := tandem.NewClient(mygame, nil, tandem.ClientConfig[struct{ Fire bool }]{Name: f.Name, Spectator: f.Spectate, Dial: dial, TicketFile: f.Ticket})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mygame:", err)
		os.Exit(1)
	}
	launch.LogClient(c, f.App, f.Join, os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = c.Run(ctx)
	c.Close() // leave the game: the host lets the player go now
	if err != nil && !errors.Is(err, tandem.ErrClosed) {
		os.Exit(1)
	}
}

// A game's main with a Match: the flags say whether the game is played
// alone, hosted or joined, and Open opens what that needs (a host's save,
// its listener and the join lines it prints, a client's dialer, the logs).
// Here it runs with no window until -ticks frames are played (alone, as
// fast as it can, to the exact frame), the match ends, or Ctrl-C (SIGHUP
// closes a host for a restart); Close then saves a host's world. A game
// with a window runs Play on a goroutine beside it instead, and draws with
// the match's View.
func ExampleOpen() {
	f := launch.Flags{App: "mygame"}
	fs := flag.NewFlagSet("mygame", flag.ContinueOnError)
	f.Register(fs)
	ticks := fs.Int("ticks", 0, "stop after `N` frames (0: run until Ctrl-C)") // a flag of the game's own
	// A main parses os.Args[1:].
	if err := fs.Parse([]string{"-ticks", "120"}); err != nil {
		fmt.Println(err)
		return
	}
	if err := f.Check(fs); err != nil {
		fmt.Println("mygame:", err)
		return
	}
	m, err := launch.Open(f, mygame, launch.Options[struct{ Fire bool }]{Headless: true})
	if err != nil {
		fmt.Println("mygame:", err) // says what to do: another -addr, another -save...
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := m.RunHeadless(ctx, *ticks); err != nil {
		fmt.Println("mygame:", err) // a client's "could not join: …" or "the session ended: …"
	}
	fmt.Println("alone:", m.Host() == nil && m.Client() == nil) // Host and Client: what is a host's or a client's own
	fmt.Println("played", m.Played(), "frames")
	if err := m.Close(); err != nil {
		fmt.Println("mygame: closing:", err) // a host's final save failed
	}
	// Output:
	// alone: true
	// played 120 frames
}

// The engine's notices as a game's own lines: a logger of Log given to a
// host (Open does this by itself, to Options.Stderr).
func ExampleLog() {
	hc := tandem.HostConfig{Logger: launch.Log("mygame", os.Stdout)}
	hc.Logger.Warn("tandem: a player's state budget has been full for 5s", "peer", 3)
	hc.Logger.Error("tandem: a command panicked; the host refused it and goes on", "command", "buy upgrade")
	// Output:
	// mygame: tandem: a player's state budget has been full for 5s peer=3
	// mygame: error: tandem: a command panicked; the host refused it and goes on command="buy upgrade"
}

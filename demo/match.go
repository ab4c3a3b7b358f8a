package main

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/demo/netplay"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/launch"
)

// match is what the window and the headless loops drive: a game played alone,
// hosted, or joined. It is the engine's Session (SetInput, Advance, Run,
// View, Do, Err, Close: safe from any goroutine, so the simulation may step
// on one while the window draws on another) and what the demo adds.
type match interface {
	tandem.Session[game.Input]
	// Played returns the frames that count towards -ticks: those this
	// program simulated alone or hosting (a host restored from a save
	// counts from the save's frame), those since the join finished for a
	// client.
	Played() int
	// Ended reports whether the match ended by itself (a client whose host
	// left, or a join that did not finish); Err says why, nil for an orderly
	// end.
	Ended() bool
	// Summary is the one line printed at the end.
	Summary() string
	// note, answered and tell are the HUD's lines of commands and receipts
	// (receipts).
	note(s string, col color.RGBA)
	answered(op uint64) bool
	tell(h *hud)
}

// config is the match the flags describe.
func config(o options) netplay.Config {
	cfg := game.DefaultConfig()
	cfg.Crates = o.crates
	cfg.Props = o.props
	return netplay.Config{Match: cfg, Bots: o.bots, HostPlays: !o.headless, MaxPlayers: o.MaxPlayers}
}

// localMatch is a game simulated here: played alone, or hosted.
type localMatch struct {
	// Session is the Local alone, the Host hosting: its Run and Err (Close
	// is the match's own: a restart, then the save).
	tandem.Session[game.Input]
	host        *tandem.Host[game.Input] // nil alone
	full, short string                   // a host's join line and short code
	save        *launch.Save             // nil alone or in memory
	restart     *launch.Restart          // a restart's signal, watched by a headless host (nil: none)
	first       int                      // the frame it began at (a host restored from a save: the save's)
	receipts
}

// newLocalMatch builds a game to play alone: the arena, a player at the
// keyboard (unless headless) and o.bots bots.
func newLocalMatch(o options) (*localMatch, error) {
	l, err := tandem.NewLocal(netplay.New(config(o)), tandem.LocalConfig{Name: o.Name})
	if err != nil {
		return nil, err
	}
	m := &localMatch{Session: l}
	l.OnReceipt(m.receipts.take)
	return m, nil
}

// hostConfig is the host's settings from the flags (package launch's) and
// the demo's room for spectators. A fleet's game server takes the same
// (runAgones).
func hostConfig(o options) tandem.HostConfig {
	hc := o.HostConfig(!o.headless) // the host's own player, when it plays
	hc.Spectators = game.MaxPlayers
	return hc
}

// hostMatch hosts the game on the network: it opens the save, listens,
// prints the join line to stdout, and logs peers to stderr.
func hostMatch(o options, stdout, stderr io.Writer) (*localMatch, error) {
	sv, err := o.OpenSave(saveWorld, stderr)
	if err != nil {
		return nil, err
	}
	hc := hostConfig(o)
	sv.Configure(&hc, stderr)
	h, err := tandem.NewHost(netplay.New(config(o)), hc)
	if err != nil {
		err = sv.Explain(err) // a save of another version of the game
		sv.Close()
		return nil, err
	}
	entities, first := 0, 0
	h.Do(func(w *tandem.World) { entities, first = w.ECS.Networked(), int(w.ECS.Frame()) })
	hosting, err := o.Listen(stdout, sv.Identity(), entities)
	if err != nil {
		h.Close()
		sv.Close()
		return nil, err
	}
	launch.LogHost(h, appName, stderr)
	h.Serve(hosting.Listener)
	m := &localMatch{Session: h, host: h, full: hosting.Line, short: hosting.Short, save: sv, first: first}
	h.OnReceipt(m.receipts.take)
	return m, nil
}

func (m *localMatch) Played() int {
	n := 0
	m.Do(func(w *tandem.World) { n = int(w.ECS.Frame()) - m.first })
	return n
}

func (m *localMatch) Ended() bool { return false }

func (m *localMatch) Close() error {
	if m.host == nil {
		return m.Session.Close() // a game alone: Run ends
	}
	var err error
	if m.restart != nil && m.restart.Asked() {
		err = m.host.CloseForRestart()
	} else {
		err = m.host.Close()
	}
	if cerr := m.save.Close(); err == nil {
		err = cerr
	}
	return err
}

// Summary reports the match; a host adds its peers.
func (m *localMatch) Summary() string {
	var line string
	m.Do(func(w *tandem.World) {
		g := game.Of(w)
		s := g.ScoreNow()
		b := g.Pose(g.Ball)
		line = fmt.Sprintf(appName+": ticks=%d frame=%d score=%d-%d ball=(%.1f,%.1f) moved=%.1f goals=%d awake=%d reports=%d",
			int(w.ECS.Frame())-m.first, w.ECS.Frame(), s.Left, s.Right, b.X, b.Y, g.Stats.BallTravel, g.Stats.Goals, g.Space.Awake(), g.Stats.Reports)
	})
	if m.host != nil {
		hs := m.host.Stats()
		line += fmt.Sprintf(" peers=%d joined=%d left=%d resumes=%d", hs.Peers, hs.Joined, hs.Left, hs.Resumed)
	}
	return line
}

// clientMatch is a game joined over the network.
type clientMatch struct {
	*tandem.Client[game.Input]
	receipts
	travel float64 // how far the player's disc moved, world units
	last   ecs.Transform
	lastOK bool
}

// joinMatch dials the host and starts joining its game.
func joinMatch(o options, stderr io.Writer) (*clientMatch, error) {
	dial, err := o.Dialer()
	if err != nil {
		return nil, err
	}
	m := &clientMatch{}
	g := netplay.New(config(o))
	cfg := tandem.ClientConfig[game.Input]{Name: o.Name, Spectator: o.Spectate, Dial: dial, TicketFile: o.Ticket}
	if o.bot {
		cfg.Input = botInput()
	}
	c, err := tandem.NewClient(g, nil, cfg) // it dials first, with Dial
	if err != nil {
		return nil, err
	}
	m.Client = c
	launch.LogClient(c, appName, o.Join, stderr)
	c.World().Schedule.AddTo(ecs.StageOutput, "demo.travel", ecs.SystemFunc(m.measure))
	c.OnReceipt(m.receipts.take)
	return m, nil
}

// botInput is a computer player for the client's own disc: the host's bots'
// logic, run on the client.
func botInput() func(w *tandem.World) game.Input {
	var bot game.Bot
	started := false
	return func(w *tandem.World) game.Input {
		g := game.Of(w)
		e, ok := tandem.Driven[game.Input](w, w.Peer)
		if !ok {
			return game.Input{}
		}
		if !started {
			bot, started = g.NewBot(0), true
		}
		return g.Steer(e, &bot)
	}
}

// measure adds up how far the player's disc moved while playing: a system.
func (m *clientMatch) measure(w *ecs.World) {
	e, ok := m.Local()
	if !ok || m.Frames() == 0 {
		m.lastOK = false
		return
	}
	t := *(*ecs.Transform)(w.Arche().Get(e, w.IDs.Transform))
	if m.lastOK {
		m.travel += dist(m.last, t)
	}
	m.last, m.lastOK = t, true
}

func (m *clientMatch) Played() int {
	n := 0
	m.Do(func(*tandem.World) { n = m.Frames() })
	return n
}

// Ended reports a closed session: a first join that did not finish in time
// closes it too (ClientConfig.JoinTimeout); a client reconnecting after
// playing waits as long as the host's grace window.
func (m *clientMatch) Ended() bool { return m.State() == tandem.Closed }

// Err is nil when the host ended the game (or the player left) after the
// join, else why the session failed: a refusal (with the host's reason), a
// join that did not finish, a lost connection.
func (m *clientMatch) Err() error {
	if m.State() != tandem.Closed {
		return nil
	}
	err := m.Client.Err()
	if !m.Joined() {
		if err == nil {
			err = errors.New("the connection closed")
		}
		return fmt.Errorf("could not join: %w", err)
	}
	if err != nil {
		return fmt.Errorf("the session ended: %w", err)
	}
	return nil
}

// Summary reports the join, the player's disc and the connection.
func (m *clientMatch) Summary() string {
	var line string
	m.Do(func(w *tandem.World) {
		g := game.Of(w)
		ns := m.Stats()
		own := ecs.Transform{}
		if e, ok := m.Local(); ok {
			own = g.Pose(e)
		}
		s := g.ScoreNow()
		simlock, drawlock := m.LockStats() // the longest since the start
		line = fmt.Sprintf(appName+": joined=%t ticks=%d frame=%d entities=%d own=(%.1f,%.1f) moved=%.1f rtt=%v loss=%.3f corrections=%d maxcorr=%.2f score=%d-%d simlock=%v drawlock=%v resumes=%d peer=%d",
			m.Joined(), ns.Frames, ns.Frame, ns.Entities, own.X, own.Y, m.travel,
			ns.RTT.Round(100*time.Microsecond), ns.Loss, ns.Corrections.Count, ns.Corrections.Max, s.Left, s.Right,
			simlock.Round(10*time.Microsecond), drawlock.Round(10*time.Microsecond), ns.Resumes, w.Peer)
	})
	return line
}

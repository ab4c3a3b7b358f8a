package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/demo/netplay"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
)

// joinTimeout bounds how long a client waits for its join to finish.
const joinTimeout = 30 * time.Second

// match is what the window and the headless loops drive: a game played alone,
// hosted, or joined. Every method runs on the loop's goroutine.
type match interface {
	// Game returns the match's game.
	Game() *game.Game
	// Local returns the player at this machine's keyboard, if any.
	Local() (arche.Entity, bool)
	// SetInput sets the keyboard's input for the steps to come.
	SetInput(in game.Input)
	// Advance runs the simulation steps that real time calls for.
	Advance()
	// Ticks returns the ticks that count towards -ticks: every one alone or
	// hosting, those since the join finished for a client.
	Ticks() int
	// Interpolator knows where to draw every entity; the loop calls its
	// Update (through BeforeDraw) once per drawn frame.
	Interpolator() *interp.Interpolator
	// BeforeDraw prepares drawing the frame of time now.
	BeforeDraw(now time.Time)
	// Ended reports whether the match ended by itself (a client whose host
	// left); Err says why, nil for an orderly end.
	Ended() bool
	Err() error
	// Summary is the one line printed at the end.
	Summary() string
	// Close leaves or closes the match.
	Close() error
}

// localMatch is a game simulated here: played alone, or hosted.
type localMatch struct {
	g     *game.Game
	local arche.Entity
	ip    *interp.Interpolator
	host  *netplay.Host // nil alone
	keys  game.Input
}

// newLocalMatch builds a game to play alone: the arena, a player at the
// keyboard (unless headless) and o.bots bots.
func newLocalMatch(o options) *localMatch {
	cfg := game.DefaultConfig()
	cfg.Crates = o.crates
	g := game.New(cfg, clock.Real{})
	g.Populate()
	m := &localMatch{g: g, ip: interp.New(g.World, clock.Real{}, interp.Config{Step: cfg.Step})}
	if !o.headless {
		m.local = g.SpawnPlayer(ecs.HostPeer, game.Left, game.LocalColor)
	}
	for i := range o.bots {
		team := game.Right
		if i%2 == 1 {
			team = game.Left
		}
		g.SpawnBot(team)
	}
	return m
}

// hostMatch builds a local match and hosts it on the network: it listens,
// prints the join line to stdout, and logs peers to stderr.
func hostMatch(o options, stdout, stderr io.Writer) (*localMatch, error) {
	l, err := listen(o, stdout)
	if err != nil {
		return nil, err
	}
	m := newLocalMatch(o)
	m.host = netplay.NewHost(m.g, netplay.HostConfig{
		Plays:   !o.headless,
		OnEvent: func(e session.Event) { fmt.Fprintln(stderr, "tandem-demo:", e) },
	})
	m.host.Serve(l)
	return m, nil
}

func (m *localMatch) Game() *game.Game { return m.g }

func (m *localMatch) Local() (arche.Entity, bool) { return m.local, m.g.World.Alive(m.local) }

func (m *localMatch) SetInput(in game.Input) { m.keys = in }

func (m *localMatch) Advance() {
	if m.g.World.Alive(m.local) {
		// The input is for the next frame; if this call runs several
		// steps, the later ones repeat it.
		m.g.PushInput(m.local, game.StampedInput{Frame: m.g.World.Frame() + 1, Input: m.keys})
	}
	m.g.Schedule.Advance()
}

func (m *localMatch) Ticks() int { return int(m.g.World.Frame()) }

func (m *localMatch) Interpolator() *interp.Interpolator { return m.ip }

func (m *localMatch) BeforeDraw(now time.Time) { m.ip.Update(now) }

func (m *localMatch) Ended() bool { return false }

func (m *localMatch) Err() error { return nil }

func (m *localMatch) Close() error {
	if m.host != nil {
		return m.host.Close()
	}
	return nil
}

// Summary reports the match; a host adds its peers.
func (m *localMatch) Summary() string {
	g := m.g
	s := g.ScoreNow()
	b := g.Pose(g.Ball)
	line := fmt.Sprintf("tandem-demo: ticks=%d frame=%d score=%d-%d ball=(%.1f,%.1f) moved=%.1f goals=%d awake=%d reports=%d",
		m.Ticks(), g.World.Frame(), s.Left, s.Right, b.X, b.Y, g.Stats.BallTravel, g.Stats.Goals, g.Space.Awake(), g.Stats.Reports)
	if m.host != nil {
		hs := m.host.Stats()
		line += fmt.Sprintf(" peers=%d joined=%d left=%d", hs.Peers, hs.Joined, hs.Left)
	}
	return line
}

// clientMatch is a game joined over the network.
type clientMatch struct {
	c     *netplay.Client
	start time.Time
}

// joinMatch dials the host and starts joining its game.
func joinMatch(o options, stderr io.Writer) (*clientMatch, error) {
	tc, err := dial(o)
	if err != nil {
		return nil, err
	}
	g := game.New(game.DefaultConfig(), clock.Real{})
	c, err := netplay.NewClient(g, tc, netplay.ClientConfig{
		Name: o.name,
		Bot:  o.bot,
		OnEvent: func(e session.Event) {
			var ce *transport.CloseError
			switch {
			case e.Kind == session.PeerReady:
				fmt.Fprintf(stderr, "tandem-demo: joined %s as peer %d (%s), %d entities\n", o.join, e.Peer, e.Name, g.World.Networked())
			case e.Kind == session.PeerLeft && errors.As(e.Err, &ce) && !ce.Remote && ce.Code == transport.CloseNormal:
				// This side left: nothing to report.
			case e.Kind == session.PeerLeft:
				fmt.Fprintln(stderr, "tandem-demo: the session ended:", e.Err)
			}
		},
	})
	if err != nil {
		tc.Close(transport.CloseNormal, "client failed to start")
		return nil, err
	}
	return &clientMatch{c: c, start: time.Now()}, nil
}

func (m *clientMatch) Game() *game.Game { return m.c.Game() }

func (m *clientMatch) Local() (arche.Entity, bool) { return m.c.Local() }

func (m *clientMatch) SetInput(in game.Input) { m.c.SetInput(in) }

func (m *clientMatch) Advance() { m.c.Game().Schedule.Advance() }

func (m *clientMatch) Ticks() int {
	n, _ := m.c.Playing()
	return n
}

func (m *clientMatch) Interpolator() *interp.Interpolator { return m.c.Interpolator() }

func (m *clientMatch) BeforeDraw(now time.Time) { m.c.Draw(now) }

// Ended reports a closed session, or a join that did not finish in time.
func (m *clientMatch) Ended() bool {
	st := m.c.Session().State()
	return st == session.Closed || (st != session.Playing && time.Since(m.start) > joinTimeout)
}

// Err is nil when the host ended the game (or the player left) after the
// join, else why the session failed: a refusal (with the host's reason), a
// join that did not finish, a lost connection.
func (m *clientMatch) Err() error {
	s := m.c.Session()
	if s.State() != session.Closed {
		if s.State() != session.Playing && time.Since(m.start) > joinTimeout {
			return fmt.Errorf("the join did not finish in %v (state %v)", joinTimeout, s.State())
		}
		return nil
	}
	err := s.Err()
	if played, _ := m.c.Playing(); played == 0 {
		if err == nil {
			err = errors.New("the connection closed")
		}
		return fmt.Errorf("could not join: %w", err)
	}
	var ce *transport.CloseError
	if errors.As(err, &ce) && (ce.Code == transport.CloseHostShutdown || ce.Code == transport.CloseNormal) {
		return nil
	} else if err != nil {
		return fmt.Errorf("the session ended: %w", err)
	}
	return nil
}

func (m *clientMatch) Close() error { return m.c.Close() }

// Summary reports the join, the player's disc and the connection.
func (m *clientMatch) Summary() string {
	c := m.c
	g := c.Game()
	ns := c.NetStats()
	cs := c.Corrections()
	ticks, moved := c.Playing()
	own := ecs.Transform{}
	if e, ok := c.Local(); ok {
		own = g.Pose(e)
	}
	s := g.ScoreNow()
	return fmt.Sprintf("tandem-demo: joined=%t ticks=%d frame=%d entities=%d own=(%.1f,%.1f) moved=%.1f rtt=%v loss=%.3f corrections=%d maxcorr=%.2f score=%d-%d",
		c.Session().State() == session.Playing || ticks > 0, ticks, g.World.Frame(), ns.Entities, own.X, own.Y, moved,
		ns.RTT.Round(100*time.Microsecond), ns.Loss, cs.Count, cs.Max, s.Left, s.Right)
}

package main

import (
	"fmt"
	"io"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/demo/netplay"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/launch"
)

// match is what the window and the headless loop drive: package launch's
// Match, a game played alone, hosted or joined as the flags say (its
// session, the host's save, listener and join lines, the logs, the restart
// signal, a clean Close), and what the demo measures of it for its summary
// line.
type match struct {
	*launch.Match[game.Input]
	moved *travel // a client's: how far its player's disc moved (nil alone or hosting)
}

// config is the match the flags describe.
func config(o options) netplay.Config {
	cfg := game.DefaultConfig()
	cfg.Crates = o.crates
	cfg.Props = o.props
	return netplay.Config{Match: cfg, Bots: o.bots, HostPlays: !o.headless, MaxPlayers: o.MaxPlayers}
}

// roomForSpectators is what the demo adds to the host's settings of the
// flags: room for as many spectators as players. A fleet's game server
// takes the same (runAgones).
func roomForSpectators(hc *tandem.HostConfig) { hc.Spectators = game.MaxPlayers }

// openMatch opens the match the flags say: hosted (the join lines on
// stdout), joined, or alone with the bots; the logs go to stderr. A client
// with -bot is played by a computer player.
func openMatch(o options, stdout, stderr io.Writer) (*match, error) {
	opts := launch.Options[game.Input]{World: saveWorld, Headless: o.headless, Host: roomForSpectators, Stdout: stdout, Stderr: stderr,
		NewWorld: []string{"props", "crates", "bots"}}
	if o.bot {
		opts.Client = func(cfg *tandem.ClientConfig[game.Input]) { cfg.Input = botInput() }
	}
	lm, err := launch.Open(o.Flags, netplay.New(config(o)), opts)
	if err != nil {
		return nil, err
	}
	m := &match{Match: lm}
	if c := lm.Client(); c != nil {
		m.moved = &travel{c: c}
		c.World().Schedule.AddTo(ecs.StageOutput, "demo.travel", ecs.SystemFunc(m.moved.measure))
	}
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

// travel adds up how far a client's player's disc moved while playing.
type travel struct {
	c     *tandem.Client[game.Input]
	units float64 // world units
	last  ecs.Transform
	ok    bool // last holds the disc's pose at the last step
}

// measure is a system of the client's world.
func (t *travel) measure(w *ecs.World) {
	e, ok := t.c.Local()
	if !ok || t.c.Frames() == 0 {
		t.ok = false
		return
	}
	pose := *(*ecs.Transform)(w.Arche().Get(e, w.IDs.Transform))
	if t.ok {
		t.units += dist(t.last, pose)
	}
	t.last, t.ok = pose, true
}

// summary is the one line printed at the end: on a host or alone the
// ticks, the score, the ball and the networked entities (a host adds its
// peers); on a client the join, the player's disc and the connection.
func (m *match) summary() string {
	if c := m.Client(); c != nil {
		return m.clientSummary(c)
	}
	played := m.Played()
	var line string
	m.Do(func(w *tandem.World) {
		g := game.Of(w)
		s := g.ScoreNow()
		b := g.Pose(g.Ball)
		line = fmt.Sprintf(appName+": ticks=%d frame=%d score=%d-%d ball=(%.1f,%.1f) moved=%.1f goals=%d drops=%d awake=%d reports=%d entities=%d",
			played, w.ECS.Frame(), s.Left, s.Right, b.X, b.Y, g.Stats.BallTravel, g.Stats.Goals, g.Stats.Drops, g.Space.Awake(), g.Stats.Reports, w.ECS.Networked())
	})
	if h := m.Host(); h != nil {
		hs := h.Stats()
		line += fmt.Sprintf(" peers=%d joined=%d left=%d resumes=%d", hs.Peers, hs.Joined, hs.Left, hs.Resumed)
	}
	return line
}

// clientSummary is a client's summary line.
func (m *match) clientSummary(c *tandem.Client[game.Input]) string {
	var line string
	m.Do(func(w *tandem.World) {
		g := game.Of(w)
		ns := c.Stats()
		own := ecs.Transform{}
		if e, ok := c.Local(); ok {
			own = g.Pose(e)
		}
		s := g.ScoreNow()
		simlock, drawlock := c.LockStats() // the longest since the start
		rtt := "none"                      // never measured: the connection's guess is no figure
		if ns.RTTSamples > 0 {
			rtt = ns.RTT.Round(100 * time.Microsecond).String()
		}
		line = fmt.Sprintf(appName+": joined=%t ticks=%d frame=%d entities=%d own=(%.1f,%.1f) moved=%.1f rtt=%s loss=%.3f corrections=%d maxcorr=%.2f score=%d-%d simlock=%v drawlock=%v resumes=%d peer=%d",
			c.Joined(), ns.Frames, ns.Frame, ns.Entities, own.X, own.Y, m.moved.units,
			rtt, ns.Loss, ns.Corrections.Count, ns.Corrections.Max, s.Left, s.Right,
			simlock.Round(10*time.Microsecond), drawlock.Round(10*time.Microsecond), ns.Resumes, w.Peer)
	})
	return line
}

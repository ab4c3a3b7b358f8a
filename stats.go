package tandem

import (
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
)

// NetStats are the figures of a client's net graph.
type NetStats struct {
	// State is where the client is in its session.
	State ClientState
	// RTT is the smoothed round trip to the host. A datagram is read at the
	// next step of the side it reaches, so the round trip includes about a
	// step of waiting in all (17 ms at 60 steps a second, on a link with no
	// latency of its own). Before the first measurement (RTTSamples 0) it is
	// the connection's assumed 200 ms (conn.Config.InitialRTT), a guess, as
	// for a client refused at once: a display shows none then. Loss is the recent fraction of the
	// client's datagrams lost on their way to the host (0..1), as the
	// host's acknowledgements tell; LossIn that of the host's lost on their
	// way here, as the client sees them arrive (what the render delay is
	// sized for).
	RTT          time.Duration
	Loss, LossIn float64
	// RTTSamples counts the round-trip measurements RTT is made of: 0 while
	// it is the connection's guess.
	RTTSamples uint64
	// KbitIn and KbitOut are the traffic of the last second, kbit/s, as
	// the game's connection counts it: the bytes of its datagrams and lane
	// messages. What the transport adds is not in them: over QUIC some 55
	// bytes a packet (UDP and IP headers, QUIC's header and frame, its
	// 16-byte tag) and QUIC's own acknowledgements, which make the wire
	// several times these figures where packets are small (a player
	// standing still, 60 inputs a second: 13.7 kbit/s counted out and 7.7
	// in, its own entity's state and the acknowledgements of its inputs).
	KbitIn, KbitOut float64
	// Corrections describes the pose corrections prediction made (of
	// ecs.Transform, PredictPose); Predict counts those of the velocity
	// (VelocityCorrections) and of the other components (ValueCorrections).
	Corrections CorrectionStats
	// Predict counts prediction and reconciliation.
	Predict predict.ClientStats
	// RenderDelay is how far behind the newest host state the client
	// expects to hold remote entities are drawn: the interpolator sets it
	// as it draws (View), so it is 0 until the first. It is counted from
	// the states' arrival: behind the host's present they are drawn by it
	// and the trip a state takes to come (about half the round trip) too;
	// View's Interpolator().RenderFrame() is the host frame drawn, for the
	// whole of it.
	RenderDelay time.Duration
	// Lead is how many frames the client runs ahead of the host, and
	// LeadTarget the lead it steers to.
	Lead, LeadTarget float64
	// HoldAfter is how long past a round trip the host may leave this
	// client's inputs unacknowledged (it is silent, or does not hear the
	// client) before the client holds its own entities, their Input the
	// zero input, not live, until the host answers again
	// (ClientConfig.Predict.HoldAfter, or its default for the jitter
	// measured); Predict.HeldFrames counts the frames held,
	// Predict.Holding says whether the last one was.
	HoldAfter time.Duration
	// Frame is the client's frame; Frames those simulated since the join
	// finished. Frame is numbered as the host's frames are, ahead of the
	// host's by Lead once in step, and runs on whatever the host sends: it
	// is the clock for a game's own timers on a client (a round's
	// countdown to a replicated end frame), where HostFrame stands still in
	// a still world; the world drawn is older, at the View's
	// Interpolator().RenderFrame().
	Frame  ecs.Frame
	Frames int
	// HostFrame is the newest host frame whose state the client applied (0
	// before its join ends) to an entity it does not predict: another's, or
	// its own marked ecs.HostMoved. It says how recent its picture of those
	// is (drawn RenderDelay later). A change the host made at frame
	// F comes in a state of F or later, so not before HostFrame reaches F,
	// and often after: a small change waits its turn (up to 8 send ticks
	// by its urgency, 16 far from what the client owns or at a low
	// HostConfig.Replication.Priority, longer when the budget is short), and a lost state's
	// changes go in a newer one. So a game or a test waits for the change
	// itself. (Its own entities are predicted: the host's values reach them
	// as corrections.) A host sends state when something the client holds
	// changed, and a few empty states as its world falls still (up to 8 send
	// ticks after the last state): then, while nothing changes, HostFrame
	// stays where it is.
	HostFrame ecs.Frame
	// Received and Total are the join's progress, entities: Total is what
	// the join brings, the entities in the client's scope on the host. Both
	// are 0 until the join's first page arrives (the connection and the
	// host's admission come first: a loading screen says "connecting" while
	// Total is 0).
	Received, Total int
	// Entities is the number of networked entities held.
	Entities int
	// Backlog is how many items (changes, spawns, entities entering the
	// client's scope, removals of those leaving it) the host held back for this client's state budget,
	// the most in one of its send ticks lately, as the host said (a
	// Backlog message, every quarter of a second or so while its budget is
	// full), and Budget that budget, kbit/s
	// (HostConfig.Replication.BitsPerSecond): both 0 once the host said
	// nothing is held back, or when its last word is four of its
	// intervals old (a second at the default rates). Above 0 the
	// budget is full: the entities held back go in later states, in turn,
	// and are drawn from older ones (dead-reckoned by their Velocity, see
	// interp) meanwhile. A host whose players see it often gives them a
	// larger budget, or sends each less: a smaller scope
	// (HostConfig.Replication.Interest), fewer moving entities in it.
	Backlog, Budget int
	// Bodies counts what the client did with networked bodies.
	Bodies RemoteStats
	// Replication counts what the client's replicator applied: spawns and
	// removals (entities entering and leaving its scope among them),
	// updates, components an entity lost (Dropped) or, on an entity this
	// client owns, gained (Gained) as the host's did.
	Replication replicate.ClientStats
	// Steps and Views are the longest time the simulation held the world
	// for a batch of steps, and drawing for a View, in the last one to two
	// seconds (0 when neither held it since): what the net graph shows now,
	// which a join's long steps leave after two seconds. The longest since
	// the client started: Client.LockStats. Timed on the machine's clock
	// (time.Now): inside a testing/synctest bubble they read 0.
	Steps, Views time.Duration
	// Resumes counts the times the connection broke and the client came
	// back as the same player; ReconnectLeft is, while State is
	// Reconnecting, how much of the host's grace window is left, counted
	// from when the client noticed the break (it tries for 5 s more after,
	// as the host may have noticed later); 0 for a client dialing again
	// before the host ever let it in (no window holds a player for it).
	Resumes       int
	ReconnectLeft time.Duration
	// RemovalsUndone counts the removals this client predicted
	// (World.Remove) that the host did not make in time, or whose
	// departure it took back: the entity shows again (World.Refused).
	RemovalsUndone uint64
}

// NetStats returns the client's figures. With the world free it reads them
// now; with the world held (inside a callback, a system, a hook or an
// observer, or while another goroutine steps the client) it returns them as
// the client last published them: at the end of its last Advance, Step,
// View or Do, the work Run does between steps, before its observers hear an
// event, and at Close. Safe from any goroutine, inside callbacks, hooks and
// observers too; it never waits for the world.
func (c *Client[I]) NetStats() NetStats {
	if c.mu.TryLock() {
		c.publish()
		c.mu.Unlock()
	}
	c.status.mu.Lock()
	defer c.status.mu.Unlock()
	return c.status.stats
}

// Stats returns the client's figures now, for the simulation goroutine:
// inside a View or Do callback, a system, a hook or an observer (the world
// must be held; elsewhere, NetStats).
func (c *Client[I]) Stats() NetStats {
	cn := c.session.Conn()
	in, out := cn.ByteRates()
	sy := c.pred.Sync().Stats()
	rec, tot := c.session.Progress()
	s := NetStats{
		State:          c.session.State(),
		RTT:            cn.RTT(),
		RTTSamples:     cn.RTTSamples(),
		Loss:           cn.LossRate(),
		LossIn:         cn.InLossRate(),
		KbitIn:         in * 8 / 1000,
		KbitOut:        out * 8 / 1000,
		Corrections:    c.corr.get(),
		Predict:        c.pred.Stats(),
		Lead:           sy.Lead,
		LeadTarget:     sy.Target,
		HoldAfter:      c.pred.HoldAfter(),
		Frame:          c.w.ECS.Frame(),
		Frames:         int(c.playing.Load()),
		Received:       rec,
		Total:          tot,
		Entities:       c.w.ECS.Networked(),
		Bodies:         c.phys.stats,
		Steps:          c.steps.lately(),
		Views:          c.views.lately(),
		Resumes:        c.resumes,
		ReconnectLeft:  c.session.ReconnectLeft(),
		RemovalsUndone: c.w.removals.undone,
	}
	if c.ip != nil {
		s.RenderDelay = c.ip.RenderDelay()
	}
	if r := c.session.Replicator(); r != nil {
		s.Replication = r.Stats()
		s.Backlog, s.Budget = r.Backlog()
		if r.Joined() {
			s.HostFrame = max(r.Frame(), r.HostMovedFrame())
		}
	}
	return s
}

package predict

import (
	"fmt"
	"log/slog"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// SetInput sets the input of the frame being simulated, records it, and (once
// joined) queues the KindInput message with it and the Redundancy-1 inputs
// before it. Call it once per frame in ecs.StageInput or early in
// ecs.StageSimulate. It returns the frame the input is stamped with.
//
// With ClientConfig.HostFrame set, until the client's frame is first in
// step with the host's (TimeSync's Synced: after joining, and after
// Rebase) its messages say so (unaligned, PROTOCOL.md §10): the host
// applies them, and they keep the host's answers coming that align the
// client's frame, but the host's game does not take them for the player's
// own (PeerInputs.Live). Once aligned, a message carries the inputs set
// since, none from before (after a jump of the client's frame too: the
// inputs set since the jump).
//
// An input the codec's Read would refuse, whole, once its Append wrote it
// (Read fails, or leaves bytes unread) is taken as the zero input instead,
// counted (ClientStats.RefusedInputs) and logged the first time: sent, the
// host would refuse each message that carries it (this frame's and the
// Redundancy-1 after it) as malformed, and drop the client after a few.
// Input returns what was taken.
//
// It decides too whether the frame is held (Held): the client unanswered
// for longer than ClientConfig.HoldAfter. A held frame's input is recorded and
// sent all the same.
func (c *Client[I]) SetInput(in I) ecs.Frame {
	f := c.w.Frame()
	s := c.hist.claim(f)
	c.hist.inputs[s] = in
	if !c.readable(&c.hist.inputs[s]) {
		var zero I
		c.hist.inputs[s] = zero
	}
	c.hist.flags[s] = c.hist.flags[s]&^recHeld | recInput
	c.hist.views[s] = c.viewNow(f)
	c.last = c.hist.inputs[s]
	if _, ok := c.local(); ok && c.cfg.Link != nil {
		c.hold(s)
		aligned := c.cfg.HostFrame == nil || c.sync.Stats().Synced
		if aligned && c.sendFrom == 0 {
			c.sendFrom = f
		}
		c.send(f, aligned)
	}
	return f
}

// hold marks the frame in slot s held if the client has been unanswered
// for longer than HoldAfter, and counts it.
func (c *Client[I]) hold(s int) {
	if !c.silent() {
		c.holding = false
		return
	}
	c.hist.flags[s] |= recHeld
	c.stats.HeldFrames++
	if !c.holding {
		c.holding = true
		c.stats.Holds++
	}
}

// silent reports whether the host has left the client unanswered for
// longer than HoldAfter past a round trip: a datagram of the client's in
// flight that long, none sent after it answered (one lost while the host
// answers those after it is no silence, though its loss is known only a
// round trip and the reorder window after it went); and once the link
// measured a round trip. The host is then silent, or it does not hear the
// client (a link dark one way, from the client): either way the player's
// inputs do not reach its simulation, which repeats her last one for a
// while and then stops her (HostInputConfig.MaxRepeat).
func (c *Client[I]) silent() bool {
	if c.cfg.HoldAfter < 0 {
		return false
	}
	h, ok := c.cfg.Link.(answering)
	if !ok {
		return false
	}
	if m, ok := c.cfg.Link.(measuring); ok && m.RTTSamples() == 0 {
		return false // the round trip is a guess: a slow link is not silent
	}
	sent, ok := h.UnansweredSince()
	if !ok {
		return false // nothing owed an answer
	}
	return c.clk.Now().Sub(sent)-c.cfg.Link.RTT() > c.HoldAfter()
}

// HoldAfter returns how long past a round trip the client goes unanswered
// before it holds its own entities: ClientConfig.HoldAfter, or its default
// for the jitter measured now (negative: never held).
func (c *Client[I]) HoldAfter() time.Duration {
	if c.cfg.HoldAfter != 0 {
		return c.cfg.HoldAfter
	}
	jitter := c.sync.Stats().Jitter * float64(c.cfg.Sync.Step)
	return max(DefaultHoldAfter, DefaultMaxRepeat*c.cfg.Sync.Step) + time.Duration(4*jitter)
}

// Held reports whether frame f is held: when its input was set, the client
// had been unanswered for longer than ClientConfig.HoldAfter (the host
// silent, or not hearing it). The owned
// entities then get the zero input, not live, in the frame and in a replay
// of it; the input recorded, the player's, went to the host all the same
// (Input and InputAt return it). A game that routes inputs itself gives a
// held frame's entities the zero input; tandem's client does.
func (c *Client[I]) Held(f ecs.Frame) bool {
	_, ok := c.hist.find(f, recHeld)
	return ok
}

// readable reports whether the codec's Read takes back, whole, what its
// Append writes of *in; if not, it counts the input as refused and says so
// through the logger the first time.
func (c *Client[I]) readable(in *I) bool {
	c.probe.buf = c.codec.Append(c.probe.buf[:0], in)
	c.probe.r.Reset(c.probe.buf)
	c.codec.read(&c.probe.r, &c.probe.in)
	err := c.probe.r.Finish()
	if err == nil {
		return true
	}
	c.stats.RefusedInputs++
	if c.stats.RefusedInputs == 1 {
		c.logger().Error("predict: the game's input codec refuses an input its own Append wrote; the zero input is sent in its place (and in every such input's): make Read accept every value Append writes, or keep such values out of SetInput (counted in ClientStats.RefusedInputs; tandem.NetStats.Predict.RefusedInputs)", "error", err)
	}
	return false
}

// InputLive reports whether the input recorded for frame f went to the
// host as the player's own: set once the client's frame was in step with the
// host's (SetInput), or without ClientConfig.HostFrame, whenever.
func (c *Client[I]) InputLive(f ecs.Frame) bool {
	return c.cfg.HostFrame == nil || c.sendFrom != 0 && f >= c.sendFrom
}

// send queues the input message of frame f: its input and those recorded
// before it; aligned, back to the first one set since the last alignment.
func (c *Client[I]) send(f ecs.Frame, aligned bool) {
	n := 0
	from := ecs.Frame(1)
	if aligned {
		from = max(c.sendFrom, 1)
	}
	for g := f; n < len(c.scratch) && g >= from; g-- {
		s, ok := c.hist.find(g, recInput)
		if !ok {
			break
		}
		c.scratch[n] = c.hist.inputs[s]
		n++
	}
	c.behinds = c.behinds[:0]
	for i := range n {
		g := f - ecs.Frame(i)
		c.behinds = append(c.behinds, behindOf(g, c.ViewAt(g)))
	}
	head := inputsHead{newest: f, unaligned: !aligned, behind: behindOf(f, c.ViewAt(f)), behinds: c.behinds}
	var k int
	c.msg, k = appendInputsOf(c.msg[:0], &c.codec, head, c.scratch[:n])
	if k == 0 {
		return
	}
	if err := c.cfg.Link.Queue(wire.KindInput, c.msg, 0); err != nil {
		c.stats.SendErrors++
		return
	}
	c.stats.InputMessages++
	if !aligned {
		c.stats.Unaligned++
	}
}

// Input returns the input of the frame being simulated: the one SetInput
// set, else the last one. The pointer is valid until the next SetInput.
func (c *Client[I]) Input() *I {
	if s, ok := c.hist.find(c.w.Frame(), recInput); ok {
		return &c.hist.inputs[s]
	}
	return &c.last
}

// InputAt returns the input recorded for frame f, or ok == false.
func (c *Client[I]) InputAt(f ecs.Frame) (*I, bool) {
	s, ok := c.hist.find(f, recInput)
	if !ok {
		return nil, false
	}
	return &c.hist.inputs[s], true
}

// ViewAt returns the host frame, with its fraction, at which the client drew
// the entities it does not predict as frame f's input was set
// (ClientConfig.View), f itself without a View or a record of f: what a hit
// test of frame f rewinds to, on the client as on the host.
func (c *Client[I]) ViewAt(f ecs.Frame) float64 {
	if s, ok := c.hist.find(f, recInput); ok {
		return c.hist.views[s]
	}
	return float64(f)
}

// viewNow is the view of frame f's input set now: ClientConfig.View's, no
// later than f; f itself without a View, or for a View that says NaN.
func (c *Client[I]) viewNow(f ecs.Frame) float64 {
	if c.cfg.View != nil {
		if v := c.cfg.View(); v < float64(f) {
			return v
		}
	}
	return float64(f)
}

// behindOf is how far view is behind frame f, in 1/ViewScale of a frame, as
// an Input message carries it: 0 for a view at or past f, at most
// maxBehind.
func behindOf(f ecs.Frame, view float64) uint32 {
	d := (float64(f) - view) * ViewScale
	switch {
	case !(d > 0): // NaN too
		return 0
	case d >= maxBehind:
		return maxBehind
	}
	return uint32(d + 0.5)
}

// maxBehind bounds an Input message's behind, in 1/ViewScale of a frame: as
// far back as any host rewinds (RewindLimit).
const maxBehind = RewindLimit * ViewScale

// Sync returns the time synchronization.
func (c *Client[I]) Sync() *TimeSync { return c.sync }

// begin is the input-stage system: a replay AuthState asked for, then the
// time synchronization (dilation, or a jump).
func (c *Client[I]) begin(w *ecs.World) {
	if _, ok := c.local(); !ok {
		return
	}
	if c.pending {
		c.pending = false
		if c.replayable(c.pendingFrom) {
			c.replay(c.pendingFrom, nil)
		}
		c.dropSnaps()
	}
	if len(c.newcomers) > 0 {
		c.adopt()
	}
	var rtt time.Duration
	var loss float64
	if c.cfg.Link != nil {
		rtt, loss = c.cfg.Link.RTT(), c.cfg.Link.LossRate()
	}
	jumps := c.sync.Stats().Jumps
	d, to, jump := c.sync.Update(c.clk.Now(), w.Frame(), rtt, loss)
	c.sched.SetDilation(d)
	if jump {
		if c.sync.Stats().Jumps > jumps {
			c.logJump(w.Frame(), to, rtt)
		}
		w.SetFrame(to)
		c.hist.clear()
		c.lastRecorded = 0
		c.sendFrom = 0
		c.pending = false
		c.dropSnaps()
	}
}

// jumpLogEvery is the least time between two warnings of a jump: a client
// too slow for its host (a test under the race detector) jumps again and
// again, and one line says how many.
const jumpLogEvery = 10 * time.Second

// logJump warns that the frame jumped from from to to, at most once every
// jumpLogEvery, saying how many jumps the quiet time held (TimeSync's
// Stats count every one).
func (c *Client[I]) logJump(from, to ecs.Frame, rtt time.Duration) {
	jl := &c.jumpLog
	now := c.clk.Now()
	if jl.logged && now.Sub(jl.at) < jumpLogEvery {
		jl.quiet++
		return
	}
	if jl.quiet > 0 {
		c.logger().Warn("predict: client frame jumped to keep its lead on the host", "from", from, "to", to, "rtt", rtt, "jumps_since_last_warning", jl.quiet)
	} else {
		c.logger().Warn("predict: client frame jumped to keep its lead on the host", "from", from, "to", to, "rtt", rtt)
	}
	jl.at, jl.quiet, jl.logged = now, 0, true
}

// record is the output-stage system: it samples the host's frame and records
// the frame's input and the state of every owned entity.
func (c *Client[I]) record(w *ecs.World) {
	p, ok := c.local()
	if !ok {
		return
	}
	now := c.clk.Now()
	if c.cfg.HostFrame != nil {
		c.observe(c.cfg.HostFrame(), now)
	}
	c.rollSecond(now)
	f := w.Frame()
	s := c.hist.claim(f)
	if c.hist.flags[s]&recInput == 0 {
		c.hist.inputs[s] = c.last
		c.hist.views[s] = c.viewNow(f)
		c.hist.flags[s] |= recInput
	}
	c.recordState(s, c.predicted(w, p))
	c.lastRecorded = f
	c.stats.Frames++
}

// predicted returns the entities peer p predicts: those it owns, but the
// ones marked ecs.HostMoved (the host alone moves them); w.Owned(p) itself
// when none is, else a buffer of c's reused by the next call.
func (c *Client[I]) predicted(w *ecs.World, p ecs.PeerID) []arche.Entity {
	owned := w.Owned(p)
	a, id := w.Arche(), w.IDs.HostMoved
	for k, e := range owned {
		if !a.Has(e, id) {
			continue
		}
		c.mine = append(c.mine[:0], owned[:k]...)
		for _, e := range owned[k+1:] {
			if !a.Has(e, id) {
				c.mine = append(c.mine, e)
			}
		}
		return c.mine
	}
	return owned
}

// recordState records the tracked components of owned into slot s.
func (c *Client[I]) recordState(s int, owned []arche.Entity) {
	h := &c.hist
	if len(owned) > c.cfg.MaxOwned {
		owned = owned[:c.cfg.MaxOwned]
		if c.err == nil {
			c.err = fmt.Errorf("%w (%d)", ErrTooManyOwned, c.cfg.MaxOwned)
		}
	}
	if len(owned) > h.stride {
		h.grow(len(owned), c.cfg.MaxOwned, c.tracks)
	}
	a := c.w.Arche()
	base := s * h.stride
	for k, e := range owned {
		at := base + k
		h.ents[at] = e
		var m uint16
		for _, t := range c.tracks {
			// Owned entities are alive: the unchecked get is nil for a
			// component the entity lacks.
			if p := a.GetUnchecked(e, t.id); p != nil {
				t.assign(t.store.at(at), p)
				m |= t.bit
			}
		}
		h.masks[at] = m
		h.skip[at] = 0
		h.compared[at] = false
	}
	h.counts[s] = int32(len(owned))
	h.flags[s] |= recState
}

// observe feeds the time synchronization a host frame received by now.
func (c *Client[I]) observe(f ecs.Frame, now time.Time) {
	if f > c.observed {
		c.observed = f
		c.sync.Observe(f, now)
	}
}

// rollSecond closes the correction count of each whole second.
func (c *Client[I]) rollSecond(now time.Time) {
	if c.secStart.IsZero() {
		c.secStart = now
		return
	}
	d := now.Sub(c.secStart)
	if d < time.Second {
		return
	}
	if d < 2*time.Second {
		c.stats.PerSecond = float64(c.secCount)
		c.secStart = c.secStart.Add(time.Second)
	} else {
		c.stats.PerSecond = 0
		c.secStart = now
	}
	c.secCount = 0
}

func (c *Client[I]) logger() *slog.Logger {
	if c.cfg.Logger != nil {
		return c.cfg.Logger
	}
	return slog.Default()
}

package netplay

import (
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/physics"
)

// maxHold bounds how long, in frames, a remote body the predicted player
// keeps touching is simulated by the client alone (see remotes) before it is
// put back on the host's state all the same.
const maxHold = 20

// maxAhead bounds how far a remote body is carried forward from its newest
// host state: about the round trip and lead of a 150 ms link. Carried further,
// a body guessed at by its velocity alone (a player turns) overlaps deeply
// what the predicted player is pressed against, and the physics pushes the
// player through walls.
const maxAhead = 250 * time.Millisecond

// remoteState is what a client knows of one networked slot: the newest host
// state of a remote body, and the teleport count last seen.
type remoteState struct {
	pose  ecs.Transform
	vel   ecs.Velocity
	frame ecs.Frame // the host frame of pose and vel
	body  bool      // a remote entity with a body: pose and vel are kept
	at    ecs.Frame // the frame the body was last put back
	// touched is the last client frame in which the predicted player
	// touched the body (0: not held), heldSince the first of the hold.
	touched, heldSince ecs.Frame
	seen               bool // teleport holds the entity's teleport count
	teleport           uint8
}

// remotes keeps a client's remote bodies on the host's state (see the
// package documentation) and turns teleport counts into
// ecs.Interpolated.Snap. It is the client replicator's Observer and passes
// every notice on to next (the interpolator).
//
// Between steps the Transform and Velocity of a remote entity hold the newest
// host state, as the replicator wrote it: the interpolator records them, and
// the game's systems (a bot steering for the ball) read them. Only the body
// differs: it is carried forward to the client's frame, or held.
//
// Memory: one remoteState per network slot, grown to the largest slot seen.
type remotes struct {
	w           *ecs.World
	space       *physics.Space
	local       func() ecs.PeerID
	localEntity func() arche.Entity
	next        replicate.Observer

	slots      []remoteState
	transforms generic.Map[ecs.Transform]
	velocities generic.Map[ecs.Velocity]
	interps    generic.Map[ecs.Interpolated]
	counts     generic.Map[Teleports]
	players    generic.Map[game.Player]
	bodyID     arche.ID
	step       float64        // seconds per frame
	moved      []arche.Entity // scratch of Update
	touch      func(*cp.Arbiter)
	localBody  *cp.Body // the predicted player's, during touch
	frame      ecs.Frame
	stats      RemoteStats
}

// RemoteStats counts what a client did with remote bodies.
type RemoteStats struct {
	// Put counts bodies put back on the host's state after a step moved
	// them; Holds counts holds begun (the predicted player touched a body).
	Put, Holds uint64
}

func newRemotes(w *ecs.World, space *physics.Space, local func() ecs.PeerID, localEntity func() arche.Entity, next replicate.Observer) *remotes {
	a := w.Arche()
	r := &remotes{
		w:           w,
		space:       space,
		local:       local,
		localEntity: localEntity,
		next:        next,
		transforms:  generic.NewMap[ecs.Transform](a),
		velocities:  generic.NewMap[ecs.Velocity](a),
		interps:     generic.NewMap[ecs.Interpolated](a),
		counts:      generic.NewMap[Teleports](a),
		players:     generic.NewMap[game.Player](a),
		bodyID:      space.BodyID(),
		step:        space.StepSeconds(),
	}
	r.touch = r.touched
	return r
}

func (r *remotes) slot(e arche.Entity) *remoteState {
	s, ok := r.w.NetSlot(e)
	if !ok {
		return nil
	}
	for int(s) >= len(r.slots) {
		r.slots = append(r.slots, remoteState{})
	}
	return &r.slots[s]
}

// Applied implements replicate.Observer: e's components now hold the host's
// state of frame f. A changed teleport count marks the state a teleport; the
// interpolator records the state; then the body is put where the client's
// physics needs it.
func (r *remotes) Applied(e arche.Entity, f ecs.Frame) {
	st := r.slot(e)
	if st != nil && r.counts.Has(e) {
		n := r.counts.Get(e).Count
		if st.seen && n != st.teleport && r.interps.Has(e) {
			r.interps.Get(e).Snap = true
		}
		st.seen, st.teleport = true, n
	}
	r.next.Applied(e, f)
	if st == nil {
		return
	}
	id, _ := r.w.Identity(e)
	st.body = id.Owner != r.local() && r.w.Arche().Has(e, r.bodyID) &&
		r.transforms.Has(e) && r.velocities.Has(e)
	if !st.body {
		st.touched = 0
		return
	}
	st.pose = *r.transforms.Get(e)
	st.vel = *r.velocities.Get(e)
	st.frame = f
	now := r.w.Frame() - 1 // the frame whose end the coming step starts from
	if st.touched != 0 && f < st.touched && now-st.heldSince <= maxHold {
		// The host has not yet seen the predicted player's touch: the
		// client's own simulation of the body is the better guess.
		return
	}
	st.touched = 0
	r.put(e, st, now)
}

// Removed implements replicate.Observer.
func (r *remotes) Removed(e arche.Entity) {
	if st := r.slot(e); st != nil {
		*st = remoteState{}
	}
	r.next.Removed(e)
}

// put puts e's body on the host state st holds, carried forward at its
// velocity to frame f (at most maxAhead); e's Transform and Velocity keep the
// host state itself.
func (r *remotes) put(e arche.Entity, st *remoteState, f ecs.Frame) {
	var dx, dy, da float64
	if f > st.frame && st.vel != (ecs.Velocity{}) {
		dt := min(float64(f-st.frame)*r.step, maxAhead.Seconds())
		dx, dy, da = st.vel.X*dt, st.vel.Y*dt, st.vel.Angular*dt
	}
	*r.transforms.Get(e) = st.pose
	// The bridge's way of moving a body without marking a teleport. It
	// writes the moved pose into the Transform, which goes back to the
	// host's.
	r.space.CorrectPose(e, dx, dy, da)
	*r.transforms.Get(e) = st.pose
	r.space.SetVelocity(e, st.vel)
}

// touched is the arbiter callback of the predicted player's body: the body
// at the other end, if it is a remote ball or crate, is held.
func (r *remotes) touched(arb *cp.Arbiter) {
	a, b := arb.Bodies()
	if a == r.localBody {
		a = b
	}
	e, ok := physics.EntityOf(a)
	if !ok {
		return
	}
	if r.players.Has(e) {
		// Someone else's inputs drive it: the client's simulation of it
		// is no better than the host's state carried forward.
		return
	}
	if st := r.slot(e); st != nil && st.body {
		if st.touched == 0 {
			st.heldSince = r.frame
			r.stats.Holds++
		}
		st.touched = r.frame
	}
}

// Update is the client system after the physics step. A remote ball or crate
// that the predicted player touched in the step is held: the client
// simulates it on its own until a host state from after the touch arrives
// (or maxHold frames passed), so a push looks to the predicted player as it
// does to the host.
// Every other remote body the step moved goes back on the newest host state,
// carried forward to the current frame. Either way the entity's Transform
// and Velocity go back to the host state. Cost: the bodies the step moved
// (the physics bridge reports each one) and the predicted player's contacts.
func (r *remotes) Update(w *ecs.World) {
	r.frame = w.Frame()
	if e := r.localEntity(); w.Alive(e) {
		if b := r.space.BodyOf(e); b != nil {
			r.localBody = b
			b.EachArbiter(r.touch)
			r.localBody = nil
		}
	}
	r.moved = r.moved[:0]
	for _, ch := range w.Journal().Changes(w) {
		if ch.Component != w.IDs.Transform && ch.Component != w.IDs.Velocity {
			continue
		}
		if int(ch.Slot) < len(r.slots) && r.slots[ch.Slot].body {
			r.moved = append(r.moved, ch.Entity)
		}
	}
	f := w.Frame()
	for _, e := range r.moved {
		st := r.slot(e)
		if st == nil || !st.body || st.at == f || !w.Alive(e) {
			continue
		}
		st.at = f
		if st.touched != 0 {
			*r.transforms.Get(e) = st.pose
			*r.velocities.Get(e) = st.vel
			continue
		}
		r.put(e, st, f)
		r.stats.Put++
	}
}

package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A turn whose state was lost goes again at once, even with a full budget:
// a client moves the entity on by the velocity it holds, straight past the
// corner, for as long as the turn waits its turn behind the backlog (a
// tower-defense trial under 5% loss drew creeps up to 212 units off their
// path at its corners, against 18 without loss).
func TestALostTurnGoesAgainAtOnce(t *testing.T) {
	m := newTurnMarch(t)
	// The turn: every message is lost until one carried the turner's new
	// state.
	m.turn()
	slot := m.r.slotOfEntity(m.turner)
	p := m.r.h.Peer(1)
	sends := p.slots[slot].sends
	for i := 0; p.slots[slot].sends == sends; i++ {
		if i > 120 {
			t.Fatal("the turn never went")
		}
		m.step(true)
	}
	// At the next send tick that has the budget for a message (50 bytes a
	// tick, spent on the lost ones): three at most. (Waiting its turn, 60.)
	if ticks := m.ticksToTurn(); ticks > 3 {
		t.Fatalf("the lost turn reached the client %d send ticks after its loss was known; want at the next the budget allows", ticks)
	}
}

// turnMarch is 300 marchers on a full budget (24 kbit/s, a send tick a
// step), marched 120 steps, the middle one (turner) to turn.
type turnMarch struct {
	r      *rig
	ents   []arche.Entity
	turner arche.Entity
	turned bool
}

func newTurnMarch(t *testing.T) *turnMarch {
	m := &turnMarch{r: newRig(t, HostConfig{BitsPerSecond: 24_000, SendEvery: 1})}
	m.ents = m.r.marchers(300)
	m.turner = m.ents[len(m.ents)/2]
	for range 120 {
		m.step(false)
	}
	return m
}

// step marches them a step (the turner along y once it turned), steps the
// host, and delivers what it sent, or loses it.
func (m *turnMarch) step(lose bool) {
	r := m.r
	r.march(m.ents, func(e arche.Entity) bool { return e == m.turner && m.turned })
	if m.turned {
		r.tf.Get(m.turner).Y += 2
		ecs.MutateComponent(r.w, m.turner, r.w.IDs.Transform)
	}
	r.stepSend(lose)
}

// turn turns the turner along y from now on, at the same speed.
func (m *turnMarch) turn() {
	_, v, _ := m.r.m.Get(m.turner)
	*v = ecs.Velocity{Y: 120}
	ecs.MutateComponent(m.r.w, m.turner, m.r.w.IDs.Velocity)
	m.turned = true
}

// ticksToTurn steps, delivering, until the client holds the turner's new
// velocity, 60 send ticks at most, and returns how many it took.
func (m *turnMarch) ticksToTurn() int {
	ticks := 0
	for ; ticks < 60 && m.r.clientVelocity(m.turner).Y != 120; ticks++ {
		m.step(false)
	}
	return ticks
}

// A body whose lost state only sped it up along its way has not turned:
// it is listed again as lost items are, not ahead of every stop and spawn
// (a physics scene after a burst of loss would have put every falling
// body there, in id order).
func TestALostSpeedUpIsNoTurn(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    ecs.Velocity
		stop bool
	}{
		{"sped up", ecs.Velocity{X: 240}, false},
		{"turned", ecs.Velocity{X: 60, Y: 110}, true},
		{"turned back", ecs.Velocity{X: -120}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, HostConfig{SendEvery: 1})
			ents := r.marchers(3)
			r.settle() // the client holds them marching along x
			e := ents[1]
			_, v, _ := r.m.Get(e)
			*v = tc.v
			ecs.MutateComponent(r.w, e, r.w.IDs.Velocity)
			r.s.Step()
			for _, i := range r.next() {
				r.lose(i)
			}
			if got := r.h.Peer(1).slots[r.slotOfEntity(e)].prio == prioStop; got != tc.stop {
				t.Fatalf("its lost state listed first (as a stop): %v, want %v", got, tc.stop)
			}
		})
	}
}

// clientVelocity returns the velocity the client holds of the host's
// entity e.
func (r *rig) clientVelocity(e arche.Entity) ecs.Velocity {
	ce, _ := r.cw.EntityOf(mustID(r.w, e))
	return *(*ecs.Velocity)(r.cw.Arche().Get(ce, r.cw.IDs.Velocity))
}

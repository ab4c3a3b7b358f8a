package tandem

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
)

// rewindRig is a host's world keeping 10 frames of poses, one step a frame.
type rewindRig struct {
	w     *World
	rw    *rewinder
	sched *ecs.Schedule
	make  *generic.Map3[ecs.Transform, ecs.NetworkIdentity, LagCompensated]
	next  func(ew *ecs.World) // what the next step runs
}

func newRewindRig() *rewindRig {
	w := &World{ECS: ecs.NewWorld()}
	w.ECS.SetJournaled(w.ECS.IDs.Transform)
	w.Schedule = ecs.NewSchedule(w.ECS, clock.NewFake(time.Unix(0, 0)), 0)
	rw := newRewinder(w, 10, nil)
	w.Schedule.AddTo(ecs.StageOutput, "tandem.rewind", rw)
	w.seen = rw.seenAt
	m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, LagCompensated](w.ECS.Arche())
	r := &rewindRig{w: w, rw: rw, sched: w.Schedule, make: &m}
	w.Schedule.Add("game", ecs.SystemFunc(func(ew *ecs.World) {
		if r.next != nil {
			r.next(ew)
		}
	}))
	return r
}

// step runs one frame, calling fn in it first.
func (r *rewindRig) step(fn func(ew *ecs.World)) {
	r.next = fn
	r.sched.Step()
}

func (r *rewindRig) seen(t *testing.T, e arche.Entity, view float64) (float64, bool) {
	t.Helper()
	p, ok := r.w.Seen(e, view)
	return p.X, ok
}

// Seen on the host gives a marked entity's pose at the view, between two
// frames as a client draws it; not across a teleport; not before it was
// made; the oldest kept for a view older than that; and the Transform now
// for an entity not marked. The ring of an entity gone is taken by the next.
func TestSeenRewindsTheMarkedEntities(t *testing.T) {
	r := newRewindRig()
	var old, plain arche.Entity
	r.step(func(ew *ecs.World) {
		old = r.make.NewWith(&ecs.Transform{X: 0}, &ecs.NetworkIdentity{}, &LagCompensated{})
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](ew.Arche())
		plain = m.NewWith(&ecs.Transform{X: 0}, &ecs.NetworkIdentity{})
	})
	move := func(e arche.Entity, x float64) func(ew *ecs.World) {
		return func(ew *ecs.World) {
			ecs.Mutate[ecs.Transform](ew, e).X = x
		}
	}
	for f := 2; f <= 6; f++ { // x = 10 (f−1) at frame f
		r.step(func(ew *ecs.World) {
			move(old, float64(10*(f-1)))(ew)
			move(plain, float64(10*(f-1)))(ew)
		})
	}
	var born arche.Entity
	r.step(func(ew *ecs.World) { // frame 7: a teleport, and a spawn
		ecs.Mutate[ecs.Transform](ew, old).X = 500
		ecs.ReportTeleport(ew, old)
		born = r.make.NewWith(&ecs.Transform{X: 7}, &ecs.NetworkIdentity{}, &LagCompensated{})
	})
	r.step(move(old, 510)) // frame 8
	for _, c := range []struct {
		e    arche.Entity
		view float64
		x    float64
		ok   bool
	}{
		{old, 3, 20, true},
		{old, 3.25, 22.5, true}, // between frames 3 and 4
		{old, 6.5, 50, true},    // the teleport at 7 is not drawn between
		{old, 7.5, 505, true},
		{old, 8, 510, true},
		{old, 20, 510, true},        // the present, or past it: as it is
		{plain, 3, 510 - 460, true}, // not marked: its Transform now (50)
		{born, 6.5, 0, false},       // not made yet
		{born, 7.25, 7, true},
	} {
		x, ok := r.seen(t, c.e, c.view)
		if ok != c.ok || ok && x != c.x {
			t.Errorf("entity %v at view %v: x %v, %v; want %v, %v", c.e, c.view, x, ok, c.x, c.ok)
		}
	}
	// In a step, between the last step's frame and the present: from the
	// pose recorded to where the step has moved it so far.
	var mid float64
	r.step(func(ew *ecs.World) {
		ecs.Mutate[ecs.Transform](ew, old).X = 530
		p, _ := r.w.Seen(old, float64(ew.Frame())-0.25)
		mid = p.X
	})
	if mid != 525 {
		t.Errorf("a quarter frame back within a step: x %v, want 525 (from 510 to 530)", mid)
	}
	// Frames older than the twelve kept (the ten and two): the oldest
	// kept, frame 7's.
	for range 9 {
		r.step(nil)
	}
	if x, ok := r.seen(t, old, 2); !ok || x != 500 {
		t.Errorf("a view older than what is kept: x %v, %v; want the oldest kept, 500", x, ok)
	}
	// Gone: not seen, and its ring goes to the next marked entity.
	r.step(func(ew *ecs.World) { ew.Arche().RemoveEntity(old) })
	if _, ok := r.seen(t, old, float64(r.w.ECS.Frame()-2)); ok {
		t.Error("an entity gone is seen")
	}
	rings := len(r.rw.rings)
	var next arche.Entity
	r.step(func(ew *ecs.World) {
		next = r.make.NewWith(&ecs.Transform{X: 1}, &ecs.NetworkIdentity{}, &LagCompensated{})
	})
	if len(r.rw.rings) != rings {
		t.Errorf("a new marked entity made a ring (%d, was %d), with one free", len(r.rw.rings), rings)
	}
	r.step(move(next, 3))
	if x, ok := r.seen(t, next, float64(r.w.ECS.Frame())-0.5); !ok || x != 2 {
		t.Errorf("the new entity between its first two frames: %v, %v; want 2", x, ok)
	}
	if _, ok := r.seen(t, next, float64(r.w.ECS.Frame())-1.5); ok {
		t.Error("the new entity is seen before it was made, in the ring of one gone")
	}
}

// Recording the poses allocates nothing once every marked entity has its
// ring.
func TestRewinderAllocatesNothing(t *testing.T) {
	r := newRewindRig()
	var es []arche.Entity
	r.step(func(*ecs.World) {
		for i := range 50 {
			es = append(es, r.make.NewWith(&ecs.Transform{X: float64(i)}, &ecs.NetworkIdentity{}, &LagCompensated{}))
		}
	})
	rec := func() {
		for _, e := range es {
			ecs.Mutate[ecs.Transform](r.w.ECS, e).X++
		}
		r.rw.Update(r.w.ECS)
		r.w.Seen(es[7], float64(r.w.ECS.Frame())-3.5)
	}
	rec()
	if n := testing.AllocsPerRun(100, rec); n != 0 {
		t.Fatalf("%v allocations a step", n)
	}
}

// An entity removed and one made in the same step, which takes its id (a
// player killed and made again): the new one is rewound from then on.
func TestSeenRewindsAnEntityMadeAsAnotherWent(t *testing.T) {
	r := newRewindRig()
	var old, next arche.Entity
	r.step(func(*ecs.World) {
		old = r.make.NewWith(&ecs.Transform{X: 1}, &ecs.NetworkIdentity{}, &LagCompensated{})
	})
	r.step(func(ew *ecs.World) {
		ew.Arche().RemoveEntity(old)
		next = r.make.NewWith(&ecs.Transform{X: 100}, &ecs.NetworkIdentity{}, &LagCompensated{})
	})
	if next.ID() != old.ID() {
		t.Fatalf("the new entity has id %d, the gone one %d: the test needs them alike", next.ID(), old.ID())
	}
	for x := 110.0; x <= 130; x += 10 {
		r.step(func(ew *ecs.World) { ecs.Mutate[ecs.Transform](ew, next).X = x })
	}
	if x, ok := r.seen(t, next, float64(r.w.ECS.Frame())-1.5); !ok || x != 115 {
		t.Fatalf("the new entity a frame and a half back: %v, %v; want 115", x, ok)
	}
}

package replicate

import (
	"math/rand/v2"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// propWorld is a host of 100,000 still props over 40,000 units square (the
// default interest: a square of 4,551 of them around a point), stepped once
// so that its replicator holds them, and its step delivering every datagram
// of peer 1, if added through it, before the next (a perfect link).
type propWorld struct {
	w   *ecs.World
	h   *HostReplicator
	s   *ecs.Schedule
	m   *generic.Map3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity]
	out *ackOut
}

const propSide, propCount = 40_000.0, 100_000

func newPropWorld() *propWorld {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	scatter(&m, rand.New(rand.NewPCG(1, 2)), propCount, propSide)
	sw := &propWorld{w: w, h: NewHost(reg, HostConfig{}), s: ecs.NewSchedule(w, nil, 0), m: &m, out: &ackOut{}}
	sw.s.Add("replicate", sw.h)
	sw.s.Step()
	return sw
}

// scatter makes n networked props of m's world at random over side × side
// units.
func scatter(m *generic.Map3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity], rng *rand.Rand, n int, side float64) {
	q := m.NewBatchQ(n)
	for q.Next() {
		t, _, _ := q.Get()
		t.X, t.Y = rng.Float64()*side, rng.Float64()*side
	}
}

// player makes an entity of peer 1 at (x, y).
func (sw *propWorld) player(x, y float64) arche.Entity {
	return sw.m.NewWith(&ecs.Transform{X: x, Y: y}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
}

// join adds peer 1 and steps until its join is done.
func (sw *propWorld) join() *HostPeer {
	p := sw.h.AddPeer(1, sw.out)
	for p.Joining() {
		sw.step()
	}
	return p
}

func (sw *propWorld) step() {
	sw.s.Step()
	for _, t := range sw.out.tokens {
		sw.h.Delivered(1, t)
	}
	sw.out.tokens = sw.out.tokens[:0]
}

// BenchmarkAdmit measures a peer's admission to a world of 100,000 props.
// owning: AddPeer alone, for a peer that owns a player already (a resume),
// so its scope is drawn at once. spawned: AddPeer and the step that takes
// in the player the game made for it as it came (a Join hook), which draws
// its scope, and begins its join. The peer is removed again outside the
// timer.
func BenchmarkAdmit(b *testing.B) {
	b.Run("owning/entities-100000", func(b *testing.B) {
		sw := newPropWorld()
		sw.player(propSide/2, propSide/2)
		sw.s.Step()
		var scoped int
		b.ReportAllocs()
		for b.Loop() {
			p := sw.h.AddPeer(1, &sink{})
			scoped = p.join.scoped
			b.StopTimer()
			sw.h.RemovePeer(1)
			b.StartTimer()
		}
		if scoped == 0 || scoped >= propCount {
			b.Fatalf("the peer's scope holds %d of %d entities", scoped, propCount+1)
		}
		b.ReportMetric(float64(scoped), "scoped")
	})
	b.Run("spawned/entities-100000", func(b *testing.B) {
		sw := newPropWorld()
		var scoped int
		b.ReportAllocs()
		for b.Loop() {
			p := sw.h.AddPeer(1, &sink{})
			e := sw.player(propSide/2, propSide/2)
			sw.s.Step()
			b.StopTimer()
			scoped = p.Held()
			sw.h.RemovePeer(1)
			sw.w.Arche().RemoveEntity(e)
			sw.s.Step()
			b.StartTimer()
		}
		if scoped == 0 || scoped >= propCount {
			b.Fatalf("the peer's scope holds %d of %d entities", scoped, propCount+1)
		}
		b.ReportMetric(float64(scoped), "scoped")
	})
}

// BenchmarkFirstSquare measures the step in which a peer that joined owning
// nothing, and so holds all 100,000 props, gets its player: the 95,000 its
// square leaves out are removed from it. The join is outside the timer.
func BenchmarkFirstSquare(b *testing.B) {
	sw := newPropWorld()
	var queued int
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		p := sw.join()
		e := sw.player(propSide/2, propSide/2)
		b.StartTimer()
		sw.step()
		b.StopTimer()
		queued = len(p.despawns)
		sw.h.RemovePeer(1)
		sw.w.Arche().RemoveEntity(e)
		sw.s.Step()
		b.StartTimer()
	}
	if queued < propCount/2 {
		b.Fatalf("%d removals queued by the first square", queued)
	}
	b.ReportMetric(float64(queued), "removals")
}

// BenchmarkTeleport measures the step in which a synced peer's player jumps
// across the world of 100,000 props: its whole scope leaves and another
// enters.
func BenchmarkTeleport(b *testing.B) {
	sw := newPropWorld()
	pl := sw.player(propSide/4, propSide/4)
	tf := generic.NewMap[ecs.Transform](sw.w.Arche())
	p := sw.join()
	for range 60 {
		sw.step()
	}
	far := false
	entered := p.Stats().Entered
	b.ReportAllocs()
	for b.Loop() {
		far = !far
		t := tf.Get(pl)
		t.X, t.Y = propSide/4, propSide/4
		if far {
			t.X, t.Y = 3*propSide/4, 3*propSide/4
		}
		ecs.MutateComponent(sw.w, pl, sw.w.IDs.Transform)
		sw.step()
		b.StopTimer()
		for range 30 {
			sw.step()
		}
		b.StartTimer()
	}
	in := float64(p.Stats().Entered-entered) / float64(b.N)
	if in < 1000 {
		b.Fatalf("%.0f entities entered the peer's scope a jump", in)
	}
	b.ReportMetric(in, "entered/op")
}

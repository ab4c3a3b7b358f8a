package replicate

import (
	"math/rand/v2"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// TestMeasurePrevIsTheGeneralMeasure checks, between the steps of a host
// whose entities change one component or both, several times a send tick,
// some removed and others made in their slots, with a second peer joining
// midway (its pages mark images sent between send ticks), and whose
// datagrams are lost at random, that every pending entity measurePrev can
// measure is measured as urgency and diffPrev measure it, and the same with
// or without reading only the changed components' fields (eSwapped).
func TestMeasurePrevIsTheGeneralMeasure(t *testing.T) {
	host := newScene(11, 200)
	host.still = true
	vel := generic.NewMap[ecs.Velocity](host.w.Arche())
	rng := rand.New(rand.NewPCG(5, 6))
	h := NewHost(host.reg, HostConfig{SendEvery: 3})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("move", ecs.SystemFunc(func(w *ecs.World) {
		if rng.IntN(3) == 0 { // a removal, and a spawn that may take its slot
			i := rng.IntN(len(host.live))
			w.Arche().RemoveEntity(host.live[i])
			host.live[i] = host.live[len(host.live)-1]
			host.live = host.live[:len(host.live)-1]
			host.spawn()
		}
		for range 30 {
			e := host.live[rng.IntN(len(host.live))]
			switch rng.IntN(4) {
			case 0: // the velocity alone
				vel.Get(e).X += rng.NormFloat64()
				ecs.MutateComponent(w, e, w.IDs.Velocity)
			case 1: // both
				vel.Get(e).Y += rng.NormFloat64()
				ecs.MutateComponent(w, e, w.IDs.Velocity)
				fallthrough
			default: // the pose, by a little or a lot
				tf := host.tf.Get(e)
				tf.X += rng.NormFloat64() * float64(1+rng.IntN(2)*40)
				tf.Angle = float64(rng.IntN(7)) - 3
				ecs.MutateComponent(w, e, w.IDs.Transform)
			}
		}
	})).Add("replicate", h)
	c := newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1})
	l := &link{rng: rand.New(rand.NewPCG(7, 8)), loss: 0.2, delay: 2, jitter: 1, peer: 1}
	h.AddPeer(1, l)
	c2 := newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 2})
	l2 := &link{rng: rand.New(rand.NewPCG(9, 10)), delay: 1, peer: 2}
	measured, swapped := 0, 0
	for step := range 1200 {
		if step == 600 {
			h.AddPeer(2, l2)
		}
		host.sched.Step()
		l.step(t, h, c)
		if step >= 600 {
			l2.step(t, h, c2)
		}
		for _, slot := range h.pending {
			e := h.ents[slot]
			if e.flags&eLive == 0 || e.pend == 0 {
				continue
			}
			fast := e
			if !h.measurePrev(&fast, slot) {
				continue
			}
			measured++
			full := e
			full.flags &^= eSwapped
			h.measurePrev(&full, slot)
			want, wantDiff := h.urgency(slot), h.diffPrev(slot)
			if e.flags&eSwapped != 0 {
				swapped++
			}
			if int(fast.urg) != want || fast.dprev != wantDiff || full.urg != fast.urg || full.dprev != fast.dprev {
				t.Fatalf("entity %d (pend %b, swapped %t): measured urgency %d, components %b; all fields %d, %b; urgency and diffPrev %d, %b",
					e.id, e.pend, e.flags&eSwapped != 0, fast.urg, fast.dprev, full.urg, full.dprev, want, wantDiff)
			}
		}
	}
	if measured < 1000 || swapped < measured/4 || swapped == measured {
		t.Fatalf("measured %d pending entities, %d of them with the previous image taken this send tick: the test reaches too few of either", measured, swapped)
	}
	if !c2.Joined() || c2.w.Networked() != host.w.Networked() {
		t.Fatalf("the second peer joined %t, holding %d entities of the host's %d", c2.Joined(), c2.w.Networked(), host.w.Networked())
	}
	t.Logf("measured %d, %d swapped", measured, swapped)
}

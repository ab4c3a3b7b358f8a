package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// teleport moves the host's entity e to x and reports it a teleport.
func (r *rig) teleport(e arche.Entity, x float64) {
	r.tf.Get(e).X = x
	ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	ecs.ReportTeleport(r.w, e)
}

// drawn returns the client's Interpolated of the host's entity e, which
// says whether the client draws its newest pose as a jump (Snap).
func (r *rig) drawn(e arche.Entity) *ecs.Interpolated {
	r.t.Helper()
	ce, ok := r.cw.EntityOf(mustID(r.w, e))
	if !ok {
		r.t.Fatal("the client does not hold the entity")
	}
	ip := (*ecs.Interpolated)(r.cw.Arche().Get(ce, r.cw.IDs.Interpolated))
	if ip == nil {
		r.t.Fatal("the client does not interpolate the entity")
	}
	return ip
}

// clientX returns the x the client holds of the host's entity e.
func (r *rig) clientX(e arche.Entity) float64 {
	ce, _ := r.cw.EntityOf(mustID(r.w, e))
	return (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X
}

// A teleport whose item goes out as a spawn of an entity the client holds
// (a re-spawn: for an owner change or a component's removal in the same
// step, or while an earlier spawn of it is still in flight) is drawn as a
// jump, as one that goes out as an update is; a re-spawn without a
// teleport, or of a teleport the client already drew, is not.
func TestTeleportInARespawnIsDrawnAsAJump(t *testing.T) {
	for _, tc := range []struct {
		name string
		// before runs before the teleport's step, and returns the messages
		// in flight then, which reach the client before the teleport's.
		before func(r *rig, e arche.Entity) []int
		// with runs in the teleport's step, before the teleport.
		with     func(r *rig, e arche.Entity)
		teleport bool
		jump     bool
	}{
		{name: "owner changed in the same step", teleport: true, jump: true,
			with: func(r *rig, e arche.Entity) { ecs.SetOwner(r.w, e, 2) }},
		{name: "owner changed a step before, its spawn in flight", teleport: true, jump: true,
			before: func(r *rig, e arche.Entity) []int {
				ecs.SetOwner(r.w, e, 2)
				r.s.Step()
				return r.next()
			}},
		{name: "owner changed five steps before, its spawns in flight", teleport: true, jump: true,
			before: func(r *rig, e arche.Entity) []int {
				ecs.SetOwner(r.w, e, 2)
				for range 5 {
					r.s.Step()
				}
				return r.next()
			}},
		{name: "a component removed in the same step", teleport: true, jump: true,
			with: func(r *rig, e arche.Entity) { toggle(r.w, e, r.w.IDs.Velocity, func() {}) }},
		{name: "a component added in the same step", teleport: true, jump: true,
			before: func(r *rig, e arche.Entity) []int {
				toggle(r.w, e, r.w.IDs.Velocity, func() {})
				r.settle()
				r.drawn(e).Snap = false
				return nil
			},
			with: func(r *rig, e arche.Entity) {
				toggle(r.w, e, r.w.IDs.Velocity, func() { (*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity)).X = 3 })
			}},
		{name: "owner changed without a teleport", jump: false,
			with: func(r *rig, e arche.Entity) {
				ecs.SetOwner(r.w, e, 2)
				r.move(e, 20)
			}},
		{name: "a component removed without a teleport", jump: false,
			with: func(r *rig, e arche.Entity) {
				toggle(r.w, e, r.w.IDs.Velocity, func() {})
				r.move(e, 20)
			}},
		{name: "owner changed after the teleport was drawn", jump: false,
			before: func(r *rig, e arche.Entity) []int {
				r.teleport(e, 20)
				r.s.Step()
				for _, i := range r.next() {
					r.deliver(i)
				}
				if ip := r.drawn(e); !ip.Snap {
					t.Fatal("the teleport's update was not drawn as a jump")
				}
				r.drawn(e).Snap = false
				return nil
			},
			with: func(r *rig, e arche.Entity) { ecs.SetOwner(r.w, e, 2) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, HostConfig{})
			e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			r.settle()
			r.drawn(e).Snap = false // the spawn's, drawn
			var early []int
			if tc.before != nil {
				early = tc.before(r, e)
			}
			if tc.with != nil {
				tc.with(r, e)
			}
			if tc.teleport {
				r.teleport(e, 20)
			}
			r.s.Step()
			late := r.next()
			for _, i := range early {
				r.deliver(i)
			}
			if r.drawn(e).Snap {
				t.Fatal("drawn as a jump before the teleport arrived")
			}
			snaps := r.c.Stats().Snaps
			for _, i := range late {
				r.deliver(i)
			}
			if x := r.clientX(e); x != 20 {
				t.Fatalf("the client holds x=%v, want 20", x)
			}
			if got := r.drawn(e).Snap; got != tc.jump {
				t.Fatalf("drawn as a jump: %v, want %v", got, tc.jump)
			}
			if tc.jump && r.c.Stats().Snaps != snaps+1 {
				t.Fatalf("%d snaps counted, want one", r.c.Stats().Snaps-snaps)
			}
		})
	}
}

// A teleport of an entity whose spawn, as it entered the client's scope,
// is still in flight, or that comes back into scope before the removal it
// left with reached the client, is drawn as a jump there.
func TestTeleportEnteringScopeIsDrawnAsAJump(t *testing.T) {
	cfg := HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}}
	t.Run("spawn in flight", func(t *testing.T) {
		r := newRig(t, cfg)
		r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
		e := r.m.NewWith(&ecs.Transform{X: 1100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		r.settle()
		if _, ok := r.cw.EntityOf(mustID(r.w, e)); ok {
			t.Fatal("the client holds an entity out of its scope")
		}
		r.move(e, -900) // x = 200: in scope
		r.s.Step()
		entered := r.next()
		r.teleport(e, 300)
		r.s.Step()
		late := r.next()
		for _, i := range entered {
			r.deliver(i)
		}
		if x := r.clientX(e); x != 200 {
			t.Fatalf("the client holds x=%v after the entering spawn, want 200", x)
		}
		r.drawn(e).Snap = false // the entering spawn's, drawn
		for _, i := range late {
			r.deliver(i)
		}
		if x, ip := r.clientX(e), r.drawn(e); x != 300 || !ip.Snap {
			t.Fatalf("the client holds x=%v, drawn as a jump: %v; want x=300 and a jump", x, ip.Snap)
		}
	})
	t.Run("back before its removal", func(t *testing.T) {
		r := newRig(t, cfg)
		r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
		e := r.m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		r.settle()
		r.drawn(e).Snap = false
		r.teleport(e, 1100) // out of scope
		r.s.Step()
		removal := r.next()
		r.teleport(e, 300) // back, elsewhere
		r.s.Step()
		back := r.next()
		for _, i := range back {
			r.deliver(i)
		}
		if x, ip := r.clientX(e), r.drawn(e); x != 300 || !ip.Snap {
			t.Fatalf("the client holds x=%v, drawn as a jump: %v; want x=300 and a jump", x, ip.Snap)
		}
		for _, i := range removal {
			r.deliver(i) // older than the spawn it came back with: ignored
		}
		r.settle()
		if x := r.clientX(e); x != 300 {
			t.Fatalf("the client holds x=%v, want 300", x)
		}
	})
}

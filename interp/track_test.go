package interp

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// scale is a game component drawn blended, beside the pose.
type scale struct{ S float64 }

func blendScale(a, b scale, alpha float64) scale { return scale{a.S + (b.S-a.S)*alpha} }

// A Track blends a game's component between the same two states as the pose.
func TestTrackBlendsWithPose(t *testing.T) {
	r := newRig(t, Config{})
	tr := NewTrack(r.ip, blendScale)
	sc := r.w.Arche() // component registered by NewTrack
	e := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	id := tr.id
	sc.Add(e, id)
	l := link{latency: 40 * time.Millisecond}
	checked := 0
	r.play(l.sends(2, 600, 2), 144, 10*time.Second, func(f ecs.Frame) {
		(*scale)(sc.Get(e, id)).S = float64(f) / 10
		r.apply(e, f, ecs.Transform{X: float64(f)})
	}, func(now time.Duration) {
		if now < time.Second {
			return
		}
		p := r.pose(e)
		s, ok := tr.Get(e)
		if !ok || math.Abs(s.S-p.X/10) > 1e-9 {
			t.Fatalf("scale %v (ok %v) drawn with pose %v: not blended alike", s, ok, p)
		}
		checked++
	})
	if checked == 0 {
		t.Fatal("nothing checked")
	}
	r.ip.SetEnabled(false)
	r.ip.Update(r.clk.Now())
	if s, want := must(tr.Get(e)), float64(r.ip.Stats().Newest)/10; s.S != want {
		t.Fatalf("interpolation off: scale %v, want the newest %v", s, want)
	}
	local := r.spawn(1, false, ecs.Transform{})
	sc.Add(local, id)
	(*scale)(sc.Get(local, id)).S = 3
	if s, ok := tr.Get(local); !ok || s.S != 3 {
		t.Fatalf("local entity: %v %v, want its component as is", s, ok)
	}
}

func must[T any](v T, ok bool) T {
	if !ok {
		panic("not found")
	}
	return v
}

// An entity without a Transform is drawn for its Tracks alone: with a Track
// it is remote (its component blended like a posed one's), has no pose;
// without any Track it is not recorded at all. One that gains a Transform
// later is drawn at its first pose, not blended from the origin.
func TestTrackWithoutAPose(t *testing.T) {
	spawnBare := func(r *rig, id arche.ID) arche.Entity {
		w := r.w
		e := w.Arche().NewEntity(w.IDs.NetworkIdentity, w.IDs.Interpolated, id)
		ecs.SetOwner(w, e, ecs.HostPeer)
		return e
	}
	// No Track: nothing to draw it for.
	r := newRig(t, Config{})
	bare := spawnBare(r, arche.ComponentID[scale](r.w.Arche()))
	r.ip.Applied(bare, 2)
	r.ip.Update(r.clk.Now())
	if r.ip.Remote(bare) || r.ip.Stats().Remote != 0 {
		t.Fatalf("without a Track an entity without a pose is drawn from states: remote %t, stats %+v", r.ip.Remote(bare), r.ip.Stats())
	}

	r = newRig(t, Config{})
	tr := NewTrack(r.ip, blendScale)
	e := spawnBare(r, tr.id)
	a := r.w.Arche()
	l := link{latency: 40 * time.Millisecond}
	checked := 0
	r.play(l.sends(2, 600, 2), 144, 10*time.Second, func(f ecs.Frame) {
		(*scale)(a.Get(e, tr.id)).S = float64(f)
		r.ip.Applied(e, f)
	}, func(now time.Duration) {
		if now < time.Second {
			return
		}
		s, ok := tr.Get(e)
		if newest := float64(r.ip.Stats().Newest); !ok || s.S <= 0 || s.S >= newest {
			t.Fatalf("scale %v (ok %t) with the newest state %v: want it drawn in the past", s, ok, newest)
		}
		if _, posed := r.ip.Pose(e, 0); posed || !r.ip.Remote(e) {
			t.Fatalf("an entity without a Transform: posed %t, remote %t; want no pose, drawn from states", posed, r.ip.Remote(e))
		}
		checked++
	})
	if checked == 0 {
		t.Fatal("nothing checked")
	}

	// It gains a pose: drawn there from its first state, as a new entity.
	a.Add(e, r.w.IDs.Transform)
	at := ecs.Transform{X: 500, Y: -200}
	f := r.ip.Stats().Newest + 2
	r.apply(e, f, at)
	r.clk.Advance(step)
	r.ip.Update(r.clk.Now())
	if p := r.pose(e); math.Hypot(p.X-at.X, p.Y-at.Y) > 1e-9 {
		t.Fatalf("drawn at %v after its first pose %v: slid from the origin", p, at)
	}

	// It loses its pose: drawn for its Track alone again, at the new value
	// from the first state without one, not blended from the posed states.
	a.Remove(e, r.w.IDs.Transform)
	(*scale)(a.Get(e, tr.id)).S = -50
	r.ip.Applied(e, f+2)
	r.clk.Advance(step)
	r.ip.Update(r.clk.Now())
	if _, posed := r.ip.Pose(e, 0); posed || !r.ip.Remote(e) {
		t.Fatalf("after losing its Transform: posed %t, remote %t; want no pose, drawn from states", posed, r.ip.Remote(e))
	}
	if s, ok := tr.Get(e); !ok || s.S != -50 {
		t.Fatalf("after losing its Transform the scale is drawn at %v (ok %t), want its first state -50", s, ok)
	}
}

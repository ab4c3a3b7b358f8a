package interp

import (
	"math"
	"testing"
	"time"

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

package predict

import (
	"fmt"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// BenchmarkPredictFrame measures one client frame of prediction: time
// synchronization, the input stamped, encoded and queued, the test game's
// step of every owned entity, and the frame recorded.
func BenchmarkPredictFrame(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("owned-%d", n), func(b *testing.B) {
			var r *rig
			r = newRig(b, n, ClientConfig[pad]{HostFrame: func() ecs.Frame { return r.w.Frame() - 10 }})
			r.steps(300)
			b.ReportAllocs()
			for b.Loop() {
				r.steps(1)
			}
			if st := r.pred.Sync().Stats(); !st.Synced {
				b.Fatalf("time synchronization idle: %+v", st)
			}
		})
	}
}

// BenchmarkReconcile measures one AuthState of one owned entity handled,
// every component differing from the prediction: corrected (Correct), or
// restored and replayed over 8 frames (Replay).
func BenchmarkReconcile(b *testing.B) {
	b.Run("correct", func(b *testing.B) {
		r := newRig(b, 1, ClientConfig[pad]{Smoother: &nopSmoother{}})
		r.steps(30)
		const S = 20
		img := alternateImages(b, r, S)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			r.pred.AuthState(S, r.ents[0], replicate.NewState(r.reg, img[i&1]))
			i++
		}
		if st := r.pred.Stats(); st.Corrections < uint64(3*i) {
			b.Fatalf("%d AuthStates, %d corrections", i, st.Corrections)
		}
	})
	b.Run("replay-8", func(b *testing.B) {
		r := newRig(b, 1, ClientConfig[pad]{Reconcile: Replay, Smoother: &nopSmoother{}})
		r.steps(30)
		const S = 22 // frames 23..30 replay
		img := alternateImages(b, r, S)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			r.pred.AuthState(S, r.ents[0], replicate.NewState(r.reg, img[i&1]))
			r.pred.begin(r.w)
			i++
		}
		if st := r.pred.Stats(); st.Replays != uint64(i) || st.ReplayedFrames != 8*uint64(i) {
			b.Fatalf("%d AuthStates: %+v", i, st)
		}
	})
}

// alternateImages returns two host states of frame s, each differing from
// the prediction and from the other in every component.
func alternateImages(b *testing.B, r *rig, s ecs.Frame) [2][]int32 {
	e := r.ents[0]
	s0, ok := r.pred.hist.find(s, recState)
	if !ok {
		b.Fatal("frame not recorded")
	}
	var out [2][]int32
	for i := range out {
		var t ecs.Transform
		var v ecs.Velocity
		var c charge
		for _, tr := range r.pred.tracks {
			p := tr.store.at(s0*r.pred.hist.stride + r.pred.hist.index(s0, e, 0))
			switch tr.comp {
			case cTransform:
				t = *(*ecs.Transform)(p)
			case cVelocity:
				v = *(*ecs.Velocity)(p)
			case cCharge:
				c = *(*charge)(p)
			}
		}
		d := float64(i + 1)
		t.X += d
		v.Y -= 3 * d
		c.N += int64(i + 1)
		out[i] = images(r.reg, t, v, c)
	}
	return out
}

type nopSmoother struct{ n int }

func (s *nopSmoother) AddCorrection(e arche.Entity, dx, dy, da float64) { s.n++ }

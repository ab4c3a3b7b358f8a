package predict

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// After Rebase the prediction is gone: nothing recorded, the input in force
// is zero, the time synchronization starts over, and the first AuthState's
// states are taken as they are (through the Corrector, with no Smoother
// offset) whatever the prediction was; the AuthState after is compared as
// usual.
func TestRebaseTakesTheHostsState(t *testing.T) {
	rec := &recorder{}
	r := newRig(t, 2, ClientConfig[pad]{Smoother: rec})
	r.steps(40)
	if _, ok := r.pred.hist.find(30, recState); !ok {
		t.Fatal("frame 30 not recorded before the rebase")
	}
	r.pred.Rebase()
	if _, ok := r.pred.hist.find(30, recState); ok || r.pred.lastRecorded != 0 {
		t.Fatal("Rebase kept recorded frames")
	}
	if *r.pred.Input() != (pad{}) {
		t.Fatalf("input in force after Rebase: %+v, want none", *r.pred.Input())
	}
	if st := r.pred.Sync().Stats(); st.Synced || st.Samples != 0 {
		t.Fatalf("time synchronization kept across Rebase: %+v", st)
	}

	// The host's state of a frame just behind the client's, far from
	// anything predicted.
	hf := r.w.Frame() - 2
	e, other := r.ents[0], r.ents[1]
	ht := ecs.Transform{X: 700, Y: -300, Angle: 1}
	hv := ecs.Velocity{X: 12, Y: -3}
	hc := charge{N: 42, F: 2}
	img := images(r.reg, ht, hv, hc)
	var qt ecs.Transform
	var qv ecs.Velocity
	replicate.TransformCodec().Dequantize(img[0:3], &qt)
	replicate.VelocityCodec().Dequantize(img[3:6], &qv)
	r.pred.AuthState(hf, e, replicate.NewState(r.reg, img))
	r.pred.AuthState(hf, other, replicate.NewState(r.reg, img))
	for _, x := range []arche.Entity{e, other} {
		if got := *r.g.tf.Get(x); !near(got.X, qt.X) || !near(got.Y, qt.Y) || !near(got.Angle, qt.Angle) {
			t.Fatalf("pose after the rebase %+v, want the host's %+v", got, qt)
		}
		if got := *r.g.vel.Get(x); !near(got.X, qv.X) || !near(got.Y, qv.Y) || !near(got.Angular, qv.Angular) {
			t.Fatalf("velocity after the rebase %+v, want the host's %+v", got, qv)
		}
		if got := *r.g.chg.Get(x); got != hc {
			t.Fatalf("charge after the rebase %+v, want the host's %+v", got, hc)
		}
	}
	if len(rec.smooth) != 0 {
		t.Fatalf("a rebase was smoothed: %+v", rec.smooth)
	}
	st := r.pred.Stats()
	if st.Rebases != 1 || st.Taken != 2 || st.Corrections != 0 {
		t.Fatalf("stats after the rebase: %+v, want 1 rebase, 2 states taken, no corrections", st)
	}

	// From the next AuthState on, the prediction is compared again: a state
	// of a frame recorded since agrees with it and corrects nothing; one
	// that differs is corrected and smoothed.
	r.steps(10)
	f := r.pred.lastRecorded - 2
	pt := predicted[ecs.Transform](t, r.pred, f, e, cTransform)
	pv := predicted[ecs.Velocity](t, r.pred, f, e, cVelocity)
	pc := predicted[charge](t, r.pred, f, e, cCharge)
	r.pred.AuthState(f, e, replicate.NewState(r.reg, images(r.reg, pt, pv, pc)))
	if st := r.pred.Stats(); st.Corrections != 0 || st.Taken != 2 {
		t.Fatalf("an agreeing state after the rebase: %+v", st)
	}
	pt.X += 5
	r.pred.AuthState(f+1, e, replicate.NewState(r.reg, images(r.reg, pt, predicted[ecs.Velocity](t, r.pred, f+1, e, cVelocity), predicted[charge](t, r.pred, f+1, e, cCharge))))
	if st := r.pred.Stats(); st.PoseCorrections != 1 || len(rec.smooth) != 1 {
		t.Fatalf("a differing state after the rebase was not corrected: %+v", st)
	}
}

// After Resume(f) the host drops the peer's inputs stamped at or before f,
// counting them, takes those after it, and forgets what the peer sent
// before; until the first input after the resume the peer has none.
func TestHostInputsAfterResume(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{})
	if err := r.send(t, 103, pad{DX: 3}, pad{DX: 2}, pad{DX: 1}); err != nil {
		t.Fatal(err)
	}
	r.frame() // 100
	r.h.Resume(1, 101)
	if _, ok := r.h.Input(1); ok {
		t.Fatal("the peer has an input right after its resume")
	}
	// The client's old world sent frames up to 103 before the break; its
	// first message after the resume carries 102 and some of before.
	if err := r.send(t, 102, pad{DX: 7}, pad{DX: 8}, pad{DX: 9}); err != nil {
		t.Fatal(err)
	}
	st := r.h.Peer(1).Stats()
	if st.BeforeResume != 2 || st.Received != 1 {
		t.Fatalf("stats %+v, want frames 100 and 101 dropped as before the resume and 102 taken", st)
	}
	if in := r.frame(); in != nil {
		t.Fatalf("frame 101 took %+v, from before the resume", *in)
	}
	if in := r.frame(); in == nil || in.DX != 7 {
		t.Fatalf("frame 102 took %v, want DX 7 sent after the resume", in)
	}
	if in := r.frame(); in.DX != 7 || r.h.Peer(1).Stats().Repeated != 1 {
		t.Fatalf("frame 103 took %+v, want the resumed peer's last input repeated (not the one sent before the break)", *in)
	}
}

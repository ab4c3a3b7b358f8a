package predict

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// snapRecorder is a recorder that is also a Snapper.
type snapRecorder struct {
	recorder
	snaps []arche.Entity
}

func (r *snapRecorder) SnapCorrection(e arche.Entity) { r.snaps = append(r.snaps, e) }

// TestTeleportCorrectionIsSnapped: an AuthState whose pose is of a
// teleport moves the predicted entity to the host's pose as any correction
// does, but the Smoother is told it is a jump (SnapCorrection, no offset
// to hide it) and it is counted as a teleport, not as a pose error; the
// AuthStates that go on saying so of the same teleport are compared as
// usual, and a new teleport is snapped again. In both reconciliation modes.
func TestTeleportCorrectionIsSnapped(t *testing.T) {
	for name, mode := range map[string]Reconcile{"correct": Correct, "replay": Replay} {
		t.Run(name, func(t *testing.T) {
			rec := &snapRecorder{}
			r := newRig(t, 2, ClientConfig[pad]{Smoother: rec, Reconcile: mode})
			r.steps(20)
			e := r.ents[1]
			auth := func(f ecs.Frame, dx float64, tele ecs.Frame) {
				t.Helper()
				pt := predicted[ecs.Transform](t, r.pred, f, e, cTransform)
				pv := predicted[ecs.Velocity](t, r.pred, f, e, cVelocity)
				pc := predicted[charge](t, r.pred, f, e, cCharge)
				ht := ecs.Transform{X: pt.X + dx, Y: pt.Y, Angle: pt.Angle}
				r.pred.AuthState(f, e, replicate.NewState(r.reg, images(r.reg, ht, pv, pc)).WithTeleport(tele))
				if mode == Replay {
					r.steps(1) // the pending replay runs
				}
			}
			x0 := r.g.tf.Get(e).X
			auth(12, 2000, 11)
			if got := r.g.tf.Get(e).X; got < x0+1990 {
				t.Fatalf("x %v after the teleport, want about %v", got, x0+2000)
			}
			if len(rec.snaps) != 1 || rec.snaps[0] != e || len(rec.smooth) != 0 {
				t.Fatalf("snapped %v, smoothed %+v: want e snapped and nothing smoothed", rec.snaps, rec.smooth)
			}
			st := r.pred.Stats()
			if st.Teleports != 1 || st.PoseCorrections != 0 || st.MaxPose != 0 {
				t.Fatalf("stats %+v: want one teleport and no pose correction", st)
			}
			// The same teleport said again, with a small error: smoothed.
			auth(r.w.Frame()-2, 0.5, 11)
			if len(rec.snaps) != 1 || len(rec.smooth) != 1 {
				t.Fatalf("snapped %d, smoothed %d: want 1 and 1", len(rec.snaps), len(rec.smooth))
			}
			// A new teleport is snapped.
			auth(r.w.Frame()-2, 300, r.w.Frame()-3)
			if len(rec.snaps) != 2 || len(rec.smooth) != 1 {
				t.Fatalf("snapped %d, smoothed %d: want 2 and 1", len(rec.snaps), len(rec.smooth))
			}
			if st := r.pred.Stats(); st.Teleports != 2 || st.PoseCorrections != 1 {
				t.Fatalf("stats %+v: want two teleports and one pose correction", st)
			}
		})
	}
}

// A teleport taken by a Rebase (its AuthState taken as it is, drawn as a
// jump) is the entity's: the AuthStates after that go on naming it are
// compared as usual, a small error smoothed, not snapped again.
func TestRebaseTakesTheTeleport(t *testing.T) {
	rec := &snapRecorder{}
	r := newRig(t, 1, ClientConfig[pad]{Smoother: rec})
	r.steps(20)
	e := r.ents[0]
	r.pred.Rebase()
	r.steps(1)
	hf := r.w.Frame() - 1
	r.pred.AuthState(hf, e, replicate.NewState(r.reg, images(r.reg, ecs.Transform{X: 900}, ecs.Velocity{}, charge{})).WithTeleport(hf-1))
	if len(rec.snaps) != 1 || r.pred.Stats().Taken != 1 {
		t.Fatalf("the rebase's state: %d snaps, %+v; want it taken as a jump", len(rec.snaps), r.pred.Stats())
	}
	r.steps(10)
	f := r.pred.lastRecorded - 2
	pt := predicted[ecs.Transform](t, r.pred, f, e, cTransform)
	pt.X += 0.5
	r.pred.AuthState(f, e, replicate.NewState(r.reg, images(r.reg, pt, predicted[ecs.Velocity](t, r.pred, f, e, cVelocity), predicted[charge](t, r.pred, f, e, cCharge))).WithTeleport(hf-1))
	if st := r.pred.Stats(); len(rec.snaps) != 1 || len(rec.smooth) != 1 || st.Teleports != 0 || st.PoseCorrections != 1 {
		t.Fatalf("the same teleport named again: %d snaps, %d smoothed, %+v; want it smoothed as a correction", len(rec.snaps), len(rec.smooth), st)
	}
}

// A Rebase forgets the teleports drawn before it (the host's frames may be
// numbered otherwise after it): a teleport named by the same frame after
// it is drawn as a jump again.
func TestRebaseForgetsTeleports(t *testing.T) {
	rec := &snapRecorder{}
	r := newRig(t, 1, ClientConfig[pad]{Smoother: rec})
	r.steps(20)
	e := r.ents[0]
	auth := func(f ecs.Frame, dx float64, tele ecs.Frame) {
		t.Helper()
		pt := predicted[ecs.Transform](t, r.pred, f, e, cTransform)
		pt.X += dx
		r.pred.AuthState(f, e, replicate.NewState(r.reg, images(r.reg, pt, predicted[ecs.Velocity](t, r.pred, f, e, cVelocity), predicted[charge](t, r.pred, f, e, cCharge))).WithTeleport(tele))
	}
	auth(12, 500, 11)
	r.pred.Rebase()
	r.steps(1)
	hf := r.w.Frame() - 1
	r.pred.AuthState(hf, e, replicate.NewState(r.reg, images(r.reg, ecs.Transform{X: 900}, ecs.Velocity{}, charge{}))) // taken
	r.steps(10)
	snaps := len(rec.snaps)
	auth(r.pred.lastRecorded-2, 500, 11)
	if len(rec.snaps) != snaps+1 || len(rec.smooth) != 0 {
		t.Fatalf("a teleport of frame 11 after the rebase: %d snaps (was %d), %d smoothed; want it drawn as a jump", len(rec.snaps), snaps, len(rec.smooth))
	}
}

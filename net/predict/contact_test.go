package predict

import (
	"math"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// floorClamper is a ContactClamper for an entity resting on a floor below
// it (+y down), touching it: a pose correction goes no further down, and a
// velocity correction loses its vertical part.
type floorClamper struct{ recorder }

func (f *floorClamper) ClampPose(_ arche.Entity, dx, dy float64) (float64, float64) {
	return dx, min(dy, 0)
}

func (f *floorClamper) ClampVelocity(_ arche.Entity, dx, _ float64) (float64, float64) {
	return dx, 0
}

// S is the frame the contact tests' host state is of.
const S = 12

// onFloor is a rig of one entity whose Corrector is a floorClamper, 20
// steps on, and the entity's predicted Transform, Velocity and charge at
// frame S.
func onFloor(t *testing.T) (*rig, *floorClamper, arche.Entity, ecs.Transform, ecs.Velocity, charge) {
	r := newRig(t, 1, ClientConfig[pad]{})
	k := &floorClamper{}
	r.pred.cfg.Corrector = k
	r.steps(20)
	e := r.ents[0]
	return r, k, e, predicted[ecs.Transform](t, r.pred, S, e, cTransform),
		predicted[ecs.Velocity](t, r.pred, S, e, cVelocity), predicted[charge](t, r.pred, S, e, cCharge)
}

// A body resting on a floor that the host has 30 units along it (and a
// hair deeper in it) is corrected along it: only the hair is the
// contact's to decide.
func TestAContactDecidesOnlyWhatGoesIntoIt(t *testing.T) {
	r, k, e, pt, pv, pc := onFloor(t)
	ht := ecs.Transform{X: pt.X + 30, Y: pt.Y + 0.006, Angle: pt.Angle}
	hv := ecs.Velocity{X: pv.X + 100, Y: pv.Y + 0.05, Angular: pv.Angular}
	r.pred.AuthState(S, e, replicate.NewState(r.reg, images(r.reg, ht, hv, pc)))
	if len(k.pose) != 1 || math.Abs(k.pose[0].dx-30) > 0.01 || k.pose[0].dy > 0 {
		t.Errorf("pose corrections %+v, want one of about (30, 0)", k.pose)
	}
	if len(k.vel) != 1 || math.Abs(k.vel[0].dx-100) > 0.2 || k.vel[0].dy != 0 {
		t.Errorf("velocity corrections %+v, want one of about (100, 0)", k.vel)
	}
}

// A body the host has only deeper in its floor is not corrected at all.
func TestAContactAloneDecidingIsNoCorrection(t *testing.T) {
	r, k, e, pt, pv, pc := onFloor(t)
	ht := ecs.Transform{X: pt.X, Y: pt.Y + 2, Angle: pt.Angle}
	r.pred.AuthState(S, e, replicate.NewState(r.reg, images(r.reg, ht, pv, pc)))
	if st := r.pred.Stats(); st.PoseCorrections != 0 || len(k.pose) != 0 {
		t.Errorf("%d pose corrections (%+v) for a difference the floor alone decides, want none", st.PoseCorrections, k.pose)
	}
}

// hostClamper is a floorClamper that is a HostClamper too: a lift off the
// floor goes when the host's velocity closed it in the time given.
type hostClamper struct {
	floorClamper
	hosts []ecs.Transform // the host's poses ClampPoseFrom was given
	dts   []float64       // and the times
}

func (l *hostClamper) ClampPoseFrom(_ arche.Entity, dx, dy float64, host ecs.Transform, v ecs.Velocity, dt float64) (float64, float64) {
	l.hosts, l.dts = append(l.hosts, host), append(l.dts, dt)
	if dy < 0 && v.Y*dt >= -dy {
		dy = 0
	}
	return dx, dy
}

// A HostClamper is given the host's pose and the time since the state's
// frame, and its clamp is the correction: a body resting on its floor that
// the host has 4 units higher, falling at a speed that lands it on the
// floor since, is not lifted; falling slower than that, or at rest, the
// host's body is still above it: the body is lifted. The clamp is asked
// once a state.
func TestAHostClamperIsGivenTheHostsState(t *testing.T) {
	for _, tc := range []struct {
		name  string
		vy    float64 // the host's, world units a second, +y down
		lifts bool
	}{{"falling fast", 300, false}, {"falling slowly", 20, true}, {"at rest", 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, 1, ClientConfig[pad]{})
			k := &hostClamper{}
			r.pred.cfg.Corrector = k
			r.steps(20)
			e := r.ents[0]
			pt := predicted[ecs.Transform](t, r.pred, S, e, cTransform)
			pv := predicted[ecs.Velocity](t, r.pred, S, e, cVelocity)
			pc := predicted[charge](t, r.pred, S, e, cCharge)
			ht := ecs.Transform{X: pt.X, Y: pt.Y - 4, Angle: pt.Angle}
			hv := ecs.Velocity{X: pv.X, Y: tc.vy, Angular: pv.Angular}
			r.pred.AuthState(S, e, replicate.NewState(r.reg, images(r.reg, ht, hv, pc)))
			if len(k.dts) == 0 || math.Abs(k.dts[0]-r.pred.since(S)) > 1e-9 || k.dts[0] <= 0 {
				t.Fatalf("ClampPoseFrom was given times %v, want the %.3f s since frame %d", k.dts, r.pred.since(S), S)
			}
			if h := k.hosts[0]; math.Abs(h.X-ht.X) > 0.01 || math.Abs(h.Y-ht.Y) > 0.01 {
				t.Fatalf("ClampPoseFrom was given the host's pose %v, want %v", h, ht)
			}
			if len(k.dts) != 1 {
				t.Errorf("ClampPoseFrom was asked %d times for one state's pose, want once (its clamp is reckoned once, for the decision and the correction)", len(k.dts))
			}
			lifted := len(k.pose) == 1 && math.Abs(k.pose[0].dy+4) < 0.01
			if lifted != tc.lifts {
				t.Errorf("pose corrections %+v of a body the host has 4 units up, falling at %.0f a second: lifted %v, want %v", k.pose, tc.vy, lifted, tc.lifts)
			}
			if !tc.lifts && r.pred.Stats().PoseCorrections != 0 {
				t.Errorf("%d pose corrections, want none: the landing decided it", r.pred.Stats().PoseCorrections)
			}
		})
	}
}

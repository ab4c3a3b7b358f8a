package predict

import (
	"errors"
	"math"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

type correction struct {
	e          arche.Entity
	dx, dy, da float64
}

// recorder is a Smoother and a Corrector that remembers what it was told.
type recorder struct{ smooth, pose, vel []correction }

func (r *recorder) AddCorrection(e arche.Entity, dx, dy, da float64) {
	r.smooth = append(r.smooth, correction{e, dx, dy, da})
}
func (r *recorder) CorrectPose(e arche.Entity, dx, dy, da float64) {
	r.pose = append(r.pose, correction{e, dx, dy, da})
}
func (r *recorder) CorrectVelocity(e arche.Entity, dx, dy, da float64) {
	r.vel = append(r.vel, correction{e, dx, dy, da})
}

const (
	cTransform replicate.Component = 0
	cVelocity  replicate.Component = 1
	cCharge    replicate.Component = 2
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9 }

func TestCorrectByTheDifference(t *testing.T) {
	rec := &recorder{}
	r := newRig(t, 2, ClientConfig[pad]{Smoother: rec})
	r.steps(20)
	e := r.ents[1]
	const S = 12
	pt := predicted[ecs.Transform](t, r.pred, S, e, cTransform)
	pv := predicted[ecs.Velocity](t, r.pred, S, e, cVelocity)
	pc := predicted[charge](t, r.pred, S, e, cCharge)
	later := predicted[ecs.Transform](t, r.pred, 17, e, cTransform)
	// The host saw the entity elsewhere at S.
	ht := ecs.Transform{X: pt.X + 0.5, Y: pt.Y - 0.25, Angle: pt.Angle + 0.1}
	hv := ecs.Velocity{X: pv.X + 2, Y: pv.Y, Angular: pv.Angular}
	hc := charge{N: pc.N + 5, F: pc.F}
	img := images(r.reg, ht, hv, hc)
	var qt ecs.Transform
	var qv ecs.Velocity
	var qc charge
	replicate.TransformCodec().Dequantize(img[0:3], &qt)
	replicate.VelocityCodec().Dequantize(img[3:6], &qv)
	chargeCodec().Dequantize(img[6:8], &qc)
	dx, dy, da := qt.X-pt.X, qt.Y-pt.Y, ecs.AngleDiff(pt.Angle, qt.Angle)

	t0, v0, other := *r.g.tf.Get(e), *r.g.vel.Get(e), *r.g.tf.Get(r.ents[0])
	r.pred.AuthState(S, e, replicate.NewState(r.reg, img))

	t1, v1 := *r.g.tf.Get(e), *r.g.vel.Get(e)
	if !near(t1.X, t0.X+dx) || !near(t1.Y, t0.Y+dy) || !near(t1.Angle, t0.Angle+da) {
		t.Fatalf("pose %v, want %v moved by (%g, %g, %g)", t1, t0, dx, dy, da)
	}
	if !near(v1.X, v0.X+qv.X-pv.X) || !near(v1.Y, v0.Y+qv.Y-pv.Y) || !near(v1.Angular, v0.Angular+qv.Angular-pv.Angular) {
		t.Fatalf("velocity %+v, want %+v plus %+v", v1, v0, ecs.Velocity{X: qv.X - pv.X, Y: qv.Y - pv.Y, Angular: qv.Angular - pv.Angular})
	}
	if c := *r.g.chg.Get(e); c != qc {
		t.Fatalf("charge %+v, want the host's %+v", c, qc)
	}
	if *r.g.tf.Get(r.ents[0]) != other {
		t.Fatal("another entity was corrected")
	}
	if len(rec.smooth) != 1 || rec.smooth[0] != (correction{e, dx, dy, da}) {
		t.Fatalf("smoother told %+v", rec.smooth)
	}
	st := r.pred.Stats()
	if st.Corrections != 3 || st.PoseCorrections != 1 || st.VelocityCorrections != 1 || st.ValueCorrections != 1 {
		t.Fatalf("stats %+v", st)
	}
	if !near(st.MaxPose, math.Hypot(dx, dy)) || !near(st.MeanPose, st.MaxPose) {
		t.Fatalf("pose sizes %g %g, want %g", st.MaxPose, st.MeanPose, math.Hypot(dx, dy))
	}

	// The prediction since S moved with the correction: a later AuthState
	// that agrees with the corrected course corrects nothing again.
	if p := predicted[ecs.Transform](t, r.pred, 17, e, cTransform); !near(p.X, later.X+dx) {
		t.Fatalf("prediction of frame 17 at %v, want %v moved by %g", p, later, dx)
	}
	pv17 := predicted[ecs.Velocity](t, r.pred, 17, e, cVelocity)
	pc17 := predicted[charge](t, r.pred, 17, e, cCharge)
	moved := ecs.Transform{X: later.X + dx, Y: later.Y + dy, Angle: later.Angle + da}
	r.pred.AuthState(17, e, replicate.NewState(r.reg, images(r.reg, moved, pv17, pc17)))
	if st := r.pred.Stats(); st.Corrections != 3 {
		t.Fatalf("corrected twice: %+v", st)
	}

	// Differences within the tolerance are not corrected.
	p18 := predicted[ecs.Transform](t, r.pred, 18, e, cTransform)
	slight := p18
	slight.X += 0.0004
	img = images(r.reg, slight, predicted[ecs.Velocity](t, r.pred, 18, e, cVelocity), predicted[charge](t, r.pred, 18, e, cCharge))
	replicate.TransformCodec().Dequantize(img[0:3], &qt)
	if math.Abs(qt.X-p18.X) >= 1.0/replicate.PositionScale || qt.X == p18.X {
		t.Fatalf("test needs a difference under the tolerance, got %g", qt.X-p18.X)
	}
	before := *r.g.tf.Get(e)
	r.pred.AuthState(18, e, replicate.NewState(r.reg, img))
	if st := r.pred.Stats(); st.Corrections != 3 || *r.g.tf.Get(e) != before {
		t.Fatalf("a difference of %g was corrected: %+v", qt.X-p18.X, st)
	}

	// An older AuthState than the newest handled is ignored.
	r.pred.AuthState(15, e, replicate.NewState(r.reg, images(r.reg, ecs.Transform{X: 1e4}, hv, hc)))
	if st := r.pred.Stats(); st.Stale != 1 || st.Corrections != 3 {
		t.Fatalf("stale state handled: %+v", st)
	}
	// One for a frame not recorded (ahead of the client) is unmatched.
	r.pred.AuthState(40, e, replicate.NewState(r.reg, img))
	if st := r.pred.Stats(); st.Unmatched != 1 || st.Corrections != 3 {
		t.Fatalf("unrecorded frame handled: %+v", st)
	}
}

func TestCorrectThroughCorrector(t *testing.T) {
	rec := &recorder{}
	r := newRig(t, 1, ClientConfig[pad]{Corrector: rec})
	r.steps(10)
	e := r.ents[0]
	pt := predicted[ecs.Transform](t, r.pred, 8, e, cTransform)
	pv := predicted[ecs.Velocity](t, r.pred, 8, e, cVelocity)
	pc := predicted[charge](t, r.pred, 8, e, cCharge)
	t0, v0 := *r.g.tf.Get(e), *r.g.vel.Get(e)
	r.pred.AuthState(8, e, replicate.NewState(r.reg, images(r.reg, ecs.Transform{X: pt.X + 3, Y: pt.Y, Angle: pt.Angle}, ecs.Velocity{X: pv.X, Y: pv.Y - 1, Angular: pv.Angular}, pc)))
	if len(rec.pose) != 1 || len(rec.vel) != 1 || rec.pose[0].e != e || math.Abs(rec.pose[0].dx-3) > 1.0/replicate.PositionScale || math.Abs(rec.vel[0].dy+1) > 1.0/replicate.VelocityScale {
		t.Fatalf("corrector told pose %+v velocity %+v", rec.pose, rec.vel)
	}
	if *r.g.tf.Get(e) != t0 || *r.g.vel.Get(e) != v0 {
		t.Fatal("components written directly although a Corrector is set")
	}
}

// hostSim runs the test game as a host would, with its own inputs.
type hostSim struct {
	w   *ecs.World
	reg *replicate.Registry
	g   *game
	e   arche.Entity
}

func newHostSim(x, y float64) *hostSim {
	w := ecs.NewWorld()
	reg := replicate.NewRegistry(w)
	replicate.Register(reg, chargeCodec())
	h := &hostSim{w: w, reg: reg, g: newGame(w, localPeer)}
	h.e = h.g.add(localPeer, x, y)
	return h
}

func (h *hostSim) step(in pad) {
	h.w.SetFrame(h.w.Frame() + 1)
	h.g.move(h.e, h.w.Frame(), &in)
}

func (h *hostSim) images() []int32 {
	q := make([]int32, 8)
	for c := range replicate.Component(3) {
		h.reg.Quantize(h.e, c, q[h.reg.Offset(c):])
	}
	return q
}

func TestReplayRestoresAndReplays(t *testing.T) {
	rec := &recorder{}
	r := newRig(t, 1, ClientConfig[pad]{Reconcile: Replay, Smoother: rec})
	e := r.ents[0]
	host := newHostSim(0, 5)
	const S = 15
	var hostImg []int32
	for f := ecs.Frame(1); f <= 20; f++ {
		in := r.next(f)
		if f == 10 {
			in = pad{DX: -3, DY: 2, Boost: true} // the host's input differed
		}
		host.step(in)
		if f == S {
			hostImg = host.images()
		}
	}
	r.steps(20)
	// The expected outcome: the host's state of S, as the wire gives it,
	// stepped with the client's inputs of 16..20.
	ref := newHostSim(0, 0)
	replicate.TransformCodec().Dequantize(hostImg[0:3], ref.g.tf.Get(ref.e))
	replicate.VelocityCodec().Dequantize(hostImg[3:6], ref.g.vel.Get(ref.e))
	chargeCodec().Dequantize(hostImg[6:8], ref.g.chg.Get(ref.e))
	ref.w.SetFrame(S)
	for f := ecs.Frame(S + 1); f <= 20; f++ {
		ref.step(r.next(f))
	}
	before := *r.g.tf.Get(e)
	r.pred.AuthState(S, e, replicate.NewState(r.reg, hostImg))
	if st := r.pred.Stats(); st.Corrections != 3 || st.Replays != 0 {
		t.Fatalf("after AuthState: %+v", st)
	}
	r.pred.begin(r.w) // the next frame's input stage replays
	if r.g.hash() != ref.g.hash() {
		t.Fatalf("replayed state\n%+v %+v %+v\nwant\n%+v %+v %+v", *r.g.tf.Get(e), *r.g.vel.Get(e), *r.g.chg.Get(e),
			*ref.g.tf.Get(ref.e), *ref.g.vel.Get(ref.e), *ref.g.chg.Get(ref.e))
	}
	st := r.pred.Stats()
	if st.Replays != 1 || st.ReplayedFrames != 5 || st.PoseCorrections != 1 {
		t.Fatalf("stats %+v", st)
	}
	after := *r.g.tf.Get(e)
	if len(rec.smooth) != 1 || !near(rec.smooth[0].dx, after.X-before.X) || !near(rec.smooth[0].dy, after.Y-before.Y) {
		t.Fatalf("smoother told %+v, pose moved from %v to %v", rec.smooth, before, after)
	}
	// The replayed frames were recorded again: the host's next state agrees.
	for f := ecs.Frame(S + 1); f <= 20; f++ {
		if p := predicted[ecs.Transform](t, r.pred, f, e, cTransform); f == 20 && p != *ref.g.tf.Get(ref.e) {
			t.Fatalf("frame %d recorded as %v, want %v", f, p, *ref.g.tf.Get(ref.e))
		}
	}
	r.pred.AuthState(20, e, replicate.NewState(r.reg, ref.images()))
	r.pred.begin(r.w)
	if st := r.pred.Stats(); st.Replays != 1 || st.Corrections != 3 {
		t.Fatalf("an agreeing state replayed: %+v", st)
	}
}

func TestReplayFallsBackWhenOwnedEntitiesChanged(t *testing.T) {
	r := newRig(t, 1, ClientConfig[pad]{Reconcile: Replay})
	r.steps(10)
	r.g.add(localPeer, 50, 50)
	r.steps(5)
	e := r.ents[0]
	if err := r.pred.Replay(8); !errors.Is(err, ErrCannotReplay) {
		t.Fatalf("replay across a spawn: %v", err)
	}
	pt := predicted[ecs.Transform](t, r.pred, 8, e, cTransform)
	t0 := *r.g.tf.Get(e)
	r.pred.AuthState(8, e, replicate.NewState(r.reg, images(r.reg, ecs.Transform{X: pt.X + 1, Y: pt.Y, Angle: pt.Angle},
		predicted[ecs.Velocity](t, r.pred, 8, e, cVelocity), predicted[charge](t, r.pred, 8, e, cCharge))))
	st := r.pred.Stats()
	if st.ReplayFallbacks != 1 || st.PoseCorrections != 1 || math.Abs(r.g.tf.Get(e).X-t0.X-1) > 1.0/512 {
		t.Fatalf("no correction instead of the replay: %+v, X %g → %g", st, t0.X, r.g.tf.Get(e).X)
	}
	if err := r.pred.Replay(13); err != nil {
		t.Fatalf("replay after the spawn: %v", err)
	}
	for _, f := range []ecs.Frame{0, 16} {
		if err := r.pred.Replay(f); !errors.Is(err, ErrCannotReplay) {
			t.Fatalf("replay from unrecorded frame %d: %v", f, err)
		}
	}
}

package predict

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/physics"
)

// aim is a component the predicted step sets from the input each frame.
type aim struct{ DX int8 }

func aimCodec() replicate.Codec[aim] {
	return replicate.Codec[aim]{
		Name:       "aim",
		Fields:     1,
		Quantize:   func(v *aim, q []int32) { q[0] = int32(v.DX) },
		Dequantize: func(q []int32, v *aim) { v.DX = int8(q[0]) },
	}
}

// aimRig is a client world with one owned entity of an aim alone, its
// Client tracking the aim as corr says.
type aimRig struct {
	w     *ecs.World
	reg   *replicate.Registry
	comp  replicate.Component
	clk   *clock.Fake
	sched *ecs.Schedule
	pred  *Client[pad]
	e     arche.Entity
}

func newAimRig(corr Correction) aimRig {
	w := ecs.NewWorld()
	reg := replicate.NewRegistry(w)
	comp := replicate.Register(reg, aimCodec())
	clk := clock.NewFake(time.Unix(5000, 0))
	sched := ecs.NewSchedule(w, clk, 0)
	pred := NewClient(sched, reg, padCodec, ClientConfig[pad]{
		Clock:      clk,
		Local:      func() ecs.PeerID { return localPeer },
		Link:       &fakeLink{rtt: 100 * time.Millisecond},
		Components: []Tracker{Track(aimCodec(), corr)},
	})
	spawn := generic.NewMap2[aim, ecs.NetworkIdentity](w.Arche())
	e := spawn.NewWith(&aim{}, &ecs.NetworkIdentity{Owner: localPeer})
	return aimRig{w: w, reg: reg, comp: comp, clk: clk, sched: sched, pred: pred, e: e}
}

// TestHostValueConverges: the host applied another input at one frame, so
// its aim differs there. The client takes the host's value once; the frames
// it predicted since were predicted from its own value and are not compared,
// and the frames predicted after the correction agree with the host again.
func TestHostValueConverges(t *testing.T) {
	const lag, frames, mismatch = 6, 300, 50
	a := newAimRig(HostValue)
	w, reg, comp, clk, sched, pred, e := a.w, a.reg, a.comp, a.clk, a.sched, a.pred, a.e
	aims := generic.NewMap[aim](w.Arche())
	input := func(f ecs.Frame) pad { return pad{DX: int8(f % 5)} }
	sched.AddTo(ecs.StageInput, "input", ecs.SystemFunc(func(w *ecs.World) { pred.SetInput(input(w.Frame())) }))
	sched.Add("aim", ecs.SystemFunc(func(w *ecs.World) {
		for _, o := range w.Owned(localPeer) {
			aims.Get(o).DX = pred.Input().DX
		}
	}))
	// What the host simulated: the client's inputs but one.
	host := func(f ecs.Frame) aim {
		if f == mismatch {
			return aim{DX: 100}
		}
		return aim{DX: input(f).DX}
	}
	img := make([]int32, reg.Offset(comp)+1)
	for range frames {
		clk.Advance(ecs.DefaultStep)
		sched.Step()
		if f := w.Frame(); f > lag {
			s := host(f - lag)
			aimCodec().Quantize(&s, img[reg.Offset(comp):])
			pred.AuthState(f-lag, e, replicate.NewState(reg, img).Only(comp))
		}
	}
	st := pred.Stats()
	if st.ValueCorrections != 1 || st.Corrections != 1 || st.PerSecond != 0 {
		t.Fatalf("%d value corrections (%.0f in the last second) after one mismatched input, want 1 and 0", st.ValueCorrections, st.PerSecond)
	}
	if got := aims.Get(e).DX; got != input(w.Frame()).DX {
		t.Fatalf("aim %d, want the step's %d", got, input(w.Frame()).DX)
	}
}

// TestHostOnlyNewsIsTakenAsItComes: the host counts a HostOnly value on
// the client's own entity up every 6 frames, and its states arrive 20
// frames late. Each value is news for the present as its state comes: the
// frames the client had predicted when it took one value are compared with
// the host's next states (they carry the next values), not skipped until
// the client's frames of that moment are all past.
func TestHostOnlyNewsIsTakenAsItComes(t *testing.T) {
	const lag, frames = 20, 300
	const warm = 2 * lag // the states of the frames before the first states set the client's clock find no record
	a := newAimRig(HostOnly)
	w, reg, comp, clk, sched, pred, e := a.w, a.reg, a.comp, a.clk, a.sched, a.pred, a.e
	aims := generic.NewMap[aim](w.Arche())
	host := func(f ecs.Frame) aim { return aim{DX: int8(f / 6 % 100)} }
	img := make([]int32, reg.Offset(comp)+1)
	late := 0
	for range frames {
		clk.Advance(ecs.DefaultStep)
		sched.Step()
		f := w.Frame()
		if f <= lag {
			continue
		}
		s := host(f - lag)
		aimCodec().Quantize(&s, img[reg.Offset(comp):])
		pred.AuthState(f-lag, e, replicate.NewState(reg, img).Only(comp))
		if got := aims.Get(e).DX; got != s.DX && f > warm {
			late++
			if late == 1 {
				t.Errorf("frame %d: the client shows %d, want the host's %d of frame %d, whose state just came", f, got, s.DX, f-lag)
			}
		}
	}
	if late > 0 {
		t.Errorf("the client showed a value behind the state that had come at %d of %d frames", late, frames-warm)
	}
	if st := pred.Stats(); st.Corrections != 0 || int(st.HostUpdates) < int(host(frames-lag).DX-host(warm).DX) {
		t.Errorf("%d corrections and %d host updates, want none and one a value since frame %d (%d)", st.Corrections, st.HostUpdates, warm, host(frames-lag).DX-host(warm).DX)
	}
}

// selective is a Corrector that takes only the entities in its set and
// panics on the others, as *physics.Space does on an entity without a body.
type selective struct {
	recorder
	takes map[arche.Entity]bool
}

func (s *selective) Corrects(e arche.Entity) bool { return s.takes[e] }

func (s *selective) CorrectPose(e arche.Entity, dx, dy, da float64) {
	if !s.takes[e] {
		panic("corrector used for an entity it does not take")
	}
	s.recorder.CorrectPose(e, dx, dy, da)
}

func (s *selective) CorrectVelocity(e arche.Entity, dx, dy, da float64) {
	if !s.takes[e] {
		panic("corrector used for an entity it does not take")
	}
	s.recorder.CorrectVelocity(e, dx, dy, da)
}

// offsetImages returns host images of frame f for entity e: the prediction
// moved by dx and its velocity by dvx.
func offsetImages(t *testing.T, r *rig, f ecs.Frame, e arche.Entity, dx, dvx float64) []int32 {
	pt := predicted[ecs.Transform](t, r.pred, f, e, cTransform)
	pv := predicted[ecs.Velocity](t, r.pred, f, e, cVelocity)
	pt.X += dx
	pv.X += dvx
	return images(r.reg, pt, pv, predicted[charge](t, r.pred, f, e, cCharge))
}

func TestSelectiveCorrectorTakesOnlyItsEntities(t *testing.T) {
	r := newRig(t, 2, ClientConfig[pad]{})
	k := &selective{takes: map[arche.Entity]bool{r.ents[0]: true}}
	r.pred.cfg.Corrector = k
	r.steps(10)
	for _, e := range r.ents {
		r.pred.AuthState(8, e, replicate.NewState(r.reg, offsetImages(t, r, 8, e, 2, 1)))
	}
	if len(k.pose) != 1 || k.pose[0].e != r.ents[0] || len(k.vel) != 1 || k.vel[0].e != r.ents[0] {
		t.Fatalf("corrector told pose %+v velocity %+v, want entity %v only", k.pose, k.vel, r.ents[0])
	}
}

// TestPhysicsCorrectorWithoutBody: with *physics.Space as the Corrector, an
// owned entity with a body is corrected through it and one with only a
// Transform is written directly, instead of panicking.
func TestPhysicsCorrectorWithoutBody(t *testing.T) {
	r := newRig(t, 2, ClientConfig[pad]{})
	space := physics.New(r.w, physics.Config{})
	body, plain := r.ents[0], r.ents[1]
	space.AttachCircle(body, 1, physics.Material{Mass: 1})
	r.pred.cfg.Corrector = space
	r.steps(10)
	// The test game moves Transforms itself: the Space moves a body from its
	// entity's Transform.
	bodyX, plainX, plainV := r.g.tf.Get(body).X, r.g.tf.Get(plain).X, r.g.vel.Get(plain).X
	for _, e := range r.ents {
		r.pred.AuthState(8, e, replicate.NewState(r.reg, offsetImages(t, r, 8, e, 2, 1)))
	}
	if got := space.BodyOf(body).Position().X; math.Abs(got-bodyX-2) > 0.01 || math.Abs(r.g.tf.Get(body).X-got) > 1e-9 {
		t.Fatalf("body at %g, transform at %g; want both moved by 2 from %g", got, r.g.tf.Get(body).X, bodyX)
	}
	if got := r.g.tf.Get(plain).X; math.Abs(got-plainX-2) > 0.01 {
		t.Fatalf("entity without a body at %g, want %g moved by 2", got, plainX)
	}
	if got := r.g.vel.Get(plain).X; math.Abs(got-plainV-1) > 0.01 {
		t.Fatalf("entity without a body has velocity %g, want %g plus 1", got, plainV)
	}
	if st := r.pred.Stats(); st.PoseCorrections != 2 || st.VelocityCorrections != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// A replay from a frame before one whose HostOnly value the client took
// keeps that value: the records from the taken frame on hold it, and each
// replayed frame is put back to them, where the replay carried its first
// frame's old value into the present (the news went back until the next
// state told it again).
func TestAReplayFromBeforeAHostOnlyValueKeepsIt(t *testing.T) {
	w := ecs.NewWorld()
	reg := replicate.NewRegistry(w)
	replicate.Register(reg, chargeCodec())
	comp := replicate.Register(reg, aimCodec())
	clk := clock.NewFake(time.Unix(5000, 0))
	r := &rig{w: w, reg: reg, clk: clk, sched: ecs.NewSchedule(w, clk, 0), g: newGame(w, localPeer), link: &fakeLink{rtt: 100 * time.Millisecond}}
	r.pred = NewClient(r.sched, reg, padCodec, ClientConfig[pad]{
		Clock: clk, Local: func() ecs.PeerID { return localPeer }, Link: r.link, Reconcile: Replay, Step: r.g.step,
		Components: []Tracker{Track(chargeCodec(), HostValue), Track(aimCodec(), HostOnly)},
	})
	e := r.g.add(localPeer, 0, 5)
	w.Arche().Add(e, arche.ComponentID[aim](w.Arche()))
	r.next = func(f ecs.Frame) pad { return pad{DX: int8(f % 3), DY: -1} }
	r.sched.AddTo(ecs.StageInput, "input", ecs.SystemFunc(func(w *ecs.World) { r.pred.SetInput(r.next(w.Frame())) }))
	r.sched.Add("move", ecs.SystemFunc(func(w *ecs.World) { r.g.step(w, w.Frame(), r.pred.Input()) }))
	r.steps(20)
	state := func(f ecs.Frame, dx float64, a aim) replicate.State {
		img := make([]int32, reg.Offset(comp)+1)
		pt := predicted[ecs.Transform](t, r.pred, f, e, cTransform)
		pt.X += dx
		copy(img, images(reg, pt, predicted[ecs.Velocity](t, r.pred, f, e, cVelocity), predicted[charge](t, r.pred, f, e, cCharge)))
		aimCodec().Quantize(&a, img[reg.Offset(comp):])
		return replicate.NewState(reg, img)
	}
	r.pred.AuthState(10, e, state(10, 1, aim{})) // a replay from 10, pending
	r.pred.AuthState(13, e, state(13, 0, aim{DX: 7}))
	if got := aims(w, e); got != 7 {
		t.Fatalf("the host's value taken at frame 13: the present holds %d, want 7", got)
	}
	r.steps(1)
	if st := r.pred.Stats(); st.Replays != 1 {
		t.Fatalf("%d replays, want the one from frame 10", st.Replays)
	}
	if got := aims(w, e); got != 7 {
		t.Errorf("after the replay from frame 10, the present holds %d, want the host's 7 taken at frame 13", got)
	}
	if got := predicted[aim](t, r.pred, 12, e, comp); got.DX != 0 {
		t.Errorf("frame 12, before the value was taken, recorded %d, want the old 0", got.DX)
	}
}

// aims returns entity e's aim.
func aims(w *ecs.World, e arche.Entity) int8 {
	return (*aim)(w.Arche().Get(e, arche.ComponentID[aim](w.Arche()))).DX
}

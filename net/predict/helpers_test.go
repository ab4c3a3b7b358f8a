package predict

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// The engine's own types plug in as they are.
var (
	_ Smoother = (*interp.Interpolator)(nil)
	_ Link     = (*conn.Conn)(nil)
)

// pad is the test game's input: a push in each axis and a boost button.
type pad struct {
	DX, DY int8
	Boost  bool
}

var padCodec = InputCodec[pad]{
	Append: func(dst []byte, in *pad) []byte {
		b := byte(0)
		if in.Boost {
			b = 1
		}
		return append(dst, byte(in.DX), byte(in.DY), b)
	},
	Read: func(r *wire.Reader, in *pad) {
		in.DX, in.DY = int8(r.U8()), int8(r.U8())
		b := r.U8()
		if b > 1 {
			r.Fail(wire.ErrInvalid)
		}
		in.Boost = b == 1
	},
	MaxSize: 3,
}

// charge is the test game's integer-and-float state, corrected by HostValue.
type charge struct {
	N int64
	F float64
}

func chargeCodec() replicate.Codec[charge] {
	return replicate.Codec[charge]{
		Name:   "charge",
		Fields: 2,
		Quantize: func(v *charge, q []int32) {
			q[0] = int32(v.N)
			q[1] = int32(math.Round(v.F * 16))
		},
		Dequantize: func(q []int32, v *charge) {
			v.N = int64(q[0])
			v.F = float64(q[1]) / 16
		},
		Equal: func(a, b *charge) bool { return a.N == b.N && math.Abs(a.F-b.F) <= 1.0/16 },
	}
}

// game is a tiny deterministic game: owned discs pushed by pads, with drag,
// spin and a charge that counts boosts.
type game struct {
	w     *ecs.World
	local ecs.PeerID
	tf    generic.Map[ecs.Transform]
	vel   generic.Map[ecs.Velocity]
	chg   generic.Map[charge]
	spawn generic.Map4[ecs.Transform, ecs.Velocity, charge, ecs.NetworkIdentity]
}

func newGame(w *ecs.World, local ecs.PeerID) *game {
	return &game{
		w:     w,
		local: local,
		tf:    generic.NewMap[ecs.Transform](w.Arche()),
		vel:   generic.NewMap[ecs.Velocity](w.Arche()),
		chg:   generic.NewMap[charge](w.Arche()),
		spawn: generic.NewMap4[ecs.Transform, ecs.Velocity, charge, ecs.NetworkIdentity](w.Arche()),
	}
}

func (g *game) add(owner ecs.PeerID, x, y float64) arche.Entity {
	return g.spawn.NewWith(&ecs.Transform{X: x, Y: y}, &ecs.Velocity{}, &charge{}, &ecs.NetworkIdentity{Owner: owner})
}

// move simulates frame f of entity e with input in.
func (g *game) move(e arche.Entity, f ecs.Frame, in *pad) {
	const dt = 1.0 / 60
	v, t, c := g.vel.Get(e), g.tf.Get(e), g.chg.Get(e)
	v.X = v.X*0.98 + float64(in.DX)*4
	v.Y = v.Y*0.98 + float64(in.DY)*4
	v.Angular = v.X * 0.01
	if in.Boost {
		c.N++
		v.X += 10
	}
	t.X += v.X * dt
	t.Y += v.Y * dt
	t.Angle += v.Angular * dt
	if t.Angle >= math.Pi {
		t.Angle -= 2 * math.Pi
	} else if t.Angle < -math.Pi {
		t.Angle += 2 * math.Pi
	}
	c.F = c.F*0.99 + float64(c.N+int64(f%3))*0.5
}

// step simulates frame f of every owned entity: the predicted step.
func (g *game) step(w *ecs.World, f ecs.Frame, in *pad) {
	for _, e := range w.Owned(g.local) {
		g.move(e, f, in)
	}
}

// hash returns a hash of the exact state of the owned entities.
func (g *game) hash() uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	for _, e := range g.w.Owned(g.local) {
		t, v, c := g.tf.Get(e), g.vel.Get(e), g.chg.Get(e)
		mix(math.Float64bits(t.X))
		mix(math.Float64bits(t.Y))
		mix(math.Float64bits(t.Angle))
		mix(math.Float64bits(v.X))
		mix(math.Float64bits(v.Y))
		mix(math.Float64bits(v.Angular))
		mix(math.Float64bits(c.F))
		mix(uint64(c.N))
	}
	return h
}

// fakeLink records queued input messages and plays a round trip and a loss
// rate.
type fakeLink struct {
	rtt  time.Duration
	loss float64
	msgs [][]byte
	keep bool
	last []byte
	n    int
}

func (l *fakeLink) Queue(kind wire.Kind, payload []byte, tok conn.Token) error {
	if kind != wire.KindInput {
		panic("unexpected kind " + kind.String())
	}
	l.n++
	l.last = append(l.last[:0], payload...)
	if l.keep {
		l.msgs = append(l.msgs, append([]byte(nil), payload...))
	}
	return nil
}

func (l *fakeLink) RTT() time.Duration { return l.rtt }
func (l *fakeLink) LossRate() float64  { return l.loss }

// rig is a client world with the test game predicted by a Client, stepped
// by hand.
type rig struct {
	w     *ecs.World
	reg   *replicate.Registry
	sched *ecs.Schedule
	clk   *clock.Fake
	g     *game
	pred  *Client[pad]
	link  *fakeLink
	ents  []arche.Entity
	next  func(f ecs.Frame) pad
}

const localPeer ecs.PeerID = 3

// newRig returns a rig with n owned entities; cfg's Local, Link, Clock,
// Components and Step are filled in.
func newRig(t testing.TB, n int, cfg ClientConfig[pad]) *rig {
	w := ecs.NewWorld()
	reg := replicate.NewRegistry(w)
	replicate.Register(reg, chargeCodec())
	clk := clock.NewFake(time.Unix(5000, 0))
	r := &rig{w: w, reg: reg, clk: clk, sched: ecs.NewSchedule(w, clk, 0), g: newGame(w, localPeer), link: &fakeLink{rtt: 100 * time.Millisecond}}
	cfg.Clock = clk
	cfg.Local = func() ecs.PeerID { return localPeer }
	if cfg.Link == nil {
		cfg.Link = r.link
	}
	cfg.Components = append(cfg.Components, Track(chargeCodec(), HostValue))
	if cfg.Step == nil {
		cfg.Step = r.g.step
	}
	r.pred = NewClient(r.sched, reg, padCodec, cfg)
	for i := range n {
		r.ents = append(r.ents, r.g.add(localPeer, float64(10*i), 5))
	}
	r.next = func(f ecs.Frame) pad { return pad{DX: int8(f % 3), DY: -1, Boost: f%7 == 0} }
	r.sched.AddTo(ecs.StageInput, "input", ecs.SystemFunc(func(w *ecs.World) { r.pred.SetInput(r.next(w.Frame())) }))
	r.sched.Add("move", ecs.SystemFunc(func(w *ecs.World) { r.g.step(w, w.Frame(), r.pred.Input()) }))
	return r
}

// steps runs n frames.
func (r *rig) steps(n int) {
	for range n {
		r.clk.Advance(ecs.DefaultStep)
		r.sched.Step()
	}
}

// images returns AuthState images of the given values, laid out by reg.
func images(reg *replicate.Registry, tf ecs.Transform, v ecs.Velocity, c charge) []int32 {
	q := make([]int32, 8)
	replicate.TransformCodec().Quantize(&tf, q[reg.Offset(0):])
	replicate.VelocityCodec().Quantize(&v, q[reg.Offset(1):])
	chargeCodec().Quantize(&c, q[reg.Offset(2):])
	return q
}

// predicted returns the value of component c of e recorded for frame f.
func predicted[T any](t *testing.T, p *Client[pad], f ecs.Frame, e arche.Entity, c replicate.Component) T {
	t.Helper()
	s, ok := p.hist.find(f, recState)
	if !ok {
		t.Fatalf("frame %d not recorded", f)
	}
	k := p.hist.index(s, e, 0)
	if k < 0 {
		t.Fatalf("entity %v not recorded in frame %d", e, f)
	}
	for _, tr := range p.tracks {
		if tr.comp == c {
			return *(*T)(tr.store.at(s*p.hist.stride + k))
		}
	}
	t.Fatalf("component %d not tracked", c)
	panic("unreachable")
}

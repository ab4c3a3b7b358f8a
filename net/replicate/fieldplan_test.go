package replicate

import (
	"math/rand/v2"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Four small delta-coded components, so that items carry many masks.
type (
	gaugeA struct{ V int32 }
	gaugeB struct{ V int32 }
	gaugeC struct{ V, W int32 }
	gaugeD struct{ V int32 }
)

func gaugeCodec[T any](name string, fields int, get func(*T) []*int32) Codec[T] {
	return Codec[T]{
		Name:   name,
		Fields: fields,
		Delta:  true,
		Quantize: func(v *T, q []int32) {
			for i, p := range get(v) {
				q[i] = *p
			}
		},
		Dequantize: func(q []int32, v *T) {
			for i, p := range get(v) {
				*p = q[i]
			}
		},
	}
}

func registerGauges(reg *Registry) {
	Register(reg, gaugeCodec("gaugeA", 1, func(v *gaugeA) []*int32 { return []*int32{&v.V} }))
	Register(reg, gaugeCodec("gaugeB", 1, func(v *gaugeB) []*int32 { return []*int32{&v.V} }))
	Register(reg, gaugeCodec("gaugeC", 2, func(v *gaugeC) []*int32 { return []*int32{&v.V, &v.W} }))
	Register(reg, gaugeCodec("gaugeD", 1, func(v *gaugeD) []*int32 { return []*int32{&v.V} }))
}

// TestItemsOfManyMasksArriveWhole changes a random subset of six
// components of random entities every step, so that a tick's items carry
// more component masks than the encoder keeps field plans for, across the
// ticks where the streams' codes change: every twenty steps, once what is
// on its way has arrived, the client holds the host's image of every
// component.
func TestItemsOfManyMasksArriveWhole(t *testing.T) {
	hw := ecs.NewWorld()
	hreg := NewRegistry(hw)
	registerGauges(hreg)
	cw := ecs.NewWorld()
	creg := NewRegistry(cw)
	registerGauges(creg)
	a := hw.Arche()
	ids := []arche.ID{
		hw.IDs.Transform, hw.IDs.Velocity,
		arche.ComponentID[gaugeA](a), arche.ComponentID[gaugeB](a), arche.ComponentID[gaugeC](a), arche.ComponentID[gaugeD](a),
	}
	host := &scene{w: hw, reg: hreg, still: true}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		host.live = append(host.live, a.NewEntity(append(ids, hw.IDs.NetworkIdentity)...))
	}
	h := NewHost(hreg, HostConfig{SendEvery: 1, BitsPerSecond: 1 << 24})
	host.sched = ecs.NewSchedule(hw, nil, 0)
	quiet := false
	host.sched.Add("change", ecs.SystemFunc(func(w *ecs.World) {
		if quiet {
			return
		}
		for range 40 {
			e := host.live[rng.IntN(len(host.live))]
			for c, id := range ids {
				if rng.IntN(2) == 0 {
					continue
				}
				switch c {
				case 0:
					tf := (*ecs.Transform)(a.Get(e, id))
					tf.X += rng.NormFloat64() * 4
					tf.Angle = rng.Float64()
				case 1:
					(*ecs.Velocity)(a.Get(e, id)).X = rng.NormFloat64() * 10
				case 4:
					g := (*gaugeC)(a.Get(e, id))
					g.V += int32(rng.IntN(9) - 4)
					g.W = int32(rng.IntN(1 << 20))
				default:
					// gaugeA, B and D share a layout: one int32.
					(*gaugeA)(a.Get(e, id)).V += int32(rng.IntN(200) - 100)
				}
				ecs.MutateComponent(w, e, id)
			}
		}
	})).Add("replicate", h)
	c := newTestClient(creg, ClientConfig{Local: 1})
	l := &link{rng: rand.New(rand.NewPCG(3, 4)), peer: 1}
	h.AddPeer(1, l)
	// What the encoder met: the masks of the plans it made, and the ticks
	// whose codes differ from the tick's before.
	masks := map[uint16]bool{}
	newCodes := 0
	codes := h.book.codes
	planned := h.mnext
	step := func() {
		host.sched.Step()
		l.step(t, h, c)
		if h.mnext != planned {
			planned = h.mnext
			for _, mp := range h.mplans {
				if mp.ok {
					masks[mp.mask] = true
				}
			}
		}
		if h.book.codes != codes {
			codes = h.book.codes
			newCodes++
		}
	}
	checks := 0
	for i := range 400 {
		step()
		if c.Joined() && i%20 == 19 {
			// A small change waits up to 1/MinUrgency send ticks: still
			// steps bring what is on its way.
			quiet = true
			for range int(2 / MinUrgency) {
				step()
			}
			quiet = false
			checkImage(t, host, cw, creg)
			checks++
		}
	}
	if checks < 10 {
		t.Fatalf("the client was compared %d times", checks)
	}
	t.Logf("the encoder met %d masks; the codes changed %d times", len(masks), newCodes)
	if len(masks) <= maskPlans || newCodes < 10 {
		t.Fatalf("the encoder met %d masks and new codes %d times; the test needs more than the %d field plans kept, and codes that change", len(masks), newCodes, maskPlans)
	}
	if cs := c.Stats(); cs.Malformed != 0 || cs.DeltaMisses != 0 {
		t.Fatalf("the client refused messages: %+v", cs)
	}
}

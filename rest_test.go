package tandem

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/physics"
)

// push is the test game's input: a thrust along x.
type push struct{ X int8 }

// label is a value the host alone decides (a score, a name tag).
type label struct{ N int32 }

var pushCodec = InputCodec[push]{
	Append: func(dst []byte, in *push) []byte { return append(dst, byte(in.X)) },
	Read:   func(r *wire.Reader, in *push) { in.X = int8(r.U8()) },
}

var labelCodec = replicate.Codec[label]{
	Name: "label", Fields: 1,
	Quantize:   func(v *label, q []int32) { q[0] = v.N },
	Dequantize: func(q []int32, v *label) { v.N = q[0] },
}

var floor = physics.Material{Mass: 1, Velocity: physics.GroundFriction(400)}

// testGame is a disc per player with a label, and a thrust that moves it.
func testGame() *Game[push] {
	return &Game[push]{
		Physics: &physics.Config{},
		Components: []Component{
			Replicate(replicate.TransformCodec(), PredictPose),
			Replicate(replicate.VelocityCodec(), PredictVelocity),
			Replicate(labelCodec, HostValue),
		},
		Setup: func(w *World) {
			f := generic.NewFilter2[Input[push], physics.Body]()
			w.Schedule.Add("thrust", ecs.SystemFunc(func(ew *ecs.World) {
				q := f.Query(ew.Arche())
				for q.Next() {
					in, body := q.Get()
					if x := in.Value.X; x != 0 {
						v := body.CP.Velocity()
						w.Physics.SetVelocity(q.Entity(), ecs.Velocity{X: v.X + float64(x)*20, Y: v.Y})
					}
				}
			}))
		},
		Input: pushCodec,
		Join: func(w *World, p Peer) error {
			a := w.ECS.Arche()
			m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, Input[push], label](a)
			e := m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &Input[push]{}, &label{N: 1})
			w.Physics.AttachCircle(e, 10, floor)
			return nil
		},
		Arrived: func(w *World, e arche.Entity) { w.Physics.AttachCircle(e, 10, floor) },
	}
}

// pair is a host and one client of g over an in-memory link.
// pairOf is a host and one client of a game of input I on an in-memory
// network and a fake clock; pair is the push game's.
type pairOf[I comparable] struct {
	clk    *clock.Fake
	host   *Host[I]
	client *Client[I]
}

type pair = pairOf[push]

func newPair(t *testing.T, g *Game[push], link condition.Config) *pair {
	t.Helper()
	return newPairOf(t, g, g, link)
}

// newPairOf is newPair with the client built from game cg.
func newPairOf(t *testing.T, g, cg *Game[push], link condition.Config) *pair {
	t.Helper()
	return newPairWith(t, g, cg, link, HostConfig{})
}

// newPairWith is newPairOf with the host configured by cfg (its Clock is
// the pair's).
func newPairWith(t *testing.T, g, cg *Game[push], link condition.Config, cfg HostConfig) *pair {
	t.Helper()
	return newPairConfigured(t, g, cg, link, cfg, ClientConfig[push]{})
}

// newPairConfigured is newPairWith with the client configured by cc (its
// Clock is the pair's too).
func newPairConfigured(t *testing.T, g, cg *Game[push], link condition.Config, cfg HostConfig, cc ClientConfig[push]) *pair {
	t.Helper()
	return newPairOfInput(t, g, cg, link, cfg, cc)
}

// newPairOfInput is newPairConfigured for a game of any input.
func newPairOfInput[I comparable](t *testing.T, g, cg *Game[I], link condition.Config, cfg HostConfig, cc ClientConfig[I]) *pairOf[I] {
	t.Helper()
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	n, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := n.Listen("host")
	cfg.Clock = clk
	h, err := NewHost(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	tc, _ := n.Dial(context.Background(), "host")
	cc.Clock = clk
	c, err := NewClient(cg, tc, cc)
	if err != nil {
		t.Fatal(err)
	}
	hc, _ := l.Accept(context.Background())
	h.Accept(hc)
	return &pairOf[I]{clk: clk, host: h, client: c}
}

func (p *pairOf[I]) run(d time.Duration) {
	for end := p.clk.Now().Add(d); p.clk.Now().Before(end); {
		p.clk.Advance(time.Second / 120)
		p.host.Advance()
		p.client.Advance()
	}
}

// The rest lock holds a predicted body at rest on the host's pose, and passes
// every other host value on: a label the host changes while the player rests
// reaches the client.
func TestRestLockPassesHostValues(t *testing.T) {
	p := newPair(t, testGame(), condition.Config{Latency: 40 * time.Millisecond})
	p.client.SetInput(push{X: 1})
	p.run(time.Second / 4)
	p.client.SetInput(push{})
	p.run(3 * time.Second) // the disc stops; the host reports it at rest
	e, ok := p.client.Local()
	if !ok {
		t.Fatal("the client has no disc")
	}
	held := p.client.heldAtRest(e)
	if !held {
		t.Fatal("the resting disc is not held by the rest lock: the test tests nothing")
	}
	he := p.host.World().ECS.Owned(p.client.Peer())[0]
	hw := p.host.World().ECS
	(*label)(hw.Arche().Get(he, arche.ComponentID[label](hw.Arche()))).N = 42
	ecs.MutateComponent(hw, he, arche.ComponentID[label](hw.Arche()))
	p.run(time.Second)
	cw := p.client.World().ECS
	if got := (*label)(cw.Arche().Get(e, arche.ComponentID[label](cw.Arche()))).N; got != 42 {
		t.Fatalf("the host's label 42 of a resting predicted disc reached the client as %d", got)
	}
}

// A host's teleport of a client's own body that rests, held on the host's
// pose by the rest lock, is drawn as a jump on that client, as one of a
// body in motion is: no offset is left to slide it there, and the body is
// where the host put it. With the lock off the same holds; and when the
// client stalled meanwhile (the host's states reach it together, too late
// for its prediction to compare them).
func TestRestingTeleportIsDrawnAsAJump(t *testing.T) {
	for name, c := range map[string]struct {
		noRest bool
		stall  int // host frames the client stands still after the teleport
	}{"rest-lock": {}, "no-rest": {noRest: true}, "rest-lock-stalled": {stall: 200}} {
		t.Run(name, func(t *testing.T) {
			noRest := c.noRest
			g := testGame()
			g.Net.NoRest = noRest
			p := newPair(t, g, condition.Config{Latency: 40 * time.Millisecond})
			p.client.SetInput(push{X: 1})
			p.run(time.Second / 4)
			p.client.SetInput(push{})
			p.run(3 * time.Second) // at rest
			e, ok := p.client.Local()
			if !ok {
				t.Fatal("the client has no player")
			}
			held := p.client.heldAtRest(e)
			if held == noRest {
				t.Fatalf("held by the rest lock: %v; want %v: the test tests nothing", held, !noRest)
			}
			var to float64
			p.host.Do(func(w *World) {
				he := w.ECS.Owned(p.client.Peer())[0]
				tf := *(*ecs.Transform)(w.ECS.Arche().Get(he, w.ECS.IDs.Transform))
				tf.X += 2000
				to = tf.X
				physics.SetPose(w.ECS, he, tf)
			})
			for range c.stall {
				p.clk.Advance(time.Second / 120)
				p.host.Advance()
			}
			biggest := 0.0
			for range 120 {
				p.run(time.Second / 120)
				p.client.View(p.clk.Now(), func(v *View) {
					biggest = max(biggest, math.Abs(v.ip.Offset(e).X))
				})
			}
			var at float64
			p.client.Do(func(w *World) { at = ecs.Get[ecs.Transform](w.ECS, e).X })
			if biggest > 1 || math.Abs(at-to) > 1 {
				t.Fatalf("after the teleport to x %.1f the body is at x %.1f, drawn with offsets up to %.1f: want it there, with none", to, at, biggest)
			}
		})
	}
}

// heldAtRest reports whether the rest lock holds the client's body e.
func (c *Client[I]) heldAtRest(e arche.Entity) bool {
	for i := range c.phys.rests {
		if r := &c.phys.rests[i]; r.e == e && c.phys.holds(r) {
			return true
		}
	}
	return false
}

// A game whose input counts presses (here push.X counts kicks, each one
// thrusting the disc once) is held at rest by its client's rest lock once
// the disc stops, when it says an unchanged count drives nothing
// (Game.Idle). With the default, the zero input, a count past zero holds
// nothing: a platformer trial's player, standing on a crate after a jump,
// was corrected 145 times in 5 s.
func TestAGamesIdleInputIsHeldAtRest(t *testing.T) {
	for _, idle := range []bool{false, true} {
		t.Run(fmt.Sprintf("Idle set %v", idle), func(t *testing.T) {
			g := testGame()
			g.Setup = func(w *World) {
				f := generic.NewFilter2[Input[push], physics.Body]()
				kicks := map[arche.Entity]int8{} // this world's: the count each disc answered
				w.Schedule.Add("kick", ecs.SystemFunc(func(ew *ecs.World) {
					q := f.Query(ew.Arche())
					for q.Next() {
						in, body := q.Get()
						if in.Value.X != kicks[q.Entity()] {
							kicks[q.Entity()] = in.Value.X
							v := body.CP.Velocity()
							w.Physics.SetVelocity(q.Entity(), ecs.Velocity{X: v.X + 40, Y: v.Y})
						}
					}
				}))
			}
			if idle {
				g.Idle = func(prev, in push) bool { return in == prev }
			}
			p := newPair(t, g, condition.Config{Latency: 40 * time.Millisecond})
			p.run(time.Second / 2)
			p.client.SetInput(push{X: 1}) // one kick, and the count stays
			p.run(3 * time.Second)        // the disc stops; the host reports it at rest
			e, ok := p.client.Local()
			if !ok {
				t.Fatal("the client has no disc")
			}
			var v ecs.Velocity
			p.host.Do(func(w *World) { v = *ecs.Get[ecs.Velocity](w.ECS, w.ECS.Owned(p.client.Peer())[0]) })
			if v != (ecs.Velocity{}) {
				t.Fatalf("the host's disc is not at rest (%v): the test shows nothing", v)
			}
			if held := p.client.heldAtRest(e); held != idle {
				t.Errorf("the disc at rest, its count of kicks unchanged: held by the rest lock %v, want %v", held, idle)
			}
		})
	}
}

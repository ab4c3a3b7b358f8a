package tandemtest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// A game system that reacts to the frame's input (it runs before the
// systems that move the player, as a "cast when the button is down" system
// does) gives a command through the World, the one thing a system has,
// during the step: the host runs the command at that step's frame, in the
// world that system saw, as it does one sent between steps
// (TestACommandRunsWhereItsSenderStood). (It ran a frame later, a step of
// the walk on.)
func TestACommandSentFromASystemRunsWhereItsSenderStood(t *testing.T) {
	for _, lat := range []time.Duration{0, 30 * time.Millisecond} {
		t.Run(fmt.Sprint(lat), func(t *testing.T) {
			var x float64
			var ran ecs.Frame
			mark := markCommand(&x, &ran)
			var (
				armed   bool
				stood   float64
				sentAt  ecs.Frame
				op      uint64
				sendErr error
			)
			g := *walkersWith(mark)
			setup := g.Setup
			g.Setup = func(w *tandem.World) {
				if w.Role == tandem.Joined {
					// The caster's system, before the walk: only ann joins.
					w.Schedule.Add("cast", ecs.SystemFunc(func(ew *ecs.World) {
						if !armed {
							return
						}
						armed = false
						owned := ew.Owned(w.Peer)
						stood = ecs.Get[ecs.Transform](ew, owned[0]).X
						sentAt = ew.Frame()
						op, sendErr = tandem.Give(w, mark, struct{}{})
					}))
				}
				setup(w)
			}
			link := condition.Config{Latency: lat}
			r := tandemtest.New(t, &g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
			ann := r.Join("ann", tandem.ClientConfig[Walk]{})
			ann.SetInput(Walk{X: 1})
			r.Step(30)
			armed = true
			r.Step(1)
			if sendErr != nil || op == 0 {
				t.Fatalf("the cast: %d, %v", op, sendErr)
			}
			rc, ok := r.StepUntilReceipt(ann, op, 120)
			if !ok || rc.Status != tandem.ReceiptDone {
				t.Fatalf("the mark: %v, %v", rc, ok)
			}
			if x != stood || ran != sentAt {
				t.Fatalf("ann's system sent the mark in her frame %d seeing her at x = %.0f; the host ran it at frame %d with her at x = %.0f (%.0f units, %.1f of her steps, off)",
					sentAt, stood, ran, x, x-stood, (x-stood)/2)
			}
		})
	}
}

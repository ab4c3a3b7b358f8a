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

// markCommand is a command whose handler notes where the host has the
// sender's figure as it runs, and at which frame.
func markCommand(x *float64, at *ecs.Frame) *tandem.CommandKind[struct{}] {
	return tandem.NewCommand("mark", tandem.CommandCodec[struct{}]{}, func(w *tandem.World, p tandem.Peer, _ struct{}) error {
		owned := w.ECS.Owned(p.ID)
		if len(owned) != 1 {
			return fmt.Errorf("peer %d has %d figures", p.ID, len(owned))
		}
		*x = ecs.Get[ecs.Transform](w.ECS, owned[0]).X
		*at = w.ECS.Frame()
		return nil
	})
}

// A player walking sends a command: the host runs it where she stood when
// she sent it, after the inputs she gave before it, whatever her link's
// latency. (The host ran a command as it came, while her inputs before it
// still waited in its buffer for their frames: an arena trial's nova, a
// ring of shots around its caster, was centred 12 to 16 units behind her.)
func TestACommandRunsWhereItsSenderStood(t *testing.T) {
	for _, lat := range []time.Duration{0, 30 * time.Millisecond, 80 * time.Millisecond} {
		t.Run(fmt.Sprint(lat), func(t *testing.T) {
			var x float64
			var ran ecs.Frame
			mark := markCommand(&x, &ran)
			link := condition.Config{Latency: lat}
			r := tandemtest.New(t, walkersWith(mark), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
			ann := r.Join("ann", tandem.ClientConfig[Walk]{})
			ann.SetInput(Walk{X: 1})
			r.Step(30)
			stood := seenX(t, ann, ann.Peer())
			var frame ecs.Frame
			ann.Do(func(w *tandem.World) { frame = w.ECS.Frame() })
			op, err := tandem.Send(ann, mark, struct{}{})
			if err != nil {
				t.Fatal(err)
			}
			rc, ok := r.StepUntilReceipt(ann, op, 120)
			if !ok || rc.Status != tandem.ReceiptDone {
				t.Fatalf("the mark: %v, %v", rc, ok)
			}
			if x != stood || ran != frame+1 || rc.Frame != ran {
				t.Fatalf("ann sent the mark at her frame %d standing at x = %.0f; the host ran it at frame %d (receipt: %d) with her at x = %.0f (%.0f units, %.1f of her steps, behind); want frame %d and where she stood",
					frame, stood, ran, rc.Frame, x, stood-x, (stood-x)/2, frame+1)
			}
			if lat > 0 && r.Host.Stats().Ahead != 1 {
				t.Fatalf("the host counted %d commands that came before their frame, want the mark", r.Host.Stats().Ahead)
			}
		})
	}
}

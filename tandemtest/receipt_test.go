package tandemtest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// hop moves the sender's figure ten units right, or is refused past 25.
var hop = tandem.NewCommand("hop", tandem.CommandCodec[struct{}]{}, func(w *tandem.World, p tandem.Peer, _ struct{}) error {
	for _, e := range w.ECS.Owned(p.ID) {
		pose := ecs.Mutate[ecs.Transform](w.ECS, e)
		if pose.X >= 25 {
			return tandem.Refuse("far enough")
		}
		pose.X += 10
	}
	return nil
})

// hoppers are the walkers with a command.
var hoppers = walkersWith(hop)

// walkersWith returns the walkers with the commands cmds.
func walkersWith(cmds ...tandem.Command) *tandem.Game[Walk] {
	g := *walkers
	g.Commands = cmds
	return &g
}

// StepUntilReceipt returns each command's receipt, done or refused, once
// it came and again after; one that does not come within the limit is
// reported as such.
func TestStepUntilReceipt(t *testing.T) {
	r := tandemtest.New(t, hoppers, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	for i, want := range []tandem.ReceiptStatus{tandem.ReceiptDone, tandem.ReceiptDone, tandem.ReceiptDone, tandem.ReceiptRefused} {
		op, err := tandem.Send(ann, hop, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.StepUntilReceipt(ann, op, 0); ok {
			t.Fatalf("hop %d: a receipt before any step", i)
		}
		rc, ok := r.StepUntilReceipt(ann, op, 60)
		if !ok || rc.Status != want || rc.Op != op {
			t.Fatalf("hop %d: %v, %v; want %v", i, rc, ok, want)
		}
		if again, ok := r.StepUntilReceipt(ann, op, 0); !ok || again != rc {
			t.Fatalf("hop %d: asked again, %v, %v", i, again, ok)
		}
		want := float64(10 * min(i+1, 3))
		if !r.StepUntil(60, func() bool { return seenX(t, ann, ann.Peer()) == want }) {
			t.Fatalf("hop %d: ann's figure at %.0f, want %.0f", i, seenX(t, ann, ann.Peer()), want)
		}
	}
	if _, ok := r.StepUntilReceipt(ann, 1, 5); ok {
		t.Fatal("a receipt for an operation never sent")
	}
}

// Each visits the host and every client, named, each world once, and
// passes over a client that is closed.
func TestEach(t *testing.T) {
	r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{})
	r.Join("ann", tandem.ClientConfig[Walk]{})
	r.Join("bob", tandem.ClientConfig[Walk]{})
	r.Step(10)
	var names []string
	held := map[*tandem.World]int{}
	r.Each(func(name string, w *tandem.World) {
		names = append(names, name)
		held[w] = w.ECS.Networked()
	})
	if got := strings.Join(names, ","); got != "host,ann,bob" {
		t.Fatalf("Each visited %s", got)
	}
	if len(held) != 3 {
		t.Fatalf("Each gave %d distinct worlds for 3 machines", len(held))
	}
	for w, n := range held {
		if n != 2 {
			t.Fatalf("a %v world holds %d networked entities, want the two figures", w.Role, n)
		}
	}
	// A client closed is passed over.
	r.Clients[1].Close()
	names = nil
	r.Each(func(name string, w *tandem.World) { names = append(names, name) })
	if got := strings.Join(names, ","); got != "host,ann" {
		t.Fatalf("with bob closed, Each visited %s", got)
	}
}

// A test sends a command and waits for its receipt.
func ExampleRig_StepUntilReceipt() {
	test := func(t *testing.T) {
		r := tandemtest.New(t, hoppers, tandem.HostConfig{}, tandemtest.Config{})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		op, err := tandem.Send(ann, hop, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		rc, ok := r.StepUntilReceipt(ann, op, 60)
		if !ok || rc.Status != tandem.ReceiptDone {
			t.Fatalf("hop: %v (heard: %v)", rc, ok)
		}
		// What the hop did reaches ann's world as a correction of her
		// predicted figure, steps before or after the receipt.
	}
	_ = test
}

// Join returns a client whose clock is aligned: from there, an input held
// for n Steps moves its player about n frames on the host, with and without
// latency.
func TestJoinAligns(t *testing.T) {
	for _, lat := range []time.Duration{0, 40 * time.Millisecond} {
		link := condition.Config{Latency: lat}
		r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		if ns := ann.NetStats(); ns.LeadTarget <= 0 {
			t.Fatalf("latency %v: ann joined with no lead to keep (%+v)", lat, ns)
		}
		ann.SetInput(Walk{X: 1})
		r.Step(60)
		ann.SetInput(Walk{})
		r.Step(60)
		if frames := hostX(t, r, ann.Peer()) / 2; frames < 57 || frames > 63 {
			t.Errorf("latency %v: 60 Steps of input walked ann %.0f frames on the host", lat, frames)
		}
	}
}

// A client that owns nothing, in a world where nothing moves, has no state
// to align its clock on: Join returns it playing all the same.
func TestJoinOwningNothing(t *testing.T) {
	idle := *walkers
	idle.Join = func(*tandem.World, tandem.Peer) error { return nil }
	r := tandemtest.New(t, &idle, tandem.HostConfig{}, tandemtest.Config{})
	if ann := r.Join("ann", tandem.ClientConfig[Walk]{}); ann.State() != tandem.Playing {
		t.Fatalf("ann: %v", ann.State())
	}
}

// trip is a command whose handler has a fault: it panics.
var trip = tandem.NewCommand("trip", tandem.CommandCodec[struct{}]{}, func(w *tandem.World, p tandem.Peer, _ struct{}) error {
	var owned []int
	_ = owned[len(w.ECS.Owned(p.ID))] // out of range: panics
	return nil
})

// trippers are the walkers with the faulty command.
var trippers = walkersWith(trip)

// A command handler that panics on the rig's host fails the test at the
// Step that ran it, with the panic and where it was; a test that sets
// HostConfig.OnCommandPanic hears it instead, and the player's receipt
// says the command was refused.
func TestCommandPanicFailsTheTest(t *testing.T) {
	rec := &recorder{TB: t}
	r := tandemtest.New(rec, trippers, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	if _, err := tandem.Send(ann, trip, struct{}{}); err != nil {
		t.Fatal(err)
	}
	stepped := make(chan struct{})
	go func() {
		defer close(stepped)
		r.Step(60) // a Fatalf ends the goroutine, as it would a test's
	}()
	<-stepped
	rec.end()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], `command "trip"`) || !strings.Contains(rec.errs[0], "index out of range") || !strings.Contains(rec.errs[0], "receipt_test.go") {
		t.Fatalf("a panicking command: %q, want the test failed with the panic and its line", rec.errs)
	}

	var heard []*tandem.CommandPanic
	r = tandemtest.New(t, trippers, tandem.HostConfig{OnCommandPanic: func(p *tandem.CommandPanic) { heard = append(heard, p) }}, tandemtest.Config{})
	ann = r.Join("ann", tandem.ClientConfig[Walk]{})
	op, err := tandem.Send(ann, trip, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	rc, ok := r.StepUntilReceipt(ann, op, 60)
	if !ok || rc.Status != tandem.ReceiptRefused || rc.Reason == "" || len(heard) != 1 || r.Host.Stats().CommandPanics != 1 {
		t.Fatalf("with OnCommandPanic set: receipt %v (%v), %d panics heard; want it refused and heard once", rc, ok, len(heard))
	}
}

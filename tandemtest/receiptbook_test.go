package tandemtest_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// step moves the sender's figure one unit right: a count the save keeps.
var step = tandem.NewCommand("step", tandem.CommandCodec[struct{}]{}, func(w *tandem.World, p tandem.Peer, _ struct{}) error {
	for _, e := range w.ECS.Owned(p.ID) {
		ecs.Mutate[ecs.Transform](w.ECS, e).X++
	}
	return nil
})

// A host asked to keep fewer receipts a player than a client holds
// commands without one (HostConfig.Receipts 2, a client 64) keeps 64: six
// commands that ran and were saved, their receipts lost with the host that
// restarted, are sent again to the restored host and answered done from its
// book, each once. (Keeping two, it answered four of them "expired", which
// says they did not run, though they had.)
func TestReceiptBookHoldsWhatAClientMaySendAgain(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		link := condition.Config{Latency: 50 * time.Millisecond}
		save := filepath.Join(t.TempDir(), "steps.db")
		r := tandemtest.New(t, walkersWith(step), tandem.HostConfig{SaveTo: save, Receipts: 2},
			tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		peer := ann.Peer()
		got := map[uint64]tandem.ReceiptStatus{}
		ann.OnReceipt(func(rc tandem.Receipt) { got[rc.Op] = rc.Status })
		var ops []uint64
		for range 6 {
			op, err := tandem.Send(ann, step, struct{}{})
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, op)
		}
		if !r.StepUntil(60, func() bool { return hostX(t, r, peer) == 6 }) {
			t.Fatalf("the host ran the steps to %.0f, want 6", hostX(t, r, peer))
		}
		r.Restart() // saves them; their receipts, sent as it closes, are still on their way
		if !r.StepUntil(60*60, func() bool { return ann.PendingCommands() == 0 && ann.State() == tandem.Playing }) {
			t.Fatalf("ann after the restart: %v, %d commands without a receipt", ann.State(), ann.PendingCommands())
		}
		for _, op := range ops {
			if got[op] != tandem.ReceiptDone {
				t.Errorf("op %d: %v, want done: it ran", op, got[op])
			}
		}
		if x := hostX(t, r, peer); x != 6 {
			t.Errorf("the restored host has ann's figure at %.0f, want 6: each step once", x)
		}
	})
}

// A command whose receipt has not come when the session ends (the host
// shut down with the command on its way to it) is answered ReceiptUnknown
// by the client, which says so, rather than left without an answer: for
// all it knows the command may have run.
func TestCommandsUnansweredAtTheEndAreUnknown(t *testing.T) {
	link := condition.Config{Latency: 50 * time.Millisecond}
	r := tandemtest.New(t, walkersWith(step), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	var got []tandem.Receipt
	ann.OnReceipt(func(rc tandem.Receipt) { got = append(got, rc) })
	op, err := tandem.Send(ann, step, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	r.Step(1) // the client sends it, 50 ms from the host
	// The host closes before it arrives.
	if err := r.Host.Close(); err != nil {
		t.Fatal(err)
	}
	if n := r.Host.Stats().Commands; n != 0 {
		t.Fatalf("the host ran %d commands", n)
	}
	r.StepUntil(60, func() bool { return ann.State() == tandem.Closed })
	if len(got) != 1 || got[0].Op != op || got[0].Status != tandem.ReceiptUnknown || ann.PendingCommands() != 0 {
		t.Fatalf("receipts %v, %d pending, client %v: want op %d unknown, none pending", got, ann.PendingCommands(), ann.State(), op)
	}
	if st := ann.CommandStats(); st.Unknown != 1 {
		t.Fatalf("command stats %+v: want one unknown", st)
	}
}

// A command sent while the connection is down, held for the next one, is
// answered ReceiptExpired when the session ends instead (the host shut
// down meanwhile): it never went, so it did not run. It was left without
// an answer, PendingCommands 1 on a closed client.
func TestACommandNeverSentIsAnsweredAtTheEnd(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, walkersWith(step), tandem.HostConfig{}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		var got []tandem.Receipt
		ann.OnReceipt(func(rc tandem.Receipt) { got = append(got, rc) })
		r.Cut(ann)
		if !r.StepUntil(60*10, func() bool { return ann.State() == tandem.Reconnecting }) {
			t.Fatalf("ann after the cut: %v", ann.State())
		}
		op, err := tandem.Send(ann, step, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Host.Close(); err != nil {
			t.Fatal(err)
		}
		if !r.StepUntil(60*60, func() bool { return ann.State() == tandem.Closed }) {
			t.Fatalf("ann after the host closed: %v", ann.State())
		}
		if len(got) != 1 || got[0].Op != op || got[0].Status != tandem.ReceiptExpired || ann.PendingCommands() != 0 {
			t.Fatalf("receipts %v, %d pending: want op %d expired (never sent), none pending", got, ann.PendingCommands(), op)
		}
		if n := r.Host.Stats().Commands; n != 0 {
			t.Errorf("the host ran %d commands", n)
		}
		if st := ann.CommandStats(); st.Unsent != 1 || st.Sent != 0 {
			t.Errorf("command stats %+v: want one unsent, none sent", st)
		}
	})
}

package tandemtest_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/tandemtest"
)

// A killed host comes back from what it had made durable: every command a
// receipt said done is in the new host's world, a walk after the last save
// is lost, and the player, who heard nothing, finds the silence out,
// resumes as the same peer and plays on (a command after it is done too).
func TestKillKeepsWhatTheReceiptsSaid(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		save := filepath.Join(t.TempDir(), "hoppers.db")
		r := tandemtest.New(t, hoppers, tandem.HostConfig{SaveTo: save, Grace: 10 * time.Second, SaveEvery: time.Hour}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		peer := ann.Peer()
		for i := range 2 {
			op, err := tandem.Send(ann, hop, struct{}{})
			if err != nil {
				t.Fatal(err)
			}
			if rc, ok := r.StepUntilReceipt(ann, op, 120); !ok || rc.Status != tandem.ReceiptDone {
				t.Fatalf("hop %d: %v, %v", i, rc, ok)
			}
		}
		ann.SetInput(Walk{X: -1}) // left, unsaved: SaveEvery is an hour
		r.Step(30)
		ann.SetInput(Walk{})
		r.Step(5)
		if x := hostX(t, r, peer); x >= 20 {
			t.Fatalf("ann walked to %.0f, not back from the hops' 20", x)
		}
		old := r.Host
		r.Kill()
		if r.Host == old {
			t.Fatal("Kill kept the host")
		}
		if x := hostX(t, r, peer); x != 20 {
			t.Fatalf("the host came back with ann at %.0f, want the hops' 20 (the walk after them was not saved)", x)
		}
		if ann.State() != tandem.Playing {
			t.Fatalf("ann was told of the kill: %v", ann.State())
		}
		if !r.StepUntil(20*60, func() bool { return ann.NetStats().Resumes == 1 && ann.State() == tandem.Playing }) {
			t.Fatalf("ann after the kill: %v, %d resumes (%v)", ann.State(), ann.NetStats().Resumes, ann.Err())
		}
		if ann.Peer() != peer || !r.StepUntil(120, func() bool { return seenX(t, ann, peer) == 20 }) {
			t.Fatalf("ann came back as peer %d (was %d), her figure at %.0f", ann.Peer(), peer, seenX(t, ann, peer))
		}
		op, err := tandem.Send(ann, hop, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		if rc, ok := r.StepUntilReceipt(ann, op, 120); !ok || rc.Status != tandem.ReceiptDone || hostX(t, r, peer) != 30 {
			t.Fatalf("a hop after the kill: %v, %v; ann at %.0f", rc, ok, hostX(t, r, peer))
		}
	})
}

// A player that took its place back with a kept ticket (a new token given)
// comes back into a host killed after that: the new token was saved with
// the player, so the restored host takes it.
func TestKillAfterAKeptTicketKeepsTheNewToken(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r, tk := leftBehind(t, 10*time.Second)
		again := r.Join("ann", tandem.ClientConfig[Walk]{Ticket: tk})
		now, _ := again.Ticket()
		if again.Peer() != tk.Peer || now.Token == tk.Token {
			t.Fatalf("the kept ticket: peer %d (the ticket's %d), a new token %v", again.Peer(), tk.Peer, now.Token != tk.Token)
		}
		r.Step(2) // the step's end saves what the resume changed
		r.Kill()
		if !r.StepUntil(20*60, func() bool { return again.NetStats().Resumes == 2 && again.State() == tandem.Playing }) {
			t.Fatalf("after the kill: %v, %d resumes (%v)", again.State(), again.NetStats().Resumes, again.Err())
		}
		if again.Peer() != tk.Peer {
			t.Fatalf("back into the restored host as peer %d, was %d", again.Peer(), tk.Peer)
		}
	})
}

// A kept ticket's Resume reaches the host, whose Resumed (with the new
// token) has not reached the new process when the host is killed: the save
// kept the old token beside the new one until the client takes it, so the
// restored host takes the only token the client holds, and it comes back
// as the ticket's player.
func TestKillBeforeTheResumedArrives(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r, tk := leftBehind(t, time.Minute)
		again := r.Connect("ann", tandem.ClientConfig[Walk]{Ticket: tk})
		r.Link(again, condition.Config{Latency: 10 * time.Millisecond}, condition.Config{Latency: 2 * time.Second})
		if !r.StepUntil(120, func() bool { return r.Host.Stats().Resumed == 1 }) {
			t.Fatalf("the host never took the kept ticket's Resume: %v", r.Host.Stats())
		}
		r.Step(2) // the step's end saves what the resume changed
		if again.Peer() != 0 && again.State() != tandem.Connecting {
			t.Fatalf("the Resumed arrived already: %v peer %d", again.State(), again.Peer())
		}
		r.Kill()
		if !r.StepUntil(40*60, func() bool { return again.State() == tandem.Playing }) {
			t.Fatalf("after the kill: %v (%v)", again.State(), again.Err())
		}
		if again.Peer() != tk.Peer {
			t.Fatalf("the new process came back as peer %d, not the ticket's %d", again.Peer(), tk.Peer)
		}
	})
}

// leftBehind is a saving rig (saved at no interval: only when asked, or
// when the roster changes) keeping a player for grace, whose player ann
// joined, kept her ticket, and went dark for good: the process a player
// left behind.
func leftBehind(t *testing.T, grace time.Duration) (*tandemtest.Rig[Walk], tandem.Ticket) {
	t.Helper()
	save := filepath.Join(t.TempDir(), "hoppers.db")
	r := tandemtest.New(t, hoppers, tandem.HostConfig{SaveTo: save, Grace: grace, SaveEvery: time.Hour}, tandemtest.Config{Bubble: true})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	tk, _ := ann.Ticket()
	r.Unreachable(ann, true) // its dials fail
	r.Cut(ann)
	return r, tk
}

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

// A kept ticket's Resume reaches the host, whose Resumed (with the new
// token) has not reached the new process when the host is killed: the save
// kept the old token beside the new one until the client takes it, so the
// restored host takes the only token the client holds, and it comes back
// as the ticket's player.
func TestKillBeforeTheResumedArrives(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		save := filepath.Join(t.TempDir(), "hoppers.db")
		r := tandemtest.New(t, hoppers, tandem.HostConfig{SaveTo: save, Grace: 60 * time.Second, SaveEvery: time.Hour}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		tk, _ := ann.Ticket()
		r.Unreachable(ann, true)
		r.Cut(ann)
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

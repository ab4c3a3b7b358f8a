package session

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// TestDismiss: before Close, Dismiss lets no one go; after it, every known
// peer leaves — the connected one and the one away — with ErrHostShutDown,
// OnLeave, and its entities removed, and the host knows no peer any more.
func TestDismiss(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		var left []ecs.PeerID
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{Grace: 10 * time.Second,
			OnLeave: func(p ecs.PeerID, err error) {
				if !errors.Is(err, ErrHostShutDown) {
					t.Errorf("peer %d left with %v, want ErrHostShutDown", p, err)
				}
				left = append(left, p)
			}})
		ann, bob := r.join("ann"), r.join("bob")
		bob.setBlock(true)
		bob.conn().Cut()
		bob.conn().Close(transport.CloseTimeout, "the link broke")
		for i := 0; len(r.host.Away()) == 0; i++ {
			if i > 600 {
				t.Fatal("the host never saw bob's connection break")
			}
			r.step()
		}
		if n := r.host.Dismiss(); n != 0 || len(left) != 0 {
			t.Fatalf("Dismiss before Close let %d go (%v), want none", n, left)
		}
		host := len(r.hw.Owned(ecs.HostPeer))
		if err := r.host.Close(); err != nil {
			t.Fatal(err)
		}
		if n := r.host.Dismiss(); n != 2 || len(left) != 2 {
			t.Fatalf("Dismiss after Close let %d go (OnLeave for %v), want ann and bob", n, left)
		}
		if n := countEvents(r.events, PeerLeft); n != 2 {
			t.Fatalf("%d PeerLeft, want 2", n)
		}
		if len(r.hw.Owned(ann.cl.Peer()))+len(r.hw.Owned(bob.cl.Peer())) != 0 || len(r.hw.Owned(ecs.HostPeer)) != host {
			t.Fatal("the dismissed peers' entities are still in the world, or the host's changed")
		}
		if known := r.host.KnownPeers(nil); len(known) != 0 {
			t.Fatalf("the host still knows %v", known)
		}
		if n := r.host.Dismiss(); n != 0 {
			t.Fatalf("a second Dismiss let %d go", n)
		}
	})
}

// A peer whose connection ended on its own before Close, with no step to
// see it, leaves with that connection's reason (a client that left: nil),
// not as one the host let go; the others with ErrHostShutDown.
func TestDismissKeepsEarlierReasons(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		why := map[ecs.PeerID]error{}
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{Grace: 10 * time.Second,
			OnLeave: func(p ecs.PeerID, err error) { why[p] = err }})
		ann, bob := r.join("ann"), r.join("bob")
		ann.setBlock(true)
		if err := ann.cl.Close(); err != nil {
			t.Fatal(err)
		}
		r.clk.Advance(20 * time.Millisecond) // past the link's latency
		synctest.Wait()                      // the host's end hears it; no step reaps it
		if len(why) != 0 {
			t.Fatalf("left before Close: %v", why)
		}
		if err := r.host.Close(); err != nil {
			t.Fatal(err)
		}
		if n := r.host.Dismiss(); n != 2 {
			t.Fatalf("Dismiss let %d go, want 2", n)
		}
		if err, ok := why[ann.cl.Peer()]; !ok || err != nil {
			t.Errorf("ann, who left first: left=%v with %v, want her own reason (nil: she left)", ok, err)
		}
		if err := why[bob.cl.Peer()]; !errors.Is(err, ErrHostShutDown) {
			t.Errorf("bob: %v, want ErrHostShutDown", err)
		}
		if st := r.host.Stats(); st.Dropped != 0 {
			t.Errorf("Dropped %d: a peer who left is not dropped", st.Dropped)
		}
	})
}

// After CloseRestarting the host keeps its peers: they come back to a host
// restored from its save. Dismiss lets no one go.
func TestDismissAfterRestartingKeepsPeers(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		left := 0
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{Grace: 10 * time.Second,
			OnLeave: func(ecs.PeerID, error) { left++ }})
		r.join("ann")
		r.join("bob")
		if err := r.host.CloseRestarting(); err != nil {
			t.Fatal(err)
		}
		if n := r.host.Dismiss(); n != 0 || left != 0 {
			t.Fatalf("Dismiss after CloseRestarting let %d go (%d OnLeave), want none", n, left)
		}
		if known := r.host.KnownPeers(nil); len(known) != 2 {
			t.Fatalf("the host knows %d peers after CloseRestarting, want 2", len(known))
		}
	})
}

package session

import (
	"errors"
	"testing"
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

package session

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// TestPeersForTheLayerAbove: restored peer ids are not given to new peers, a
// spectator's Hello is known for what it asked, the token's hash is the
// Welcome's token hashed, Send reaches the peer on its lane, and Connections
// counts what the host holds.
func TestPeersForTheLayerAbove(t *testing.T) {
	var got [][]byte
	wd := newWorld(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{MaxSpectators: 1})
	if err := wd.host.RestorePeers([]KnownPeer{{Peer: 1, Name: "ann"}, {Peer: 2, Name: "bob"}}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n := wd.host.Connections(); n != 0 {
		t.Fatalf("an idle host holds %d connections", n)
	}
	tc, err := wd.net.Dial(context.Background(), "host")
	if err != nil {
		t.Fatal(err)
	}
	w := ecs.NewWorld()
	c := &testClient{w: w, reg: replicate.NewRegistry(w), sched: ecs.NewSchedule(w, wd.clk, 0)}
	c.cl, err = NewClient(c.sched, c.reg, tc, ClientConfig{Name: "eve", Clock: wd.clk, Spectator: true,
		OnLaneMessage: func(lane transport.Lane, msg []byte) {
			if lane == transport.LaneCommands {
				got = append(got, append([]byte(nil), msg...))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	wd.clients = append(wd.clients, c)
	for i := 0; c.cl.State() != Playing; i++ {
		if i > 300 {
			t.Fatalf("the spectator never joined: %v", c.cl.Err())
		}
		wd.step()
	}
	id := c.cl.Peer()
	if id != 3 {
		t.Fatalf("peer id %d given with 1 and 2 restored, want 3", id)
	}
	if !wd.host.Spectator(id) {
		t.Fatal("the host does not know the peer asked to watch")
	}
	player := wd.join("ann")
	if wd.host.Spectator(player.cl.Peer()) || player.cl.Peer() != 4 {
		t.Fatalf("a player: spectator %v, peer %d", wd.host.Spectator(player.cl.Peer()), player.cl.Peer())
	}
	welcome := c.cl.Welcome()
	if h, ok := wd.host.TokenHash(id); !ok || h != sha256.Sum256(welcome.Token[:]) {
		t.Fatal("TokenHash is not the hash of the Welcome's token")
	}
	if n := wd.host.Connections(); n != 2 {
		t.Fatalf("Connections %d with two peers", n)
	}
	msg, _ := wire.Receipt{Op: 9, Status: wire.ReceiptDone, Frame: 1}.Encode(nil)
	if err := wd.host.Send(id, transport.LaneCommands, msg); err != nil {
		t.Fatal(err)
	}
	if err := wd.host.Send(99, transport.LaneCommands, msg); !errors.Is(err, ErrNoPeer) {
		t.Fatalf("Send to nobody: %v", err)
	}
	for range 10 {
		wd.step()
	}
	if len(got) != 1 || string(got[0]) != string(msg) {
		t.Fatalf("the client got %x on the commands lane", got)
	}
}

// TestCapacityAndSpectators: player MaxPeers+1 is refused as full with a
// Reject that counts players only, before any slot or OnJoin; a spectator
// gets in without a slot, up to MaxSpectators; a player whose connection
// broke keeps its slot (a newcomer is still refused) and resumes into it at
// capacity; a spectator that resumes is a spectator again.
func TestCapacityAndSpectators(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		joins := map[string]int{}
		var r *resumeRig
		r = newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{
			MaxPeers: 2, MaxSpectators: 1,
			OnJoin: func(p ecs.PeerID, name string) error {
				joins[name]++
				if !r.host.Spectator(p) {
					r.spawn.NewWith(&ecs.Transform{X: float64(p)}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
				}
				return nil
			},
		})
		a := r.join("a")
		r.join("b")
		admitted := r.host.Stats().Admitted

		refused := func(name string, spectator bool, code wire.RejectCode, reason string) {
			t.Helper()
			c := r.dialAs(name, "host", spectator)
			for i := 0; c.cl.State() != Closed; i++ {
				if i > 600 {
					t.Fatalf("%s was not refused: %v", name, c.cl.State())
				}
				r.step()
			}
			var re *RejectError
			if !errors.As(c.cl.Err(), &re) || re.Code != code || re.Reason != reason {
				t.Fatalf("%s: %v, want Reject %d %q", name, c.cl.Err(), code, reason)
			}
			if joins[name] != 0 || r.host.Stats().Admitted != admitted {
				t.Fatalf("%s was given a place before its refusal: OnJoin %d, admitted %d (was %d)", name, joins[name], r.host.Stats().Admitted, admitted)
			}
			r.clients = r.clients[:len(r.clients)-1]
		}
		refused("c", false, wire.RejectFull, "host full (2 players); try again later")

		eve := r.dialAs("eve", "host", true)
		for i := 0; eve.cl.State() != Playing; i++ {
			if i > 600 {
				t.Fatalf("the spectator never joined at player capacity: %v", eve.cl.Err())
			}
			r.step()
		}
		admitted = r.host.Stats().Admitted
		if !r.host.Spectator(eve.cl.Peer()) || len(r.owned(eve.cl.Peer())) != 0 {
			t.Fatalf("spectator %v owning %v", r.host.Spectator(eve.cl.Peer()), r.owned(eve.cl.Peer()))
		}
		refused("zoe", true, wire.RejectFull, "no room to watch (spectator places: 1, all taken); try again later")

		// a's connection breaks: its slot stays held.
		peer, owned := a.cl.Peer(), r.owned(a.cl.Peer())
		r.breakPeer(a)
		if away := r.host.Away(); len(away) != 1 || away[0] != peer {
			t.Fatalf("away %v, want [%d]", away, peer)
		}
		refused("d", false, wire.RejectFull, "host full (2 players); try again later")
		a.setBlock(false)
		for i := 0; a.cl.State() != Playing || a.cl.Resumes() != 1; i++ {
			if i > 20*60 {
				t.Fatalf("a did not resume at capacity: %v %v", a.cl.State(), a.cl.Err())
			}
			r.step()
		}
		if a.cl.Peer() != peer || len(r.owned(peer)) != len(owned) || joins["a"] != 1 {
			t.Fatalf("resumed as %d owning %v (was %d owning %v), OnJoin %d times", a.cl.Peer(), r.owned(peer), peer, owned, joins["a"])
		}

		// The spectator's connection breaks; it resumes as a spectator.
		r.breakPeer(eve)
		eve.setBlock(false)
		for i := 0; eve.cl.State() != Playing || eve.cl.Resumes() != 1; i++ {
			if i > 20*60 {
				t.Fatalf("the spectator did not resume: %v %v", eve.cl.State(), eve.cl.Err())
			}
			r.step()
		}
		if !r.host.Spectator(eve.cl.Peer()) {
			t.Fatal("a resumed spectator plays")
		}
	})
}

// TestNoSpectatorsByDefault: a host that takes no spectators refuses one
// with a reason that says so.
func TestNoSpectatorsByDefault(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
		c := r.dialAs("eve", "host", true)
		for i := 0; c.cl.State() != Closed; i++ {
			if i > 600 {
				t.Fatalf("not refused: %v", c.cl.State())
			}
			r.step()
		}
		var re *RejectError
		if !errors.As(c.cl.Err(), &re) || re.Code != wire.RejectDenied || re.Reason != "this host takes no spectators; join as a player" {
			t.Fatalf("%v", c.cl.Err())
		}
	})
}

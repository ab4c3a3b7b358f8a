package session

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// TestPeersForTheLayerAbove: reserved peer ids are not given, a spectator's
// Hello is known for what it asked, the token's hash is the Welcome's token
// hashed, Send reaches the peer on its lane, and Connections counts what the
// host holds.
func TestPeersForTheLayerAbove(t *testing.T) {
	var got [][]byte
	wd := newWorld(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{
		Reserved: func(id ecs.PeerID) bool { return id == 1 || id == 2 },
	})
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
		t.Fatalf("peer id %d given with 1 and 2 reserved, want 3", id)
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

package session

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// An away peer holds its place against its address's MaxPeersPerAddress:
// one address that joins four players and breaks their connections
// (closing them as a broken link would: the host keeps each for its grace
// window) cannot join a fifth, and a player from another address still
// finds the room the host has.
func TestAwayPeersCountAgainstTheirAddress(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond},
			HostConfig{MaxPeers: 8, MaxPeersPerAddress: 4})
		const squatter = "203.0.113.7"
		for i := range 4 {
			c := r.joinFrom("squat", squatter)
			if c.cl.State() != Playing {
				t.Fatalf("join %d: %v (%v)", i, c.cl.State(), c.cl.Err())
			}
			c.cl.Conn().Transport().Close(transport.CloseTimeout, "idle")
		}
		r.steps(100 * time.Millisecond)
		if away, on := len(r.host.Away()), len(r.host.Peers()); away != 4 || on != 0 {
			t.Fatalf("%d away and %d connected, want the four away", away, on)
		}
		fifth := r.joinFrom("squat", squatter)
		var re *RejectError
		if fifth.cl.State() == Playing || !errors.As(fifth.cl.Err(), &re) || re.Code != wire.RejectFull || !strings.Contains(re.Reason, "your address") {
			t.Fatalf("a fifth player from the address of four away: %v (%v), want refused, host full for its address", fifth.cl.State(), fifth.cl.Err())
		}
		if other := r.joinFrom("neighbour", "198.51.100.2"); other.cl.State() != Playing {
			t.Fatalf("a player from another address: %v (%v)", other.cl.State(), other.cl.Err())
		}
	})
}

// Away peers that resume and break again, each within its grace window,
// keep their places but no more than their address's share: three minutes
// of it by eight players of one address (four admitted, four refused)
// leave room for a player from elsewhere.
func TestParkedPeersHoldNoMoreThanTheirAddressShare(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond},
			HostConfig{MaxPeers: 8, MaxPeersPerAddress: 4})
		const squatter = "203.0.113.7"
		var tickets []Ticket
		for range 8 {
			c := r.joinFrom("squat", squatter)
			if c.cl.State() == Playing {
				tk, _ := c.cl.Ticket()
				tickets = append(tickets, tk)
				c.cl.Conn().Transport().Close(transport.CloseTimeout, "idle") // parked for its grace window
			}
			r.steps(100 * time.Millisecond)
		}
		if len(tickets) != 4 || len(r.host.Away()) != 4 {
			t.Fatalf("%d of 8 players of one address admitted, %d away; want 4 (MaxPeersPerAddress)", len(tickets), len(r.host.Away()))
		}
		resumes := 0
		for range 7 { // 7 × 25 s, inside the 30 s grace window each time
			r.steps(25 * time.Second)
			for _, tk := range tickets {
				if r.resumeFrom(t, tk, squatter) {
					resumes++
				}
			}
		}
		if resumes != 7*len(tickets) {
			t.Fatalf("%d resumes of %d: a parked peer resuming within its window is taken back", resumes, 7*len(tickets))
		}
		if other := r.joinFrom("neighbour", "198.51.100.2"); other.cl.State() != Playing {
			t.Fatalf("after three minutes of parked peers of one address, a player from another: %v (%v)", other.cl.State(), other.cl.Err())
		}
	})
}

// resumeFrom resumes the peer of ticket tk from the IP address ip on a raw
// connection, and breaks it again at once (closing it as a broken link
// would); it reports whether the host answered Resumed.
func (r *resumeRig) resumeFrom(t *testing.T, tk Ticket, ip string) bool {
	t.Helper()
	tc, err := r.net.Dial(context.Background(), "host")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	htc, err := r.l.Accept(ctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	r.host.Accept(fromAddr{htc, &net.UDPAddr{IP: net.ParseIP(ip), Port: 40001}})
	tc.SendMessage(transport.LaneControl, wire.Resume{Version: wire.Version, Flags: wire.ResumeHoldsWorld, PeerID: uint32(tk.Peer), Token: tk.Token}.Encode(nil))
	got := false
	for i := 0; i < 30 && !got; i++ {
		r.step()
		for {
			_, msg, ok := tc.RecvMessage()
			if !ok {
				break
			}
			got = got || wire.Kind(msg[0]) == wire.KindResumed
		}
	}
	tc.Close(transport.CloseTimeout, "idle")
	r.step()
	return got
}

package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// TestJoinWithReorderedLanes: whatever lane the network delays, every
// client holds exactly the host's world when its join ends. The world of
// 3,000 entities takes several ticks to join (a small join window), so a
// delayed control lane lets the first pages overtake the Welcome, as two
// QUIC streams may.
func TestJoinWithReorderedLanes(t *testing.T) {
	for _, late := range []transport.Lane{transport.LaneControl, transport.LaneJoin, transport.LaneCommands} {
		t.Run(late.String()+" late", func(t *testing.T) {
			clk := clock.NewFake(time.Unix(1000, 0))
			cfg := mem.Config{ToHost: condition.Config{Latency: 20 * time.Millisecond}, ToClient: condition.Config{Latency: 20 * time.Millisecond}}
			cfg.LaneDelay[late] = 150 * time.Millisecond
			net, err := mem.NewNetwork(clk, cfg)
			if err != nil {
				t.Fatal(err)
			}
			hw := ecs.NewWorld()
			hreg := replicate.NewRegistry(hw)
			hsched := ecs.NewSchedule(hw, clk, 0)
			mv := newMover(hw, 4, 3000)
			mv.still = true
			hsched.Add("mover", mv)
			host := NewHost(hsched, hreg, HostConfig{Clock: clk,
				Replication: replicate.HostConfig{JoinWindow: 8 << 10, JoinPage: 4 << 10}})
			l, _ := net.Listen("host")
			var clients []*testClient
			for _, name := range []string{"ann", "bob", "cyd"} {
				clients = append(clients, dialClient(t, context.Background(), net, "host", clk, name))
			}
			checked := map[*testClient]bool{}
			for step := 0; len(checked) < len(clients); step++ {
				if step > 600 {
					for _, c := range clients {
						t.Logf("%s: %v %v", c.cl.cfg.Name, c.cl.State(), c.cl.Err())
					}
					t.Fatal("the joins did not finish in 10 s")
				}
				clk.Advance(ecs.DefaultStep)
				acceptPending(l, host)
				hsched.Step()
				for _, c := range clients {
					c.sched.Step()
					if c.cl.State() == Closed {
						t.Fatalf("%s closed: %v", c.cl.cfg.Name, c.cl.Err())
					}
					if c.cl.State() == Playing && !checked[c] {
						// At the end of its join the client holds the world.
						sameImage(t, c.cl.cfg.Name, hw, hreg, c.w, c.reg)
						checked[c] = true
					}
				}
			}
		})
	}
}

// scriptedHost is the host side of a raw in-memory connection driven by a
// test: it reads the client's Hello and sends what the test says.
type scriptedHost struct {
	t   *testing.T
	clk *clock.Fake
	tc  transport.Conn
	cl  *testClient
}

// newScriptedHost dials a client into a listener whose host side the test
// drives by hand.
func newScriptedHost(t *testing.T, name string) *scriptedHost {
	clk := clock.NewFake(time.Unix(1000, 0))
	net, err := mem.NewNetwork(clk, mem.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := net.Listen("host")
	cl := dialClient(t, context.Background(), net, "host", clk, name)
	tc, err := l.Accept(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tc.Admit()
	return &scriptedHost{t: t, clk: clk, tc: tc, cl: cl}
}

// step advances the clock and the client one tick.
func (s *scriptedHost) step() {
	s.clk.Advance(ecs.DefaultStep)
	s.cl.sched.Step()
}

// lane returns the next lane message the client sent, failing if none.
func (s *scriptedHost) lane() []byte {
	s.t.Helper()
	for range 10 {
		if _, msg, ok := s.tc.RecvMessage(); ok {
			return append([]byte(nil), msg...)
		}
		s.step()
	}
	s.t.Fatal("the client sent nothing")
	return nil
}

// joinOf returns the join pages and FINAL a host sends a peer for a world of
// n entities.
func joinOf(t *testing.T, n int) (hw *ecs.World, hreg *replicate.Registry, msgs [][]byte) {
	hw = ecs.NewWorld()
	hreg = replicate.NewRegistry(hw)
	newMover(hw, 8, n)
	h := replicate.NewHost(hreg, replicate.HostConfig{JoinPage: 1 << 10})
	out := &laneCapture{}
	h.AddPeer(1, out)
	sched := ecs.NewSchedule(hw, nil, 0)
	sched.Add("replicate", h)
	sched.Step()
	if len(out.lane) < 3 || wire.Kind(out.lane[len(out.lane)-1][0]) != wire.KindJoinFinal {
		t.Fatalf("the host's join is %d messages, not pages and a FINAL", len(out.lane))
	}
	return hw, hreg, out.lane
}

// laneCapture is a replicate.Out that keeps what goes on the lanes.
type laneCapture struct{ lane [][]byte }

func (c *laneCapture) QueueDatagram(wire.Kind, []byte, uint32) error { return nil }
func (c *laneCapture) SendLane(_ transport.Lane, msg []byte) error {
	c.lane = append(c.lane, append([]byte(nil), msg...))
	return nil
}
func (c *laneCapture) LaneBuffered(transport.Lane) int { return 0 }

// welcome is the Welcome the scripted host sends: peer 1.
func welcome() []byte {
	return wire.Welcome{PeerID: 1, TickRate: 60, SendRate: 30, Frame: 1, Runs: wire.LineageOf(wire.RunStart{Run: 1, Fresh: 1})}.Encode(nil)
}

// TestJoinBeforeWelcomeIsHeld: join pages and FINAL that reach the client
// before the Welcome are held and applied after it, not dropped: the client
// holds the whole world at FINAL.
func TestJoinBeforeWelcomeIsHeld(t *testing.T) {
	s := newScriptedHost(t, "early")
	if wire.Kind(s.lane()[0]) != wire.KindHello {
		t.Fatal("the client did not say Hello first")
	}
	hw, hreg, join := joinOf(t, 500)
	for _, m := range join {
		s.tc.SendMessage(transport.LaneJoin, m)
	}
	s.step() // the join arrives first
	s.tc.SendMessage(transport.LaneControl, welcome())
	for range 5 {
		s.step()
	}
	if s.cl.cl.State() != Playing {
		t.Fatalf("client %v (%v), want playing", s.cl.cl.State(), s.cl.cl.Err())
	}
	sameImage(t, "early", hw, hreg, s.cl.w, s.cl.reg)
	if got := s.cl.cl.Stats().HeldBeforeWelcome; got != uint64(len(join)) {
		t.Fatalf("held %d messages before the Welcome, want %d", got, len(join))
	}
	if kind := wire.Kind(s.lane()[0]); kind != wire.KindWelcomeAck {
		t.Fatalf("the client answered the Welcome with %v, want a WelcomeAck", kind)
	}
}

// TestTooMuchJoinBeforeWelcomeFails: past what a client holds before the
// Welcome, the session fails with ErrEarlyJoin instead of dropping pages.
func TestTooMuchJoinBeforeWelcomeFails(t *testing.T) {
	s := newScriptedHost(t, "flooded")
	page := []byte{byte(wire.KindJoinPage), 1, 1, 0}
	for range maxEarlyMessages + 1 {
		s.tc.SendMessage(transport.LaneJoin, page)
	}
	for range 3 {
		s.step()
	}
	if !errors.Is(s.cl.cl.Err(), ErrEarlyJoin) || s.cl.cl.State() != Closed {
		t.Fatalf("client %v, Err %v; want closed with ErrEarlyJoin", s.cl.cl.State(), s.cl.cl.Err())
	}
}

// TestIncompleteJoinFailsTheSession: a host whose FINAL counts a page the
// client never got fails the client's session with ErrJoinIncomplete; the
// client never reports Playing.
func TestIncompleteJoinFailsTheSession(t *testing.T) {
	s := newScriptedHost(t, "short")
	s.lane()
	s.tc.SendMessage(transport.LaneControl, welcome())
	_, _, join := joinOf(t, 500)
	for i, m := range join {
		if i != 1 { // the second page is lost
			s.tc.SendMessage(transport.LaneJoin, m)
		}
	}
	for range 5 {
		s.step()
	}
	var ji *replicate.JoinIncompleteError
	if !errors.As(s.cl.cl.Err(), &ji) || s.cl.cl.State() != Closed {
		t.Fatalf("client %v, Err %v; want closed with a JoinIncompleteError", s.cl.cl.State(), s.cl.cl.Err())
	}
	var ce *transport.CloseError
	if !errors.As(s.tc.Err(), &ce) || ce.Code != transport.CloseProtocol || !ce.Remote {
		t.Fatalf("the host sees %v, want the client's close for a protocol violation", s.tc.Err())
	}
}

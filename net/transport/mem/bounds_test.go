package mem

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// dialUnadmitted connects on a fresh network and leaves the host end
// unadmitted, as a Listener hands it over.
func dialUnadmitted(t *testing.T, cfg Config) (clk *clock.Fake, client, host *Conn) {
	t.Helper()
	clk = clock.NewFake(t0)
	n, err := NewNetwork(clk, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := n.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := n.Dial(context.Background(), "host")
	if err != nil {
		t.Fatal(err)
	}
	h, err := ln.Accept(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return clk, c.(*Conn), h.(*Conn)
}

// TestUnadmittedPeerHoldsLittle: before Admit, the host end holds at most a
// few small messages per lane; anything larger or more waits at the sender
// (ErrLaneQueueFull) with nothing allocated for it, and passes once admitted.
func TestUnadmittedPeerHoldsLittle(t *testing.T) {
	_, client, host := dialUnadmitted(t, Config{})
	if err := client.SendMessage(transport.LaneControl, make([]byte, transport.UnadmittedMaxMessageSize+1)); !errors.Is(err, transport.ErrLaneQueueFull) {
		t.Fatalf("a message above the unadmitted bound: %v, want ErrLaneQueueFull", err)
	}
	for ln := range transport.Lane(transport.NumLanes) {
		sent := 0
		for sent < 100 && client.SendMessage(ln, make([]byte, 40)) == nil {
			sent++
		}
		if sent != transport.UnadmittedLaneMessages {
			t.Fatalf("lane %s took %d small messages before admission, want %d", ln, sent, transport.UnadmittedLaneMessages)
		}
		if q := &host.lanes[ln]; q.cost > transport.UnadmittedLaneCost {
			t.Fatalf("lane %s holds %d bytes, past %d", ln, q.cost, transport.UnadmittedLaneCost)
		}
	}
	host.Admit()
	if err := client.SendMessage(transport.LaneCommands, make([]byte, 64<<10)); err != nil {
		t.Fatalf("after Admit: %v", err)
	}
	for range transport.NumLanes*transport.UnadmittedLaneMessages + 1 {
		if _, _, ok := host.RecvMessage(); !ok {
			t.Fatal("a message is missing")
		}
	}
}

// TestTinyMessagesChargedAtTheirCost: a lane fills at what its messages cost
// (buffer as allocated, queue slot), not at their payload bytes, and at most
// LaneQueueMessages wait; the queue's memory goes back once it drains.
func TestTinyMessagesChargedAtTheirCost(t *testing.T) {
	const limit = 64 << 10
	_, client, host := connect(t, Config{LaneQueueBytes: limit, LaneQueueMessages: 1 << 20})
	sent := 0
	for client.SendMessage(transport.LaneCommands, []byte{0xc0}) == nil {
		sent++
		if sent > limit {
			t.Fatal("one-byte messages were charged at their payload")
		}
	}
	if want := limit / transport.MessageCost(1); sent != want {
		t.Fatalf("the lane took %d one-byte messages, want %d (%d bytes each)", sent, want, transport.MessageCost(1))
	}
	for range sent {
		host.RecvMessage()
	}
	if q := &host.lanes[transport.LaneCommands]; q.msgs != nil || q.cost != 0 || q.bytes != 0 {
		t.Fatalf("the drained lane keeps %d slots, %d bytes charged", len(q.msgs), q.cost)
	}

	_, client, _ = connect(t, Config{LaneQueueMessages: 10})
	for i := range 11 {
		err := client.SendMessage(transport.LaneJoin, []byte{0x83})
		if (i < 10) != (err == nil) {
			t.Fatalf("message %d: %v (the cap is 10 messages)", i, err)
		}
	}
}

// TestMessagesBeforeCloseArrive: lane messages the peer sent before it
// closed are still taken after the close, those that had arrived and those
// still on their way (they went before the close); none is sent after it.
func TestMessagesBeforeCloseArrive(t *testing.T) {
	clk, client, host := connect(t, Config{ToClient: condition.Config{Latency: 10 * time.Millisecond}})
	host.SendMessage(transport.LaneControl, []byte{0x82, 1})
	clk.Advance(10 * time.Millisecond)
	host.SendMessage(transport.LaneControl, []byte{0x82, 2}) // still on its way at the close
	host.Close(transport.CloseNormal, "refused")
	if err := host.SendMessage(transport.LaneControl, []byte{0x82, 3}); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("SendMessage after the close = %v, want ErrClosed", err)
	}
	clk.Advance(time.Second)
	for i := byte(1); i <= 2; i++ {
		if _, msg, ok := client.RecvMessage(); !ok || msg[1] != i {
			t.Fatalf("message %d, sent before the close: %v %v", i, msg, ok)
		}
	}
	if _, msg, ok := client.RecvMessage(); ok {
		t.Fatalf("a message sent after the close arrived: %v", msg)
	}
}

// TestLaneDelayReordersLanes: a delayed lane's message arrives after one
// sent later on another lane; within a lane the order holds.
func TestLaneDelayReordersLanes(t *testing.T) {
	var cfg Config
	cfg.LaneDelay[transport.LaneControl] = 50 * time.Millisecond
	clk, client, host := connect(t, cfg)
	host.SendMessage(transport.LaneControl, []byte{0x81})
	host.SendMessage(transport.LaneJoin, []byte{0x83, 1})
	host.SendMessage(transport.LaneJoin, []byte{0x83, 2})
	var got []byte
	for range 10 {
		for {
			_, msg, ok := client.RecvMessage()
			if !ok {
				break
			}
			got = append(got, msg[len(msg)-1])
		}
		clk.Advance(10 * time.Millisecond)
	}
	if string(got) != "\x01\x02\x81" {
		t.Fatalf("arrival order % x, want the join lane's two messages before the delayed control lane's", got)
	}
}

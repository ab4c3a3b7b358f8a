package quicnet

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tandem-go/tandem/net/transport"
)

// waitFor polls cond until it holds, failing the test after waitTimeout.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// laneState returns, under the lock, what lane ln of c holds.
func laneState(c *Conn, ln transport.Lane) (queued, cost int, reading, waiting bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := &c.lanes[ln]
	return l.recv.len(), l.recvCost, l.reading, l.waiting
}

// TestUnadmittedLanesAllocateNothing: a peer that is not admitted announces a
// 1 MiB message on each lane after a small one. The host takes the small
// ones, then its lane readers wait without allocating anything for the
// large ones; once admitted, they read them whole.
func TestUnadmittedLanesAllocateNothing(t *testing.T) {
	const big = 1 << 20
	hostT, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	qc := rawDial(t, ln.Addr().String(), true)
	payload := bytes.Repeat([]byte{0xc1}, big)
	var streams []*quic.SendStream
	for lane := range byte(transport.NumLanes) {
		head := []byte{lane, 3, 0xc0, lane, lane}
		head = binary.AppendUvarint(head, big)
		streams = append(streams, writeStream(t, qc, append(head, payload[:8<<10]...), false))
	}
	for _, st := range streams {
		go st.Write(payload[8<<10:]) // held by flow control until admitted
	}
	host := acceptHost(t, ln)
	for l := range transport.Lane(transport.NumLanes) {
		waitFor(t, "the lane reader to wait", func() bool {
			queued, _, _, waiting := laneState(host, l)
			return queued == 1 && waiting
		})
		if _, cost, reading, _ := laneState(host, l); reading || cost != transport.MessageCost(3) {
			t.Fatalf("lane %s of an unadmitted peer holds %d bytes (reading %v); want only the small message's %d",
				l, cost, reading, transport.MessageCost(3))
		}
	}
	host.Admit()
	got := map[transport.Lane][]int{}
	for range 2 * transport.NumLanes {
		l, msg := recvMessage(t, host)
		got[l] = append(got[l], len(msg))
		if len(msg) == big && !bytes.Equal(msg, payload) {
			t.Fatalf("lane %s: the large message arrived corrupted", l)
		}
	}
	for l := range transport.Lane(transport.NumLanes) {
		if len(got[l]) != 2 || got[l][0] != 3 || got[l][1] != big {
			t.Fatalf("lane %s delivered messages of %v bytes, want [3 %d]", l, got[l], big)
		}
	}
}

// TestTinyMessageFloodHeldAtCost: a peer floods two lanes with one-byte
// messages that nobody reads: two million on the commands lane, 3,000 on
// the control lane. The host holds at most LaneReceiveMessages of them per
// lane, charged at what they cost, the flood waits in QUIC's flow control,
// and a lane's queue gives its memory back once it drains.
func TestTinyMessageFloodHeldAtCost(t *testing.T) {
	hostT, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	qc := rawDial(t, ln.Addr().String(), true)
	const burst = 3000
	st := writeStream(t, qc, []byte{byte(transport.LaneCommands)}, false)
	go st.Write(bytes.Repeat([]byte{1, 0xc0}, 2<<20))
	st = writeStream(t, qc, []byte{byte(transport.LaneControl)}, false)
	go st.Write(bytes.Repeat([]byte{1, 0xc0}, burst))
	host := acceptHost(t, ln)
	host.Admit()
	for _, l := range []transport.Lane{transport.LaneControl, transport.LaneCommands} {
		waitFor(t, "the lane to fill", func() bool {
			queued, _, _, waiting := laneState(host, l)
			return queued == defaultLaneReceiveMsgs && waiting
		})
		queued, cost, _, _ := laneState(host, l)
		if want := queued * transport.MessageCost(1); cost != want {
			t.Fatalf("lane %s: %d queued one-byte messages are charged %d bytes, want %d", l, queued, cost, want)
		}
	}
	if s := host.qc.ConnectionStats(); s.BytesReceived > 1<<20 {
		t.Fatalf("QUIC took %d bytes of the flood; flow control should hold it to the windows", s.BytesReceived)
	}
	for control := 0; control < burst; {
		if l, _ := recvMessage(t, host); l == transport.LaneControl {
			control++
		}
	}
	host.mu.Lock()
	slots := len(host.lanes[transport.LaneControl].recv.buf)
	host.mu.Unlock()
	if slots > keepRingSlots {
		t.Fatalf("the drained lane keeps %d slots, want at most %d", slots, keepRingSlots)
	}
}

// TestMessagesBeforeCloseStillDelivered: a lane message that reached the
// host before the peer closed is still returned by RecvMessage after the
// close, as a Reject sent just before a close must be.
func TestMessagesBeforeCloseStillDelivered(t *testing.T) {
	p := newPair(t, Config{}, Config{})
	if err := p.host.SendMessage(transport.LaneControl, []byte{0x82, 2, 2, 0, 0}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the message to arrive", func() bool {
		queued, _, _, _ := laneState(p.client, transport.LaneControl)
		return queued == 1
	})
	p.host.Close(transport.CloseNormal, "rejected")
	waitDone(t, p.client)
	if _, msg, ok := p.client.RecvMessage(); !ok || msg[0] != 0x82 {
		t.Fatalf("after the close: %v %v, want the message that arrived before it", msg, ok)
	}
	if _, _, ok := p.client.RecvMessage(); ok {
		t.Fatal("a second message after the close")
	}
}

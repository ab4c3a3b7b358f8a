package quicnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
)

func TestDatagramsRoundTrip(t *testing.T) {
	p := newPair(t, Config{}, Config{})
	sizes := []int{0, 1, 100, 1199, transport.MaxDatagramSize}
	for i, n := range sizes {
		msg := bytes.Repeat([]byte{byte(i + 1)}, n)
		if err := p.client.SendDatagram(msg); err != nil {
			t.Fatal(err)
		}
		got := recvDatagram(t, p.host)
		if !bytes.Equal(got, msg) {
			t.Fatalf("host got %d bytes, want %d bytes of %d", len(got), n, i+1)
		}
		if err := p.host.SendDatagram(got); err != nil {
			t.Fatal(err)
		}
		if back := recvDatagram(t, p.client); !bytes.Equal(back, msg) {
			t.Fatalf("client got %d bytes back, want %d", len(back), n)
		}
	}
	// A datagram is counted sent once quic-go's SendDatagram returns on the
	// sending goroutine, which may be after its peer received it.
	n := uint64(len(sizes))
	waitFor(t, "every datagram counted sent", func() bool {
		return p.client.Stats().DatagramsSent == n && p.host.Stats().DatagramsSent == n
	})
	cs, hs := p.client.Stats(), p.host.Stats()
	if cs.DatagramsSent != n || hs.DatagramsReceived != n || hs.DatagramsSent != n || cs.DatagramsReceived != n {
		t.Fatalf("counters: client %+v host %+v", cs, hs)
	}
	if cs.RTT <= 0 || cs.WireBytesSent < cs.BytesSent || cs.WirePacketsSent == 0 {
		t.Fatalf("QUIC stats missing: %+v", cs)
	}
}

func TestDatagramTooLarge(t *testing.T) {
	p := newPair(t, Config{}, Config{})
	err := p.client.SendDatagram(make([]byte, transport.MaxDatagramSize+1))
	if !errors.Is(err, transport.ErrDatagramTooLarge) {
		t.Fatalf("err = %v, want ErrDatagramTooLarge", err)
	}
}

// TestDatagramSendNeverBlocks sends far more datagrams than QUIC can take at
// once into a small queue: every call returns, the overflow is refused with
// ErrSendQueueFull and counted, and what was taken arrives.
func TestDatagramSendNeverBlocks(t *testing.T) {
	p := newPair(t, Config{}, Config{DatagramQueue: 8})
	const n = 5000
	full := 0
	for i := range n {
		switch err := p.client.SendDatagram([]byte{byte(i)}); {
		case errors.Is(err, transport.ErrSendQueueFull):
			full++
		case err != nil:
			t.Fatal(err)
		}
	}
	if full == 0 {
		t.Fatal("no ErrSendQueueFull: the 8-datagram queue never filled")
	}
	if d := p.client.Stats().DatagramsDropped; d < uint64(full) {
		t.Fatalf("DatagramsDropped = %d, want at least %d", d, full)
	}
	recvDatagram(t, p.host) // the queue still drains
}

func TestLanesRoundTripBothWays(t *testing.T) {
	p := newPair(t, Config{}, Config{})
	type sent struct {
		lane transport.Lane
		msg  []byte
	}
	var msgs []sent
	for i, n := range []int{0, 1, 127, 128, 300, 16 << 10, 100 << 10} {
		for ln := range transport.Lane(transport.NumLanes) {
			msg := bytes.Repeat([]byte(fmt.Sprintf("%d/%d;", ln, i)), n/4+1)[:n]
			msgs = append(msgs, sent{ln, msg})
		}
	}
	// Both sides send on every lane at once: each direction has its own stream.
	for _, m := range msgs {
		if err := p.client.SendMessage(m.lane, m.msg); err != nil {
			t.Fatal(err)
		}
		if err := p.host.SendMessage(m.lane, m.msg); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*Conn{p.host, p.client} {
		next := [transport.NumLanes]int{}
		byLane := [transport.NumLanes][]sent{}
		for _, m := range msgs {
			byLane[m.lane] = append(byLane[m.lane], m)
		}
		for range msgs {
			ln, got := recvMessage(t, c)
			want := byLane[ln][next[ln]]
			if !bytes.Equal(got, want.msg) {
				t.Fatalf("lane %s message %d: got %d bytes, want %d", ln, next[ln], len(got), len(want.msg))
			}
			next[ln]++
		}
		if _, _, ok := c.RecvMessage(); ok {
			t.Fatal("a message too many")
		}
		if s := c.Stats(); s.MessagesReceived != uint64(len(msgs)) || s.MessagesSent != uint64(len(msgs)) {
			t.Fatalf("message counters %+v, want %d each way", s, len(msgs))
		}
	}
}

func TestSendMessageLimits(t *testing.T) {
	p := newPair(t, Config{}, Config{MaxMessageSize: 1000})
	if err := p.client.SendMessage(transport.LaneCommands, make([]byte, 1001)); !errors.Is(err, transport.ErrMessageTooLarge) {
		t.Fatalf("err = %v, want ErrMessageTooLarge", err)
	}
	if err := p.client.SendMessage(transport.NumLanes, nil); !errors.Is(err, transport.ErrBadLane) {
		t.Fatalf("err = %v, want ErrBadLane", err)
	}
	if err := p.client.SendMessage(transport.LaneCommands, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if _, msg := recvMessage(t, p.host); len(msg) != 1000 {
		t.Fatalf("got %d bytes", len(msg))
	}
}

// TestLaneBackpressure: a host that does not read stops its lane reader
// (LaneReceiveBytes), QUIC flow control stops the client's writer, and the
// client's queue refuses more with ErrLaneQueueFull; once the host reads,
// everything taken arrives in order.
func TestLaneBackpressure(t *testing.T) {
	const msgSize = 32 << 10
	p := newPair(t, Config{LaneReceiveBytes: 64 << 10}, Config{LaneSendBytes: 256 << 10})
	accepted := 0
	for i := range 2000 { // 64 MB, far past every window
		msg := bytes.Repeat([]byte{byte(i)}, msgSize)
		err := p.client.SendMessage(transport.LaneJoin, msg)
		if errors.Is(err, transport.ErrLaneQueueFull) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		accepted++
	}
	if accepted == 2000 {
		t.Fatal("the lane queue never filled")
	}
	if b := p.client.Buffered(transport.LaneJoin); b == 0 || b > 256<<10+msgSize {
		t.Fatalf("Buffered = %d, want between 1 and the limit", b)
	}
	// Whatever the client pushes, the host holds at most its limit (plus the
	// message being read) of this lane's messages.
	p.host.mu.Lock()
	held := p.host.lanes[transport.LaneJoin].recvCost
	p.host.mu.Unlock()
	if held > 64<<10 {
		t.Fatalf("host holds messages costing %d bytes, past LaneReceiveBytes", held)
	}
	for i := range accepted {
		ln, msg := recvMessage(t, p.host)
		if ln != transport.LaneJoin || len(msg) != msgSize || msg[0] != byte(i) || msg[msgSize-1] != byte(i) {
			t.Fatalf("message %d: lane %s, %d bytes, first byte %d", i, ln, len(msg), msg[0])
		}
	}
	if b := p.client.Buffered(transport.LaneJoin); b != 0 {
		t.Fatalf("Buffered = %d after everything arrived", b)
	}
}

func TestCloseReachesPeer(t *testing.T) {
	p := newPair(t, Config{}, Config{})
	if err := p.client.Err(); err != nil {
		t.Fatalf("Err on an open connection = %v", err)
	}
	p.host.Close(transport.CloseKicked, "too many crates")
	waitDone(t, p.client)

	var remote *transport.CloseError
	if !errors.As(p.client.Err(), &remote) {
		t.Fatalf("client Err = %v, want *transport.CloseError", p.client.Err())
	}
	if *remote != (transport.CloseError{Code: transport.CloseKicked, Reason: "too many crates", Remote: true}) {
		t.Fatalf("client sees %+v", *remote)
	}
	var local *transport.CloseError
	if !errors.As(p.host.Err(), &local) || local.Remote || local.Code != transport.CloseKicked {
		t.Fatalf("host Err = %v", p.host.Err())
	}
	if err := p.client.SendDatagram([]byte{1}); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("SendDatagram after close = %v", err)
	}
	if err := p.client.SendMessage(0, []byte{1}); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("SendMessage after close = %v", err)
	}
	if err := p.host.Close(transport.CloseNormal, "again"); err != nil {
		t.Fatal(err)
	}
}

func TestIdleTimeout(t *testing.T) {
	cfg := Config{IdleTimeout: 300 * time.Millisecond, KeepAlivePeriod: -1}
	p := newPair(t, cfg, cfg)
	waitDone(t, p.client)
	var ce *transport.CloseError
	if !errors.As(p.client.Err(), &ce) || ce.Code != transport.CloseTimeout || ce.Remote {
		t.Fatalf("client Err = %v, want a local CloseTimeout", p.client.Err())
	}
}

func TestKeepAliveHoldsIdleConnection(t *testing.T) {
	cfg := Config{IdleTimeout: 300 * time.Millisecond, KeepAlivePeriod: 50 * time.Millisecond}
	p := newPair(t, cfg, cfg)
	// Idle for three idle timeouts: a ping/pong exchange must still work.
	for range 3 {
		if err := p.client.SendDatagram([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		recvDatagram(t, p.host)
		select {
		case <-p.client.Done():
			t.Fatalf("closed: %v", p.client.Err())
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// TestNoGoroutineLeft: once the connections and the listener are closed,
// every goroutine they started has ended (sockets closed, quic-go stopped).
func TestNoGoroutineLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	hostT, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	clientT, err := New(Config{Fingerprint: hostT.Fingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	accepted := make(chan transport.Conn, 1)
	go func() {
		c, _ := ln.Accept(ctx)
		accepted <- c
	}()
	c, err := clientT.Dial(ctx, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	host := <-accepted
	for ln := range transport.Lane(transport.NumLanes) { // start every lane goroutine
		c.SendMessage(ln, []byte("x"))
		host.SendMessage(ln, []byte("x"))
	}
	c.SendDatagram([]byte("x"))
	recvMessage(t, host.(*Conn))
	ln.Close() // the accepted connection keeps the socket open
	if _, err := ln.Accept(ctx); !errors.Is(err, transport.ErrListenerClosed) {
		t.Fatalf("Accept after Close = %v, want ErrListenerClosed", err)
	}
	if err := host.SendMessage(0, []byte("still open")); err != nil {
		t.Fatalf("closing the listener closed an accepted connection: %v", err)
	}
	c.Close(transport.CloseNormal, "")
	waitDone(t, host)
	host.Close(transport.CloseNormal, "")

	deadline := time.Now().Add(waitTimeout)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

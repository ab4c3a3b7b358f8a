package quicnet

import (
	"bytes"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/internal/packetpipe"
)

// conditioned returns a WrapPacketConn that puts link conditions on writes
// and keeps the wrapper for its stats.
func conditioned(t *testing.T, cfg condition.Config, keep **condition.PacketConn) func(net.PacketConn) (net.PacketConn, error) {
	return func(pc net.PacketConn) (net.PacketConn, error) {
		c, err := condition.NewPacketConn(pc, cfg, condition.Config{})
		if err == nil && keep != nil {
			*keep = c
		}
		return c, err
	}
}

// TestLargeMessageUnderLoss: a 4 MiB lane message crosses real QUIC on
// loopback intact while the conditioner loses 10% of the packets in each
// direction (1 ms each way, so it finishes in a few seconds).
func TestLargeMessageUnderLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 4 MiB through a lossy link")
	}
	const size = 4 << 20
	link := condition.Config{Latency: 200 * time.Microsecond, Loss: 0.10}
	var hostPC, clientPC *condition.PacketConn
	hostLink, clientLink := link, link
	hostLink.Seed, clientLink.Seed = 1, 2
	p := newPair(t,
		Config{MaxMessageSize: size, WrapPacketConn: conditioned(t, hostLink, &hostPC)},
		Config{MaxMessageSize: size, WrapPacketConn: conditioned(t, clientLink, &clientPC)})

	msg := make([]byte, size)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range msg {
		msg[i] = byte(rng.Uint32())
	}
	start := time.Now()
	if err := p.client.SendMessage(transport.LaneJoin, msg); err != nil {
		t.Fatal(err)
	}
	ln, got := recvMessageWithin(t, p.host, time.Minute)
	elapsed := time.Since(start)
	if ln != transport.LaneJoin || !bytes.Equal(got, msg) {
		t.Fatalf("lane %s: got %d bytes, not the %d sent", ln, len(got), size)
	}
	out, _ := clientPC.Stats()
	back, _ := hostPC.Stats()
	lossRate := float64(out.Lost) / float64(out.Sent)
	if lossRate < 0.07 || lossRate > 0.13 {
		t.Fatalf("the conditioner lost %.1f%% of %d packets, want about 10%%", 100*lossRate, out.Sent)
	}
	if s := p.client.Stats(); s.WirePacketsLost == 0 {
		t.Fatalf("QUIC saw no loss: %+v", s)
	}
	t.Logf("4 MiB in %v; client sent %d packets (%d lost), host sent %d (%d lost)",
		elapsed.Round(time.Millisecond), out.Sent, out.Lost, back.Sent, back.Lost)
}

// TestLargeMessageUnderLossVirtualTime is the same transfer with WAN-like
// conditions (20 ms ± 2 ms each way, 10% loss each way) over an in-memory
// packet pipe under testing/synctest: QUIC's timers run on virtual time, so
// the run costs only CPU, and synctest fails if a goroutine outlives the
// closes.
func TestLargeMessageUnderLossVirtualTime(t *testing.T) {
	const size = 4 << 20
	bubble.Test(t, func(t *testing.T) {
		a, b := packetpipe.New()
		link := condition.Config{Latency: 20 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.10}
		hostLink, clientLink := link, link
		hostLink.Seed, clientLink.Seed = 5, 6
		hostPC, err := condition.NewPacketConn(a, hostLink, condition.Config{})
		if err != nil {
			t.Fatal(err)
		}
		clientPC, err := condition.NewPacketConn(b, clientLink, condition.Config{})
		if err != nil {
			t.Fatal(err)
		}
		hostT, err := New(Config{MaxMessageSize: size})
		if err != nil {
			t.Fatal(err)
		}
		clientT, err := New(Config{MaxMessageSize: size, Fingerprint: hostT.Fingerprint()})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := hostT.ListenPacket(hostPC)
		if err != nil {
			t.Fatal(err)
		}
		accepted := make(chan transport.Conn, 1)
		go func() {
			c, err := ln.Accept(t.Context())
			if err != nil {
				t.Error(err)
			}
			accepted <- c
		}()
		client, err := clientT.DialPacket(t.Context(), clientPC, hostPC.LocalAddr())
		if err != nil {
			t.Fatal(err)
		}
		host := (<-accepted).(*Conn)
		host.Admit()

		msg := make([]byte, size)
		rng := rand.New(rand.NewPCG(7, 8))
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		start := time.Now()
		if err := client.SendMessage(transport.LaneJoin, msg); err != nil {
			t.Fatal(err)
		}
		ln2, got := recvMessageWithin(t, host, 10*time.Minute) // virtual time
		if ln2 != transport.LaneJoin || !bytes.Equal(got, msg) {
			t.Fatalf("lane %s: got %d bytes, not the %d sent", ln2, len(got), size)
		}
		out, _ := clientPC.Stats()
		t.Logf("4 MiB in %v of virtual time; client sent %d packets, %d lost; QUIC RTT %v",
			time.Since(start), out.Sent, out.Lost, client.Stats().RTT)
		if rtt := client.Stats().RTT; rtt < 35*time.Millisecond || rtt > 200*time.Millisecond {
			t.Fatalf("QUIC RTT %v, want about 40 ms", rtt)
		}

		client.Close(transport.CloseNormal, "done")
		host.Close(transport.CloseNormal, "done")
		ln.Close()
		clientPC.Close()
		hostPC.Close()
	})
}

// TestConditionedClientBothWays is the demo's set-up: only the client's
// socket is conditioned, in both directions, and QUIC measures the added
// round trip.
func TestConditionedClientBothWays(t *testing.T) {
	const oneWay = 15 * time.Millisecond
	link := condition.Config{Latency: oneWay}
	p := newPair(t, Config{}, Config{WrapPacketConn: condition.Wrap(link, link)})
	for range 5 {
		if err := p.client.SendDatagram([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		recvDatagram(t, p.host)
		p.host.SendDatagram([]byte("pong"))
		recvDatagram(t, p.client)
	}
	if rtt := p.client.Stats().RTT; rtt < 2*oneWay {
		t.Fatalf("QUIC RTT %v, want at least %v", rtt, 2*oneWay)
	}
}

// TestInFlightUntilSettled: a lane message QUIC took leaves Buffered at
// once but counts in InFlight until QUIC would have delivered it through
// losses (at least a round trip, a fraction of a second here), then
// InFlight falls to 0 by itself; a closed connection counts nothing.
func TestInFlightUntilSettled(t *testing.T) {
	link := condition.Config{Latency: 20 * time.Millisecond}
	p := newPair(t, Config{WrapPacketConn: condition.Wrap(link, link)}, Config{})
	for range 3 { // QUIC measures the round trip
		if err := p.host.SendMessage(transport.LaneControl, []byte{0x81}); err != nil {
			t.Fatal(err)
		}
		recvMessage(t, p.client)
	}
	rtt := p.host.Stats().RTT
	if err := p.host.SendMessage(transport.LaneCommands, []byte{0x86, 1}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for p.host.Buffered(transport.LaneCommands) > 0 {
		time.Sleep(time.Millisecond)
	}
	if n := p.host.InFlight(transport.LaneCommands); n == 0 {
		t.Fatal("InFlight is 0 as QUIC took the message")
	}
	for p.host.InFlight(transport.LaneCommands) > 0 {
		if time.Since(start) > waitTimeout {
			t.Fatal("InFlight never fell to 0")
		}
		time.Sleep(time.Millisecond)
	}
	settled := time.Since(start)
	if settled < rtt || settled > 2*time.Second {
		t.Fatalf("InFlight fell to 0 after %v at a round trip of %v; want between the round trip and 2 s", settled, rtt)
	}
	if ln, m := recvMessage(t, p.client); ln != transport.LaneCommands || m[1] != 1 {
		t.Fatalf("the client received % x on lane %v", m, ln)
	}
	if err := p.host.SendMessage(transport.LaneCommands, []byte{0x86, 2}); err != nil {
		t.Fatal(err)
	}
	for p.host.Buffered(transport.LaneCommands) > 0 {
		time.Sleep(time.Millisecond)
	}
	p.host.Close(transport.CloseNormal, "done")
	if n := p.host.InFlight(transport.LaneCommands); n != 0 {
		t.Fatalf("InFlight = %d after the close", n)
	}
	t.Logf("settled %v after the write at a round trip of %v", settled.Round(time.Millisecond), rtt.Round(time.Millisecond))
}

package mem

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// connect makes a network with cfg on a fake clock and one connection.
func connect(t testing.TB, cfg Config) (clk *clock.Fake, client, host *Conn) {
	t.Helper()
	clk = clock.NewFake(t0)
	n, err := NewNetwork(clk, cfg)
	if err != nil {
		t.Fatal(err)
	}
	client, host = dial(t, n)
	return clk, client, host
}

func dial(t testing.TB, n *Network) (client, host *Conn) {
	t.Helper()
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
	h.Admit() // the tests of admitted peers; unadmitted ones accept by hand
	return c.(*Conn), h.(*Conn)
}

func TestDatagramsArriveAfterLatency(t *testing.T) {
	clk, client, host := connect(t, Config{
		ToHost:   condition.Config{Latency: 40 * time.Millisecond},
		ToClient: condition.Config{Latency: 60 * time.Millisecond},
	})
	if err := client.SendDatagram([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	clk.Advance(39 * time.Millisecond)
	if _, ok := host.RecvDatagram(); ok {
		t.Fatal("arrived before the latency")
	}
	clk.Advance(time.Millisecond)
	p, ok := host.RecvDatagram()
	if !ok || string(p) != "ping" {
		t.Fatalf("got %q, %v at the latency", p, ok)
	}
	host.SendDatagram([]byte("pong"))
	clk.Advance(59 * time.Millisecond)
	if _, ok := client.RecvDatagram(); ok {
		t.Fatal("arrived before the latency")
	}
	clk.Advance(time.Millisecond)
	if p, ok := client.RecvDatagram(); !ok || string(p) != "pong" {
		t.Fatalf("got %q, %v", p, ok)
	}
	if s := client.Stats(); s.RTT != 100*time.Millisecond || s.DatagramsSent != 1 || s.DatagramsReceived != 1 || s.BytesSent != 4 {
		t.Fatalf("client stats %+v", s)
	}
	if err := client.SendDatagram(make([]byte, transport.MaxDatagramSize+1)); !errors.Is(err, transport.ErrDatagramTooLarge) {
		t.Fatalf("err = %v", err)
	}
}

// TestConditionsStatistics sends 10,000 datagrams through a bad link on the
// fake clock and checks each condition's effect within tolerance.
func TestConditionsStatistics(t *testing.T) {
	const n = 10_000
	const lat, jit = 100 * time.Millisecond, 30 * time.Millisecond
	link := condition.Config{Latency: lat, Jitter: jit, Loss: 0.20, Duplicate: 0.05, Reorder: 0.05, Seed: 11}
	clk, client, host := connect(t, Config{ToHost: link})
	sent := make([]time.Time, n)
	seen := make([]int, n)
	delays := []time.Duration{}
	late, highest := 0, -1
	recv := func() {
		for p, ok := host.RecvDatagram(); ok; p, ok = host.RecvDatagram() {
			id := int(binary.LittleEndian.Uint64(p))
			seen[id]++
			delays = append(delays, clk.Now().Sub(sent[id]))
			if id < highest {
				late++
			}
			highest = max(highest, id)
		}
	}
	pkt := make([]byte, 8)
	for i := range n {
		sent[i] = clk.Now()
		binary.LittleEndian.PutUint64(pkt, uint64(i))
		if err := client.SendDatagram(pkt); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Millisecond)
		recv()
	}
	for range 1000 { // drain, still in 1 ms steps so delays stay exact
		clk.Advance(time.Millisecond)
		recv()
	}

	unique, dups := 0, 0
	for _, k := range seen {
		if k > 0 {
			unique++
		}
		if k > 1 {
			dups++
		}
	}
	check := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
		}
	}
	check("loss", 1-float64(unique)/n, 0.20, 0.02)
	check("duplicates among delivered", float64(dups)/float64(unique), 0.05, 0.01)
	out, _ := client.LinkStats()
	// Reordering is drawn for the packets that survive loss. (Jitter alone
	// reorders packets sent 1 ms apart, so count the held-back ones.)
	check("held back", float64(out.Reordered)/float64(out.Sent-out.Lost), 0.05, 0.01)
	if late == 0 {
		t.Error("nothing arrived out of order")
	}
	reorderDelay := max(lat/2, 2*jit, time.Millisecond)
	for _, d := range delays {
		if d < lat-jit || d > lat+jit+reorderDelay+time.Millisecond {
			t.Fatalf("delay %v outside [%v, %v]", d, lat-jit, lat+jit+reorderDelay)
		}
	}
	if s := host.Stats(); s.DatagramsReceived != uint64(len(delays)) {
		t.Fatalf("DatagramsReceived = %d, got %d", s.DatagramsReceived, len(delays))
	}
	if out.Sent != n || out.Delivered != uint64(len(delays)) {
		t.Fatalf("link stats %+v", out)
	}
}

func TestBandwidthCap(t *testing.T) {
	const bw = 50_000
	clk, client, host := connect(t, Config{ToHost: condition.Config{Bandwidth: bw, QueueBytes: 5_000}})
	pkt := make([]byte, 1000)
	perSecond := map[int64]int{}
	for range 1000 { // 100 kB/s offered for 10 s
		client.SendDatagram(pkt)
		clk.Advance(10 * time.Millisecond)
		for p, ok := host.RecvDatagram(); ok; p, ok = host.RecvDatagram() {
			perSecond[clk.Now().Sub(t0).Milliseconds()/1000] += len(p)
		}
	}
	total := 0
	for sec, b := range perSecond {
		if b > bw+len(pkt) {
			t.Fatalf("second %d carried %d bytes, cap %d", sec, b, bw)
		}
		total += b
	}
	if total < 9*bw {
		t.Fatalf("carried %d bytes in 10 s, want close to the cap", total)
	}
}

func TestSameSeedSameRun(t *testing.T) {
	run := func() []uint64 {
		link := condition.Config{Latency: 30 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.3, Duplicate: 0.1, Seed: 99}
		clk, client, host := connect(t, Config{ToHost: link})
		var got []uint64
		pkt := make([]byte, 8)
		for i := range 2000 {
			binary.LittleEndian.PutUint64(pkt, uint64(i))
			client.SendDatagram(pkt)
			clk.Advance(time.Millisecond)
			for p, ok := host.RecvDatagram(); ok; p, ok = host.RecvDatagram() {
				got = append(got, binary.LittleEndian.Uint64(p))
			}
		}
		return got
	}
	a, b := run(), run()
	if len(a) != len(b) {
		t.Fatalf("runs delivered %d and %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("runs differ at %d", i)
		}
	}
}

func TestConnectionsGetTheirOwnRandomness(t *testing.T) {
	clk := clock.NewFake(t0)
	n, err := NewNetwork(clk, Config{ToHost: condition.Config{Loss: 0.5, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	c1, h1 := dial(t, n)
	c2, h2 := dial(t, n)
	var got1, got2 []byte
	for i := range 200 {
		c1.SendDatagram([]byte{byte(i)})
		c2.SendDatagram([]byte{byte(i)})
	}
	for p, ok := h1.RecvDatagram(); ok; p, ok = h1.RecvDatagram() {
		got1 = append(got1, p[0])
	}
	for p, ok := h2.RecvDatagram(); ok; p, ok = h2.RecvDatagram() {
		got2 = append(got2, p[0])
	}
	if bytes.Equal(got1, got2) {
		t.Fatal("two connections lost the same packets")
	}
}

func TestLanesReliableOrderedWithLatency(t *testing.T) {
	// Datagram loss does not touch lanes.
	link := condition.Config{Latency: 25 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.5, Seed: 3}
	clk, client, host := connect(t, Config{ToHost: link, ToClient: link})
	for i := range 100 {
		ln := transport.Lane(i % transport.NumLanes)
		if err := client.SendMessage(ln, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if b := client.Buffered(transport.LaneControl); b != 34 {
		t.Fatalf("Buffered = %d, want 34", b)
	}
	clk.Advance(24 * time.Millisecond)
	if _, _, ok := host.RecvMessage(); ok {
		t.Fatal("a message arrived before the latency")
	}
	clk.Advance(time.Millisecond)
	next := [transport.NumLanes]int{0, 1, 2}
	prevLane := transport.Lane(0)
	for range 100 {
		ln, msg, ok := host.RecvMessage()
		if !ok {
			t.Fatal("a message is missing")
		}
		if int(msg[0]) != next[ln] || ln < prevLane {
			t.Fatalf("lane %s gave %d, want %d (lowest lane first)", ln, msg[0], next[ln])
		}
		next[ln] += transport.NumLanes
		prevLane = ln
	}
	if client.Buffered(transport.LaneControl) != 0 {
		t.Fatal("Buffered not zero after everything was taken")
	}
	if s := host.Stats(); s.MessagesReceived != 100 || s.BytesReceived != 100 {
		t.Fatalf("host stats %+v", s)
	}
}

func TestLaneLimits(t *testing.T) {
	// Room for two 100-byte messages at what they cost, not for three.
	_, client, host := connect(t, Config{MaxMessageSize: 100, LaneQueueBytes: 2*transport.MessageCost(100) + 10})
	if err := client.SendMessage(transport.LaneJoin, make([]byte, 101)); !errors.Is(err, transport.ErrMessageTooLarge) {
		t.Fatalf("err = %v, want ErrMessageTooLarge", err)
	}
	if err := client.SendMessage(transport.NumLanes, nil); !errors.Is(err, transport.ErrBadLane) {
		t.Fatalf("err = %v, want ErrBadLane", err)
	}
	for range 2 {
		if err := client.SendMessage(transport.LaneJoin, make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if err := client.SendMessage(transport.LaneJoin, make([]byte, 100)); !errors.Is(err, transport.ErrLaneQueueFull) {
		t.Fatalf("err = %v, want ErrLaneQueueFull", err)
	}
	if err := client.SendMessage(transport.LaneCommands, make([]byte, 100)); err != nil {
		t.Fatalf("a full join lane blocked commands: %v", err)
	}
	host.RecvMessage() // takes the command (lowest lane first)
	host.RecvMessage() // takes one join message
	if err := client.SendMessage(transport.LaneJoin, make([]byte, 100)); err != nil {
		t.Fatalf("after the peer took a message: %v", err)
	}
}

func TestCloseReachesPeerAtOnce(t *testing.T) {
	_, client, host := connect(t, Config{ToHost: condition.Config{Latency: time.Second}})
	client.SendDatagram([]byte("lost in the close"))
	if err := host.Close(transport.CloseKicked, "bye"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-client.Done():
	default:
		t.Fatal("client Done not closed")
	}
	want := transport.CloseError{Code: transport.CloseKicked, Reason: "bye", Remote: true}
	var ce *transport.CloseError
	if !errors.As(client.Err(), &ce) || *ce != want {
		t.Fatalf("client Err = %v", client.Err())
	}
	if !errors.As(host.Err(), &ce) || ce.Remote {
		t.Fatalf("host Err = %v", host.Err())
	}
	if err := client.SendDatagram([]byte{1}); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("SendDatagram = %v", err)
	}
	if err := client.SendMessage(0, []byte{1}); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("SendMessage = %v", err)
	}
	if _, ok := host.RecvDatagram(); ok {
		t.Fatal("received after close")
	}
	if err := client.Close(transport.CloseNormal, ""); err != nil || !errors.As(client.Err(), &ce) || !ce.Remote {
		t.Fatal("a second Close changed the error")
	}
}

// Lane messages a closing end sent before its close reach the peer, those
// still in flight too (they went before the close, as a QUIC connection's
// stream data goes before its CONNECTION_CLOSE), in order; the closing end
// drops what was on its way to it.
func TestCloseDeliversLaneMessagesInFlight(t *testing.T) {
	link := condition.Config{Latency: 20 * time.Millisecond}
	clk, client, host := connect(t, Config{ToHost: link, ToClient: link})
	host.Admit()
	for i := range 3 {
		if err := host.SendMessage(transport.LaneCommands, []byte{0x86, byte(i)}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(10 * time.Millisecond) // two have arrived at the close, the third is in flight
	}
	if err := client.SendMessage(transport.LaneCommands, []byte{0x85, 9}); err != nil {
		t.Fatal(err)
	}
	host.Close(transport.CloseHostShutdown, "the game has ended")
	for i := range 3 {
		ln, m, ok := client.RecvMessage()
		if !ok || ln != transport.LaneCommands || !bytes.Equal(m, []byte{0x86, byte(i)}) {
			t.Fatalf("message %d: lane %v % x %v; want the host's message %d, sent before its close", i, ln, m, ok, i)
		}
	}
	if _, m, ok := client.RecvMessage(); ok {
		t.Fatalf("the client received % x past what the host sent", m)
	}
	clk.Advance(time.Second)
	if _, m, ok := host.RecvMessage(); ok {
		t.Fatalf("the host received % x, in flight to it when it closed", m)
	}
	if host.Buffered(transport.LaneCommands) != 0 {
		t.Fatalf("Buffered = %d after the client took everything", host.Buffered(transport.LaneCommands))
	}
}

func TestListenerAndDialErrors(t *testing.T) {
	n, err := NewNetwork(clock.NewFake(t0), Config{Backlog: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Dial(context.Background(), "nobody"); err == nil {
		t.Fatal("Dial to no listener worked")
	}
	ln, err := n.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Listen("host"); err == nil {
		t.Fatal("a second Listen on the same name worked")
	}
	if ln.Addr().String() != "host" || ln.Addr().Network() != "mem" {
		t.Fatalf("Addr = %v", ln.Addr())
	}
	pending, err := n.Dial(context.Background(), "host")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Dial(context.Background(), "host"); err == nil {
		t.Fatal("Dial past the backlog worked")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := n.Dial(ctx, "host"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Dial with a done context = %v", err)
	}
	ln.Close()
	var ce *transport.CloseError
	if !errors.As(pending.Err(), &ce) || ce.Code != transport.CloseNormal || !ce.Remote { // nothing said of the host
		t.Fatalf("a connection never accepted: Err = %v", pending.Err())
	}
	if _, err := ln.Accept(context.Background()); !errors.Is(err, transport.ErrListenerClosed) {
		t.Fatalf("Accept after Close = %v", err)
	}
	if _, err := n.Listen("host"); err != nil {
		t.Fatalf("the name was not freed: %v", err)
	}
}

func TestAcceptWaitsForContext(t *testing.T) {
	n, _ := NewNetwork(clock.NewFake(t0), Config{})
	ln, _ := n.Listen("host")
	defer ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ln.Accept(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Accept = %v", err)
	}
}

func TestNetworkRefusesBadConfig(t *testing.T) {
	if _, err := NewNetwork(nil, Config{}); err == nil {
		t.Fatal("nil clock accepted")
	}
	if _, err := NewNetwork(clock.Real{}, Config{ToClient: condition.Config{Loss: 3}}); err == nil {
		t.Fatal("loss of 3 accepted")
	}
}

func TestDatagramPathAllocatesNothing(t *testing.T) {
	clk, client, host := connect(t, Config{ToHost: condition.Config{Latency: 5 * time.Millisecond, Loss: 0.1, Seed: 1}})
	pkt := make([]byte, 1000)
	step := func() {
		client.SendDatagram(pkt)
		clk.Advance(time.Millisecond)
		for _, ok := host.RecvDatagram(); ok; _, ok = host.RecvDatagram() {
		}
	}
	for range 100 {
		step()
	}
	if a := testing.AllocsPerRun(1000, step); a != 0 {
		t.Fatalf("%v allocations per datagram", a)
	}
}

// BenchmarkMemDatagram sends and receives one datagram through a conditioned
// in-memory connection.
func BenchmarkMemDatagram(b *testing.B) {
	clk, client, host := connect(b, Config{ToHost: condition.Config{Latency: 5 * time.Millisecond, Seed: 1}})
	pkt := make([]byte, 1000)
	b.ReportAllocs()
	for b.Loop() {
		client.SendDatagram(pkt)
		clk.Advance(100 * time.Microsecond)
		for _, ok := host.RecvDatagram(); ok; _, ok = host.RecvDatagram() {
		}
	}
}

// A cut link carries nothing either way, in flight or sent after, and a
// close of one end no longer reaches the other: each end stays open until it
// closes itself.
func TestCutLinkGoesDark(t *testing.T) {
	clk, client, host := connect(t, Config{ToHost: condition.Config{Latency: 10 * time.Millisecond}})
	client.SendDatagram([]byte("in flight"))
	client.SendMessage(transport.LaneControl, []byte{0x80, 1})
	client.Cut()
	client.SendDatagram([]byte("after"))
	host.SendMessage(transport.LaneControl, []byte{0x81, 2})
	clk.Advance(time.Second)
	if p, ok := host.RecvDatagram(); ok {
		t.Fatalf("the host received %q over a cut link", p)
	}
	if _, m, ok := host.RecvMessage(); ok {
		t.Fatalf("the host received % x over a cut link", m)
	}
	if _, m, ok := client.RecvMessage(); ok {
		t.Fatalf("the client received % x over a cut link", m)
	}
	client.Close(transport.CloseTimeout, "the host stopped answering")
	if host.Err() != nil {
		t.Fatalf("a close over a cut link reached the host: %v", host.Err())
	}
	select {
	case <-host.Done():
		t.Fatal("the host's end is done after the client closed over a cut link")
	default:
	}
	host.Close(transport.CloseTimeout, "the client stopped answering")
	var ce *transport.CloseError
	if !errors.As(host.Err(), &ce) || ce.Remote || !errors.As(client.Err(), &ce) || ce.Remote {
		t.Fatalf("each end closed by itself: client %v, host %v", client.Err(), host.Err())
	}
}

// A cut link's ends each close by themselves Config.IdleTimeout after the
// cut, with CloseTimeout, as QUIC's idle timeout closes them; a negative
// IdleTimeout never does, and a link not cut never idles out.
func TestCutLinkIdlesOut(t *testing.T) {
	clk, client, host := connect(t, Config{IdleTimeout: 3 * time.Second})
	clk.Advance(time.Minute) // a quiet link that is not cut stays open
	if client.Err() != nil || host.Err() != nil {
		t.Fatalf("a quiet link closed: client %v, host %v", client.Err(), host.Err())
	}
	client.Cut()
	clk.Advance(3*time.Second - time.Millisecond)
	if _, ok := host.RecvDatagram(); ok || host.Err() != nil || client.Err() != nil {
		t.Fatalf("closed before the idle timeout: client %v, host %v", client.Err(), host.Err())
	}
	clk.Advance(time.Millisecond)
	host.RecvDatagram()
	select {
	case <-host.Done():
	default:
		t.Fatal("the host's end is not done at the idle timeout")
	}
	var ce *transport.CloseError
	for _, end := range []*Conn{client, host} {
		if !errors.As(end.Err(), &ce) || ce.Code != transport.CloseTimeout || ce.Remote {
			t.Fatalf("an end at the idle timeout: %v, want its own CloseTimeout", end.Err())
		}
	}
	clk2, c2, h2 := connect(t, Config{IdleTimeout: -1})
	c2.Cut()
	clk2.Advance(time.Hour)
	if c2.Err() != nil || h2.Err() != nil {
		t.Fatalf("with IdleTimeout < 0 a cut link closed: %v, %v", c2.Err(), h2.Err())
	}
}

// A blackout of one end loses the datagrams it sends during it and those
// that would reach it during it, holds lane messages either way until it
// ends, closes neither end, and then the link carries again.
func TestBlackoutLosesDatagramsAndHoldsLanes(t *testing.T) {
	lat := condition.Config{Latency: 10 * time.Millisecond}
	clk, client, host := connect(t, Config{ToHost: lat, ToClient: lat})
	client.SendDatagram([]byte("on its way"))
	host.SendDatagram([]byte("on its way back"))
	client.Blackout(100 * time.Millisecond)
	client.SendDatagram([]byte("sent in it"))
	host.SendDatagram([]byte("reaching it in it"))
	client.SendMessage(transport.LaneControl, []byte{0x80, 1})
	host.SendMessage(transport.LaneControl, []byte{0x81, 2})
	clk.Advance(50 * time.Millisecond)
	if p, ok := host.RecvDatagram(); !ok || string(p) != "on its way" {
		t.Fatalf("the host received %q, %v; want the datagram sent before the blackout", p, ok)
	}
	if _, m, ok := host.RecvMessage(); ok {
		t.Fatalf("the host received % x sent in the blackout", m)
	}
	if _, m, ok := client.RecvMessage(); ok {
		t.Fatalf("the client received % x in its blackout", m)
	}
	clk.Advance(50 * time.Millisecond)
	for _, end := range []*Conn{client, host} {
		if p, ok := end.RecvDatagram(); ok {
			t.Fatalf("%q arrived after the blackout, sent in it or due in it", p)
		}
	}
	if _, m, ok := client.RecvMessage(); !ok || !bytes.Equal(m, []byte{0x81, 2}) {
		t.Fatalf("the client's lane message after the blackout: % x, %v", m, ok)
	}
	if _, m, ok := host.RecvMessage(); ok {
		t.Fatalf("the host received % x as the blackout ended, before the latency", m)
	}
	clk.Advance(10 * time.Millisecond)
	if _, m, ok := host.RecvMessage(); !ok || !bytes.Equal(m, []byte{0x80, 1}) {
		t.Fatalf("the host's lane message after the blackout: % x, %v", m, ok)
	}
	client.SendDatagram([]byte("after"))
	clk.Advance(10 * time.Millisecond)
	if p, ok := host.RecvDatagram(); !ok || string(p) != "after" {
		t.Fatalf("the host received %q, %v after the blackout; want the datagram sent after it", p, ok)
	}
	if client.Err() != nil || host.Err() != nil {
		t.Fatalf("a blackout closed the link: client %v, host %v", client.Err(), host.Err())
	}
}

// A muted end's datagrams are lost and its lane messages wait for the end
// of the mute, while what the peer sends reaches it as usual.
func TestMuteLosesOneDirection(t *testing.T) {
	lat := condition.Config{Latency: 10 * time.Millisecond}
	clk, client, host := connect(t, Config{ToHost: lat, ToClient: lat})
	client.Mute(100 * time.Millisecond)
	client.SendDatagram([]byte("sent muted"))
	host.SendDatagram([]byte("reaching it"))
	client.SendMessage(transport.LaneControl, []byte{0x80, 1})
	host.SendMessage(transport.LaneControl, []byte{0x81, 2})
	clk.Advance(20 * time.Millisecond)
	if p, ok := client.RecvDatagram(); !ok || string(p) != "reaching it" {
		t.Fatalf("the muted client received %q, %v; want the host's datagram", p, ok)
	}
	if _, m, ok := client.RecvMessage(); !ok || !bytes.Equal(m, []byte{0x81, 2}) {
		t.Fatalf("the muted client's lane message: % x, %v; want the host's", m, ok)
	}
	if p, ok := host.RecvDatagram(); ok {
		t.Fatalf("the host received %q sent muted", p)
	}
	if _, m, ok := host.RecvMessage(); ok {
		t.Fatalf("the host received % x sent muted, before the mute ended", m)
	}
	client.Mute(50 * time.Millisecond) // ends before the current one: nothing
	clk.Advance(90 * time.Millisecond) // 10 ms past the mute's end
	if _, m, ok := host.RecvMessage(); !ok || !bytes.Equal(m, []byte{0x80, 1}) {
		t.Fatalf("the host's lane message after the mute: % x, %v", m, ok)
	}
	if p, ok := host.RecvDatagram(); ok {
		t.Fatalf("%q arrived after the mute, sent in it", p)
	}
	client.SendDatagram([]byte("after"))
	clk.Advance(10 * time.Millisecond)
	if p, ok := host.RecvDatagram(); !ok || string(p) != "after" {
		t.Fatalf("the host received %q, %v after the mute; want the datagram sent after it", p, ok)
	}
	if client.Err() != nil || host.Err() != nil {
		t.Fatalf("a mute closed the link: client %v, host %v", client.Err(), host.Err())
	}
}

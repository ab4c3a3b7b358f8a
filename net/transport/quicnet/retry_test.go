package quicnet

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"testing"

	"github.com/quic-go/quic-go"

	"github.com/tandem-go/tandem/net/transport"
)

// deafConn is a UDP socket that hears only the first `hear` packets sent to
// it: a client behind it starts handshakes it can never finish, as one with a
// spoofed source address does.
// (It hides the socket's batch and OOB methods, which would bypass ReadFrom.)
type deafConn struct {
	net.PacketConn
	mu   sync.Mutex
	hear int
}

func (d *deafConn) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		n, addr, err := d.PacketConn.ReadFrom(p)
		if err != nil {
			return n, addr, err
		}
		d.mu.Lock()
		pass := d.hear > 0
		d.hear--
		d.mu.Unlock()
		if pass {
			return n, addr, nil
		}
	}
}

// stallHandshakes starts n handshakes with addr that never finish, each from
// its own socket hearing `hear` packets, until the test ends.
func stallHandshakes(t *testing.T, addr string, n, hear int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	ua, _ := net.ResolveUDPAddr("udp", addr)
	for range n {
		udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		tr := &quic.Transport{Conn: &deafConn{PacketConn: udp, hear: hear}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer udp.Close()
			defer tr.Close()
			tr.Dial(ctx, ua, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{ALPN}}, &quic.Config{EnableDatagrams: true})
		}()
	}
}

// connects dials ln with a real client and reports whether it got in.
func connects(t *testing.T, ln *Listener) {
	t.Helper()
	tr, err := New(Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	client, host := dialAccept(t, tr, ln)
	client.SendDatagram([]byte("hi"))
	if string(recvDatagram(t, host)) != "hi" {
		t.Fatal("the client that got in cannot talk")
	}
}

// TestHandshakeFloodMustProveAddress: once RetryAbove handshakes are in
// progress, new attempts must prove their address with a QUIC Retry. Twenty
// attempts that cannot hear the host (spoofed, as far as it can tell) leave
// only RetryAbove handshakes behind, and a real client still gets in through
// the Retry.
func TestHandshakeFloodMustProveAddress(t *testing.T) {
	hostT, err := New(Config{RetryAbove: 2, MaxHandshakesPerAddress: 100})
	if err != nil {
		t.Fatal(err)
	}
	l, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := l.(*Listener)
	t.Cleanup(func() { ln.Close() })
	stallHandshakes(t, ln.Addr().String(), 20, 0)
	waitFor(t, "the flood to be asked for Retries", func() bool {
		st := ln.Stats()
		return st.Handshaking == 2 && st.Retries >= 18
	})
	connects(t, ln)
	if st := ln.Stats(); st.Handshaking > 2 {
		t.Fatalf("%d handshakes in progress, past RetryAbove (%+v)", st.Handshaking, st)
	}
}

// TestHandshakesPerAddress: past MaxHandshakesPerAddress handshakes in
// progress from one address, its attempts must prove the address, and proven
// ones past the cap again are refused; the cap is per address, so the
// listener stays open to others.
func TestHandshakesPerAddress(t *testing.T) {
	hostT, err := New(Config{RetryAbove: 1000, MaxHandshakesPerAddress: 2})
	if err != nil {
		t.Fatal(err)
	}
	l, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := l.(*Listener)
	t.Cleanup(func() { ln.Close() })
	// Two stalled handshakes that never proved their address, then attempts
	// that hear the Retry (one packet) and stall after proving it.
	stallHandshakes(t, ln.Addr().String(), 2, 0)
	waitFor(t, "two handshakes in progress", func() bool { return ln.Stats().Handshaking == 2 })
	stallHandshakes(t, ln.Addr().String(), 6, 1)
	waitFor(t, "proven attempts past the cap to be refused", func() bool {
		st := ln.Stats()
		return st.Handshaking == 4 && st.Refused >= 4
	})
	if st := ln.Stats(); st.Retries < 6 {
		t.Fatalf("%+v: the address past its cap was not asked to prove itself", st)
	}
	// A real client from the address is refused as the host being busy,
	// an error that says to dial again.
	me, err := New(Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx0, cancel0 := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel0()
	if c, err := me.Dial(ctx0, ln.Addr().String()); !errors.Is(err, transport.ErrBusy) {
		if c != nil {
			c.Close(transport.CloseNormal, "")
		}
		t.Fatalf("a client past its address's cap: %v; want transport.ErrBusy", err)
	}
	// Another address is not held back by this one's cap.
	other, err := New(Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 2)})
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	t.Cleanup(func() { udp.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	go ln.Accept(ctx)
	c, err := other.DialPacket(ctx, udp, ln.Addr())
	if err != nil {
		t.Fatalf("a client from another address: %v", err)
	}
	c.Close(transport.CloseNormal, "")
}

package quicnet

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
)

func TestMain(m *testing.M) {
	os.Setenv("QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING", "true")
	os.Exit(m.Run())
}

// waitTimeout bounds every wait for the network in these tests; on loopback
// events come in milliseconds, so reaching it means the behaviour broke.
const waitTimeout = 10 * time.Second

// pair is a connected host and client over loopback.
type pair struct {
	hostT, clientT *Transport
	ln             transport.Listener
	host, client   *Conn
}

// newPair listens on 127.0.0.1:0 with hostCfg and dials with clientCfg, which
// pins the host's fingerprint unless it says otherwise; the host side is
// admitted. Everything is closed at the end of the test.
func newPair(t testing.TB, hostCfg, clientCfg Config) *pair {
	t.Helper()
	hostT, err := New(hostCfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	if clientCfg.Fingerprint == "" && !clientCfg.InsecureSkipVerify {
		clientCfg.Fingerprint = hostT.Fingerprint()
	}
	clientT, err := New(clientCfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &pair{hostT: hostT, clientT: clientT, ln: ln}
	p.client, p.host = dialAccept(t, clientT, ln)
	return p
}

// dialAccept dials ln with tr and accepts the host side.
func dialAccept(t testing.TB, tr *Transport, ln transport.Listener) (client, host *Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	accepted := make(chan transport.Conn, 1)
	acceptErr := make(chan error, 1)
	go func() {
		c, err := ln.Accept(ctx)
		if err != nil {
			acceptErr <- err
			return
		}
		accepted <- c
	}()
	c, err := tr.Dial(ctx, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	client = c.(*Conn)
	t.Cleanup(func() { client.Close(transport.CloseNormal, "test over") })
	select {
	case s := <-accepted:
		host = s.(*Conn)
	case err := <-acceptErr:
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close(transport.CloseNormal, "test over") })
	host.Admit() // the tests of admitted peers; unadmitted ones accept by hand
	return client, host
}

// recvDatagram waits for the next datagram on c.
func recvDatagram(t testing.TB, c *Conn) []byte {
	t.Helper()
	timeout := time.NewTimer(waitTimeout)
	defer timeout.Stop()
	for {
		if p, ok := c.RecvDatagram(); ok {
			return p
		}
		select {
		case <-c.Arrived():
		case <-c.Done():
			t.Fatalf("connection closed while waiting for a datagram: %v", c.Err())
		case <-timeout.C:
			t.Fatal("no datagram arrived")
		}
	}
}

// recvMessage waits for the next lane message on c.
func recvMessage(t testing.TB, c *Conn) (transport.Lane, []byte) {
	t.Helper()
	return recvMessageWithin(t, c, waitTimeout)
}

// recvMessageWithin waits up to d for the next lane message on c.
func recvMessageWithin(t testing.TB, c *Conn, d time.Duration) (transport.Lane, []byte) {
	t.Helper()
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		if ln, msg, ok := c.RecvMessage(); ok {
			return ln, msg
		}
		select {
		case <-c.Arrived():
		case <-c.Done():
			t.Fatalf("connection closed while waiting for a message: %v", c.Err())
		case <-timeout.C:
			t.Fatal("no message arrived")
		}
	}
}

// waitDone waits for c to close.
func waitDone(t testing.TB, c transport.Conn) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(waitTimeout):
		t.Fatal("connection did not close")
	}
}

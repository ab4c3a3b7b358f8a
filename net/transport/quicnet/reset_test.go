package quicnet

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
)

// TestRestartedHostResetsOldClients: a host is killed (its socket closed, no
// close sent) and started again on the same port with the same stateless
// reset key. Its old client's next packets get a stateless reset, so the
// client's connection ends at once with transport.ErrReset, long before its
// 30 s idle timeout.
func TestRestartedHostResetsOldClients(t *testing.T) {
	var key [32]byte
	for i := range key {
		key[i] = byte(i * 7)
	}
	listen := func(addr string) (*Listener, net.PacketConn) {
		t.Helper()
		tr, err := New(Config{StatelessResetKey: &key})
		if err != nil {
			t.Fatal(err)
		}
		ua, _ := net.ResolveUDPAddr("udp", addr)
		pc, err := net.ListenUDP("udp", ua)
		if err != nil {
			t.Fatal(err)
		}
		l, err := tr.ListenPacket(pc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close(); pc.Close() })
		return l, pc
	}
	l, pc := listen("127.0.0.1:0")
	addr := pc.LocalAddr().String()
	clientT, err := New(Config{InsecureSkipVerify: true, IdleTimeout: 30 * time.Second, KeepAlivePeriod: -1})
	if err != nil {
		t.Fatal(err)
	}
	client, host := dialAccept(t, clientT, l)
	client.SendDatagram([]byte("before"))
	recvDatagram(t, host)

	pc.Close() // the host dies without a word
	restarted, _ := listen(addr)
	go func() { // the new host serves whoever comes
		for {
			c, err := restarted.Accept(context.Background())
			if err != nil {
				return
			}
			defer c.Close(transport.CloseNormal, "")
		}
	}()
	start := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for done := false; !done; {
		select {
		case <-client.Done():
			done = true
		case <-tick.C:
			client.SendDatagram(make([]byte, 200)) // as a game client sends inputs
		case <-deadline:
			t.Fatalf("the old client still thinks it is connected %v after the restart", time.Since(start))
		}
	}
	if !errors.Is(client.Err(), transport.ErrReset) {
		t.Fatalf("client Err = %v, want transport.ErrReset", client.Err())
	}
	t.Logf("the old client learned of the restart %v after it", time.Since(start).Round(time.Millisecond))
}

package tandem_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/quicnet"
)

// Restartable says what CloseForRestart will do, not whether the players
// can come back over QUIC, which the host does not see (its transport is
// the game's): with SaveTo alone it reports true, and CloseForRestart tells
// the player to come back; a new host on the save and the same address but
// with a new certificate restores her place, yet her client, which pinned
// the old certificate, refuses it and ends (transport.ErrUntrusted)
// instead of resuming. Keeping the identity (tandem.OpenSave) is the
// game's part: tandemtest's Loopback.Restart does, and its clients resume.
func TestRestartableDoesNotSeeTheCertificate(t *testing.T) {
	save := filepath.Join(t.TempDir(), "shop.db")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	// serve starts a host on the save at addr, with a new certificate.
	serve := func(addr string) (*tandem.Host[Thrust], transport.Listener, string) {
		t.Helper()
		ht, err := quicnet.New(quicnet.Config{})
		if err != nil {
			t.Fatal(err)
		}
		l, err := ht.Listen(addr)
		if err != nil {
			t.Fatalf("listen on %s: %v", addr, err)
		}
		h, err := tandem.NewHost(shop, tandem.HostConfig{SaveTo: save})
		if err != nil {
			l.Close()
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		h.Serve(l)
		go h.Run(ctx)
		return h, l, ht.Fingerprint()
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("waited 10 s for %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	first, l, pin := serve("127.0.0.1:0")
	addr := l.Addr().String()
	ct, err := quicnet.New(quicnet.Config{Fingerprint: pin})
	if err != nil {
		t.Fatal(err)
	}
	ann, err := tandem.NewClient(shop, nil, tandem.ClientConfig[Thrust]{Name: "ann", Dial: ct.Dialer(addr, 5*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	ran := make(chan error, 1)
	go func() { ran <- ann.Run(ctx) }()
	wait("ann to play", func() bool { return ann.State() == tandem.Playing })

	if !first.Restartable() {
		t.Fatal("a host with SaveTo and the default grace window is not restartable")
	}
	if err := first.CloseForRestart(); err != nil {
		t.Fatal(err)
	}
	second, _, newPin := serve(addr)
	if newPin == pin {
		t.Fatal("the second host has the first one's certificate")
	}
	if rep := second.Restored(); rep.Seq == 0 || rep.Players != 1 {
		t.Fatalf("the second host restored %v, want ann's place", rep)
	}
	var end error
	select {
	case end = <-ran:
	case <-time.After(20 * time.Second):
		t.Fatalf("ann still runs 20 s after the restart: %v (%v)", ann.State(), ann.Err())
	}
	if !errors.Is(ann.Err(), transport.ErrUntrusted) || ann.NetStats().Resumes != 0 {
		t.Fatalf("ann after a restart with a new certificate: Run ended with %v, Err %v, %d resumes; want refused as untrusted, not resumed", end, ann.Err(), ann.NetStats().Resumes)
	}
}

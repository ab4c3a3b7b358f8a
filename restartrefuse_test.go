package tandem_test

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// A client told that its host restarts dials again; a dial that reaches the
// old host, closed, is refused as the restart it was told of, and the
// client goes on dialing until the new host takes it back. The old host
// refused it as shut down, and the client, taking that for the end, closed
// (ExampleHost_CloseForRestart printed "closed" now and then: its redial
// came, on its own goroutine, between a step's accepting and the client's
// step). Here the redial is held until that moment.
func TestARedialToTheClosedHostKeepsReconnecting(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		save := filepath.Join(t.TempDir(), "shop.db")
		clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		network, err := mem.NewNetwork(clk, mem.Config{})
		if err != nil {
			t.Fatal(err)
		}
		listener, err := network.Listen("host")
		if err != nil {
			t.Fatal(err)
		}
		dial := func(ctx context.Context) (transport.Conn, error) { return network.Dial(ctx, "host") }
		gate := make(chan struct{}) // a redial waits here while held
		var held atomic.Bool
		redial := func(ctx context.Context) (transport.Conn, error) {
			if held.Load() {
				<-gate
			}
			return dial(ctx)
		}
		host, err := tandem.NewHost(shop, tandem.HostConfig{Clock: clk, SaveTo: save})
		if err != nil {
			t.Fatal(err)
		}
		conn, err := dial(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		client, err := tandem.NewClient(shop, conn, tandem.ClientConfig[Thrust]{Name: "ann", Clock: clk, Dial: redial})
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		refused := 0
		step := func(n int) {
			for range n {
				clk.Advance(time.Second / 60)
				for {
					ctx, cancel := context.WithTimeout(context.Background(), 0)
					tc, err := listener.Accept(ctx)
					cancel()
					if err != nil {
						break
					}
					host.Accept(tc)
				}
				host.Advance()
				if held.Load() {
					synctest.Wait() // a redial begun is at the gate
					select {
					case gate <- struct{}{}: // it ends now, after the accepting
						synctest.Wait()
						refused++
					default:
					}
				}
				client.Advance()
			}
		}
		step(30)
		peer := client.Peer()
		if err := host.CloseForRestart(); err != nil {
			t.Fatal(err)
		}
		held.Store(true)
		release := sync.OnceFunc(func() { held.Store(false); close(gate) })
		defer release()
		step(5)
		if refused == 0 {
			t.Fatal("the client did not dial again within five steps of the restart")
		}
		if client.State() != tandem.Reconnecting {
			t.Fatalf("after %d dials to the closed host: %v (%v), want reconnecting", refused, client.State(), client.Err())
		}
		release()
		host, err = tandem.NewHost(shop, tandem.HostConfig{Clock: clk, SaveTo: save})
		if err != nil {
			t.Fatal(err)
		}
		defer host.Close()
		for i := 0; i < 600 && client.State() != tandem.Playing; i++ {
			step(1)
			synctest.Wait() // a redial's end reaches the client
		}
		if client.State() != tandem.Playing || client.Peer() != peer {
			t.Fatalf("after the restart: %v as peer %d, want playing as %d (%v)", client.State(), client.Peer(), peer, client.Err())
		}
	})
}

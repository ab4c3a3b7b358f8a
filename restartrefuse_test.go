package tandem_test

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/store"
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
		clk, network, listener := memNetwork(t)
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

// blockingWorld is a store.World whose commits, once armed, say they
// began and wait for the test's answer: nil commits, an error fails.
type blockingWorld struct {
	store.World
	armed   atomic.Bool
	began   chan struct{}
	answers chan error
}

func (b *blockingWorld) Commit(ctx context.Context, batch *store.Batch) (uint64, error) {
	if b.armed.Load() {
		b.began <- struct{}{}
		if err := <-b.answers; err != nil {
			return 0, err
		}
	}
	return b.World.Commit(ctx, batch)
}

// A connection that reaches a host closing for a restart while its final
// save runs waits for the save's outcome, and is refused as the players
// are told: come back if it landed, shut down if it failed.
func TestAConnectionDuringTheFinalSaveIsToldItsOutcome(t *testing.T) {
	for _, fails := range []bool{false, true} {
		db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "shop.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := db.OpenWorld(context.Background(), "shop")
		if err != nil {
			t.Fatal(err)
		}
		bw := &blockingWorld{World: w, began: make(chan struct{}), answers: make(chan error)}
		clk, network, listener := memNetwork(t)
		host, err := tandem.NewHost(shop, tandem.HostConfig{Clock: clk, Store: bw})
		if err != nil {
			t.Fatal(err)
		}
		host.Advance()
		bw.armed.Store(true)
		closed := make(chan error, 1)
		go func() { closed <- host.CloseForRestart() }()
		<-bw.began // the final save runs
		tc := dialHost(t, network, listener, host)
		select {
		case <-tc.Done():
			t.Fatalf("fails %v: refused before the save decided the restart: %v", fails, tc.Err())
		default:
		}
		bw.armed.Store(false) // the saves after this one go through
		want := transport.CloseHostRestarting
		if fails {
			want = transport.CloseHostShutdown
			bw.answers <- errors.New("the disk is full")
		} else {
			bw.answers <- nil
		}
		<-closed
		clk.Advance(time.Second)
		<-tc.Done()
		var ce *transport.CloseError
		if !errors.As(tc.Err(), &ce) || ce.Code != want {
			t.Errorf("fails %v: the connection ended with %v, want %v", fails, tc.Err(), want)
		}
		db.Close()
	}
}

// memNetwork returns a fake clock, an in-memory network on it and a
// listener at "host".
func memNetwork(t *testing.T) (*clock.Fake, *mem.Network, transport.Listener) {
	t.Helper()
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	network, err := mem.NewNetwork(clk, mem.Config{})
	if err != nil {
		t.Fatal(err)
	}
	listener, err := network.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	return clk, network, listener
}

// A final save that panics (a game's codec) leaves no restart to wait for:
// a connection that arrived while it ran is refused as for a shutdown, not
// held open until its client gives up.
func TestAPanicInTheFinalSaveRefusesWhatWaited(t *testing.T) {
	var armed atomic.Bool
	game := *shop
	game.Components = []tandem.Component{tandem.Replicate(replicate.Codec[Coins]{
		Name: "coins", Fields: 1,
		Quantize:   func(v *Coins, q []int32) { q[0] = v.N },
		Dequantize: func(q []int32, v *Coins) { v.N = q[0] },
		AppendExact: func(dst []byte, v *Coins) []byte {
			if armed.Load() {
				panic("the coins codec broke")
			}
			return binary.LittleEndian.AppendUint32(dst, uint32(v.N))
		},
		ReadExact: func(r *wire.Reader, v *Coins) { v.N = int32(r.U32()) },
	}, tandem.HostValue)}
	clk, network, listener := memNetwork(t)
	host, err := tandem.NewHost(&game, tandem.HostConfig{Clock: clk, SaveTo: filepath.Join(t.TempDir(), "shop.db")})
	if err != nil {
		t.Fatal(err)
	}
	host.Do(func(w *tandem.World) {
		m := generic.NewMap2[Coins, ecs.NetworkIdentity](w.ECS.Arche())
		m.NewWith(&Coins{N: 3}, &ecs.NetworkIdentity{})
	})
	armed.Store(true)
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal("the final save did not panic")
			}
		}()
		host.CloseForRestart()
	}()
	tc := dialHost(t, network, listener, host)
	clk.Advance(time.Second)
	select {
	case <-tc.Done():
	default:
		t.Fatal("a connection to the host whose final save panicked is held open")
	}
	var ce *transport.CloseError
	if !errors.As(tc.Err(), &ce) || ce.Code != transport.CloseHostShutdown {
		t.Fatalf("the connection ended with %v, want the host's shutdown", tc.Err())
	}
}

// dialHost dials the host at "host" on network and hands the host its end
// of the connection, as its loop would; it returns the client's end.
func dialHost(t *testing.T, network *mem.Network, listener transport.Listener, host *tandem.Host[Thrust]) transport.Conn {
	t.Helper()
	tc, err := network.Dial(context.Background(), "host")
	if err != nil {
		t.Fatal(err)
	}
	hc, err := listener.Accept(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	host.Accept(hc)
	return tc
}

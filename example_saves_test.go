package tandem_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// Coins is a replicated component: a player's purse.
type Coins struct{ N int32 }

// spend is a command: a player asks the host to take n coins from its purse,
// and the host refuses what the purse does not hold.
var spend = tandem.NewCommand("spend", tandem.CommandCodec[int32]{
	Append: func(dst []byte, n *int32) []byte { return wire.AppendUvarint(dst, uint64(*n)) },
	Read: func(r *wire.Reader, n *int32) {
		v := r.Uvarint32()
		if v > math.MaxInt32 {
			r.Fail(wire.ErrInvalid) // no client of this game sends it: refused
		}
		*n = int32(v)
	},
}, func(w *tandem.World, p tandem.Peer, n int32) error {
	purse := generic.NewMap[Coins](w.ECS.Arche())
	for _, e := range w.ECS.Owned(p.ID) {
		c := purse.Get(e)
		if c.N < n {
			return tandem.Refuse(fmt.Sprintf("the purse holds %d", c.N))
		}
		c.N -= n
		ecs.MutateComponent(w.ECS, e, purse.ID())
	}
	return nil
})

// shop is a game of purses: every player starts with 10 coins and spends
// them with commands; the host saves the world.
var shop = &tandem.Game[Thrust]{
	Components: []tandem.Component{
		tandem.Replicate(tandem.Exact(replicate.Codec[Coins]{
			Name: "coins", Fields: 1,
			Quantize:   func(v *Coins, q []int32) { q[0] = v.N },
			Dequantize: func(q []int32, v *Coins) { v.N = q[0] },
		}), tandem.HostValue),
	},
	Setup:    func(w *tandem.World) {},
	Input:    thrustCodec,
	Commands: []tandem.Command{spend},
	Join: func(w *tandem.World, p tandem.Peer) error {
		m := generic.NewMap2[Coins, ecs.NetworkIdentity](w.ECS.Arche())
		m.NewWith(&Coins{N: 10}, &ecs.NetworkIdentity{Owner: p.ID})
		return nil
	},
}

// A player's commands come back with receipts once the host has saved what
// they changed; a host started again on the save has the world as it was,
// its player included when the first closed for a restart.
func Example_commandsAndSaves() {
	dir, _ := os.MkdirTemp("", "shop")
	defer os.RemoveAll(dir)
	save := filepath.Join(dir, "shop.db")
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	network, _ := mem.NewNetwork(clk, mem.Config{})
	listener, _ := network.Listen("host")

	host, err := tandem.NewHost(shop, tandem.HostConfig{Clock: clk, SaveTo: save})
	if err != nil {
		panic(err)
	}
	conn, _ := network.Dial(context.Background(), "host")
	client, _ := tandem.NewClient(shop, conn, tandem.ClientConfig[Thrust]{Name: "ann", Clock: clk})
	accepted, _ := listener.Accept(context.Background())
	host.Accept(accepted)
	client.OnReceipt(func(r tandem.Receipt) {
		if r.Status == tandem.ReceiptRefused {
			fmt.Println("receipt: refused:", r.Reason)
			return
		}
		fmt.Println("receipt:", r.Status)
	})
	step := func(n int) {
		for range n {
			clk.Advance(time.Second / 60)
			host.Advance()
			client.Advance()
		}
	}
	step(30)
	tandem.Send(client, spend, 4)
	tandem.Send(client, spend, 7) // 6 left: refused
	step(5)
	host.Save(context.Background()) // the saves run at the disk's pace; wait for one here
	step(5)
	host.CloseForRestart() // ann is told to come back: her place and purse stay in the save

	again, err := tandem.NewHost(shop, tandem.HostConfig{Clock: clk, SaveTo: save})
	if err != nil {
		panic(err)
	}
	defer again.Close()
	r := again.Restored()
	fmt.Printf("restored %d entity, %d player, %d receipts\n", r.Entities, r.Players, r.Receipts)
	again.Do(func(w *tandem.World) {
		purse := generic.NewMap[Coins](w.ECS.Arche())
		fmt.Println("ann's purse:", purse.Get(w.ECS.Owned(client.Peer())[0]).N)
	})
	// Output:
	// receipt: done
	// receipt: refused: the purse holds 6
	// restored 1 entity, 1 player, 2 receipts
	// ann's purse: 6
}

// ExampleOpenSave keeps a host's world and identity in a save file: the
// first start makes the identity (the pin its players hold), a restart
// reads it back, the same pin, and restores the world.
func ExampleOpenSave() {
	dir, err := os.MkdirTemp("", "shop")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "shop", "world.db") // or tandem.DefaultSavePath("shop")
	var pins []string
	for range 2 {
		sf, err := tandem.OpenSave(context.Background(), path, "world")
		if err != nil {
			panic(err)
		}
		h, err := tandem.NewHost(shop, tandem.HostConfig{Store: sf.World})
		if err != nil {
			panic(err)
		}
		// The transport presents the kept identity: quicnet.Config's
		// Certificate and StatelessResetKey, set by sf.Identity.Apply.
		fmt.Printf("identity made now: %v, a save restored: %v\n", sf.Identity.Made, h.Restored().Seq > 0)
		pins = append(pins, sf.Identity.Fingerprint())
		if err := h.Close(); err != nil {
			panic(err)
		}
		sf.Close()
	}
	fmt.Println("same pin after the restart:", pins[0] == pins[1])
	// Output:
	// identity made now: true, a save restored: false
	// identity made now: false, a save restored: true
	// same pin after the restart: true
}

// ExampleHost_CloseForRestart restarts a host without losing its players:
// CloseForRestart saves and tells them to come back; their clients, which
// can dial again, reconnect and resume into the world the next host
// restores from the save, as the same peers.
func ExampleHost_CloseForRestart() {
	dir, _ := os.MkdirTemp("", "shop")
	defer os.RemoveAll(dir)
	save := filepath.Join(dir, "shop.db")
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	network, _ := mem.NewNetwork(clk, mem.Config{})
	listener, _ := network.Listen("host")
	dial := func(ctx context.Context) (transport.Conn, error) { return network.Dial(ctx, "host") }

	host, err := tandem.NewHost(shop, tandem.HostConfig{Clock: clk, SaveTo: save})
	if err != nil {
		panic(err)
	}
	conn, _ := dial(context.Background())
	client, _ := tandem.NewClient(shop, conn, tandem.ClientConfig[Thrust]{Name: "ann", Clock: clk, Dial: dial})
	step := func(n int) {
		for range n {
			clk.Advance(time.Second / 60)
			for { // the connections that arrived: the first, then the client's redial
				ctx, cancel := context.WithTimeout(context.Background(), 0)
				tc, err := listener.Accept(ctx)
				cancel()
				if err != nil {
					break
				}
				host.Accept(tc)
			}
			host.Advance()
			client.Advance()
		}
	}
	step(30)
	peer := client.Peer()
	if err := host.CloseForRestart(); err != nil {
		panic(err)
	}
	step(5)
	fmt.Println("told of the restart:", client.State())

	host, err = tandem.NewHost(shop, tandem.HostConfig{Clock: clk, SaveTo: save}) // the new host, on the save
	if err != nil {
		panic(err)
	}
	defer host.Close()
	// The client redials on a goroutine of its own: step until it plays
	// again, for at most 10 s of the host's time.
	for i := 0; i < 600 && client.State() != tandem.Playing; i++ {
		step(1)
	}
	fmt.Println("back:", client.State(), "as the same peer:", client.Peer() == peer)
	// Output:
	// told of the restart: reconnecting
	// back: playing as the same peer: true
}

// ExampleHost_SaveSoon saves the world whenever a player joins: the
// observer of the join runs with the world held, where Save cannot run (it
// would wait for itself), so it asks with SaveSoon; the save is made at the
// end of that step and lands when the disk is done.
func ExampleHost_SaveSoon() {
	dir, _ := os.MkdirTemp("", "shop")
	defer os.RemoveAll(dir)
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	network, _ := mem.NewNetwork(clk, mem.Config{})
	listener, _ := network.Listen("host")
	saved := make(chan tandem.SavedReport, 8)
	host, err := tandem.NewHost(shop, tandem.HostConfig{
		Clock: clk, SaveTo: filepath.Join(dir, "shop.db"),
		SaveEvery: time.Hour, // no save on a timer here: only those asked for
		OnSave:    func(r tandem.SavedReport) { saved <- r },
	})
	if err != nil {
		panic(err)
	}
	defer host.Close()
	host.OnEvent(func(e tandem.Event) {
		if e.Kind == tandem.PeerJoined {
			host.SaveSoon()
		}
	})
	conn, _ := network.Dial(context.Background(), "host")
	client, _ := tandem.NewClient(shop, conn, tandem.ClientConfig[Thrust]{Name: "ann", Clock: clk})
	defer client.Close()
	tc, _ := listener.Accept(context.Background())
	host.Accept(tc)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		clk.Advance(time.Second / 60)
		host.Advance()
		client.Advance()
		select {
		case r := <-saved: // a step takes in the commit that landed
			if r.Players > 0 { // not the save of the new world
				fmt.Println("saved with", r.Players, "player")
				return
			}
		case <-time.After(time.Millisecond): // the disk is not done yet
		}
	}
	fmt.Println("no save in ten seconds")
	// Output:
	// saved with 1 player
}

// A game's system gives commands through the World that Setup gave it: a
// system has no Session. Here, played alone, a shopkeeper system spends 3
// coins every 10 frames; each command runs at the next step's start and its
// receipt comes then. On a host or a client the same system's commands take
// that machine's way (the host's own player's, or sent to the host).
func ExampleGive_fromASystem() {
	game := &tandem.Game[Thrust]{
		Input:    thrustCodec,
		Commands: []tandem.Command{spend},
		Setup: func(w *tandem.World) {
			m := generic.NewMap2[Coins, ecs.NetworkIdentity](w.ECS.Arche())
			m.NewWith(&Coins{N: 10}, &ecs.NetworkIdentity{Owner: ecs.HostPeer})
			w.Schedule.Add("shopkeeper", ecs.SystemFunc(func(ew *ecs.World) {
				if ew.Frame()%10 == 0 {
					if _, err := tandem.Give(w, spend, 3); err != nil {
						fmt.Println("not given:", err)
					}
				}
			}))
		},
	}
	alone, err := tandem.NewLocal(game, tandem.LocalConfig{})
	if err != nil {
		panic(err)
	}
	alone.OnReceipt(func(r tandem.Receipt) {
		if r.Status == tandem.ReceiptRefused {
			fmt.Printf("#%d at frame %d: refused: %s\n", r.Op, r.Frame, r.Reason)
			return
		}
		fmt.Printf("#%d at frame %d: %s\n", r.Op, r.Frame, r.Status)
	})
	for range 45 {
		alone.Step()
	}
	// Output:
	// #1 at frame 11: done
	// #2 at frame 21: done
	// #3 at frame 31: done
	// #4 at frame 41: refused: the purse holds 1
}

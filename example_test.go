package tandem_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/physics"
)

// Thrust is the example game's input: a direction, each axis -1, 0 or 1.
type Thrust struct{ X, Y int8 }

// thrustCodec sends a Thrust as two bytes and refuses anything else.
var thrustCodec = tandem.InputCodec[Thrust]{
	Append: func(dst []byte, in *Thrust) []byte { return append(dst, byte(in.X), byte(in.Y)) },
	Read: func(r *wire.Reader, in *Thrust) {
		x, y := int8(r.U8()), int8(r.U8())
		if r.Err() == nil && (x < -1 || x > 1 || y < -1 || y > 1) {
			r.Fail(wire.ErrInvalid)
			return
		}
		*in = Thrust{x, y}
	},
	MaxSize: 2,
}

// discs is a whole networked game: every player drives a disc, and a ball
// lies in the middle. The same value makes the host and every client.
var discs = &tandem.Game[Thrust]{
	Physics: &physics.Config{},
	Components: []tandem.Component{
		tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
		tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
	},
	Setup: func(w *tandem.World) {
		ecs.AddResource(w.ECS, &driving{generic.NewFilter2[tandem.Input[Thrust], physics.Body]()})
		w.Schedule.Add("drive", ecs.SystemFunc(func(*ecs.World) { drive(w) }))
		w.Schedule.Add("physics", w.Physics)
		if w.Role != tandem.Joined && !w.Restoring {
			// The ball, on a host or alone; a host restored from its
			// save has it back from there.
			spawn(w, ecs.HostPeer, 200, 100, false)
		}
	},
	// A disc's speed builds up under its input: a client that mispredicted
	// it replays the frames since the host's state with this rule (the
	// physics steps them too); correcting only the present would miss the
	// thrust applied since.
	Replay: drive,
	Input:  thrustCodec,
	Join: func(w *tandem.World, p tandem.Peer) error {
		spawn(w, p.ID, 0, 0, true)
		return nil
	},
	Arrived: func(w *tandem.World, e arche.Entity) {
		w.Physics.AttachCircle(e, 10, disc)
	},
}

// driving is each world's query of the driven discs, made once. Game is
// one value for every world (the host's and each client's, even in one
// process), and Replay a plain function: what a rule keeps for its world
// goes in a resource that Setup adds.
type driving struct {
	discs *generic.Filter2[tandem.Input[Thrust], physics.Body]
}

// drive is the game's one rule: thrust accelerates a disc (its velocity
// changes by at most 1200 units/s² · step, so walls and other bodies keep
// their say), and the physics moves it. The same system runs on the host
// for every player, and on each client for the disc it predicts, in its
// frames and in the frames it replays.
func drive(w *tandem.World) {
	dv := 1200 * w.Schedule.StepDuration().Seconds()
	q := ecs.Resource[driving](w.ECS).discs.Query(w.ECS.Arche())
	for q.Next() {
		in, body := q.Get()
		v := body.CP.Velocity()
		w.Physics.SetVelocity(q.Entity(), ecs.Velocity{X: v.X + float64(in.Value.X)*dv, Y: v.Y + float64(in.Value.Y)*dv})
	}
}

// disc is the material of every disc: friction with the floor stops it.
var disc = physics.Material{Mass: 1, Velocity: physics.GroundFriction(400)}

// spawn makes a disc at (x, y) owned by peer, driven by its input when
// player is set.
func spawn(w *tandem.World, peer ecs.PeerID, x, y float64, player bool) {
	a := w.ECS.Arche()
	pose := ecs.Transform{X: x, Y: y}
	m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated](a)
	e := m.NewWith(&pose, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: peer}, &ecs.Interpolated{Prev: pose})
	if player {
		a.Add(e, arche.ComponentID[tandem.Input[Thrust]](a))
	}
	w.Physics.AttachCircle(e, 10, disc)
}

// A host and a client in one process, over an in-memory link of 30 ms each
// way, on a clock the example advances by hand. The client predicts its own
// disc (it moves the frame the key is pressed) and draws the ball, which the
// host owns, interpolated in the past.
func Example() {
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	link := condition.Config{Latency: 30 * time.Millisecond}
	network, _ := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	listener, _ := network.Listen("host")

	host, err := tandem.NewHost(discs, tandem.HostConfig{Clock: clk})
	if err != nil {
		panic(err)
	}
	defer host.Close()
	conn, _ := network.Dial(context.Background(), "host")
	client, err := tandem.NewClient(discs, conn, tandem.ClientConfig[Thrust]{Name: "ann", Clock: clk})
	if err != nil {
		panic(err)
	}
	accepted, _ := listener.Accept(context.Background())
	host.Accept(accepted)

	// A game calls host.Run and client.Run on goroutines of their own; here
	// both step in turn so the output is the same on every run.
	run := func(d time.Duration) {
		for end := clk.Now().Add(d); clk.Now().Before(end); {
			clk.Advance(time.Second / 120)
			host.Advance()
			client.Advance()
		}
	}
	run(time.Second)
	fmt.Println("client:", client.State())

	client.SetInput(Thrust{X: 1})
	run(time.Second / 2)
	client.SetInput(Thrust{})
	run(4 * time.Second)

	var mine ecs.Transform
	client.View(clk.Now(), func(v *tandem.View) {
		disc, _ := client.Local()
		mine, _ = v.Pose(disc)
		ball, _ := v.World.ECS.EntityOf(1)
		drawn, _ := v.Pose(ball)
		fmt.Printf("own disc predicted: %t, moved right: %t\n", !v.Interpolator().Remote(disc), mine.X > 100)
		fmt.Printf("ball drawn at (%.0f, %.0f), interpolated: %t\n", drawn.X, drawn.Y, v.Interpolator().Remote(ball))
	})
	host.View(clk.Now(), func(v *tandem.View) {
		disc := v.World.ECS.Owned(client.Peer())[0]
		p, _ := v.Pose(disc)
		fmt.Printf("host and client agree on the disc: %t\n", math.Abs(p.X-mine.X) < 0.5)
	})
	st := client.NetStats()
	fmt.Printf("round trip covers the link's 60 ms: %t\n", st.RTT >= 60*time.Millisecond && st.RTT < 100*time.Millisecond)
	// Output:
	// client: playing
	// own disc predicted: true, moved right: true
	// ball drawn at (200, 100), interpolated: true
	// host and client agree on the disc: true
	// round trip covers the link's 60 ms: true
}

// A client over QUIC that comes back by itself when its connection breaks:
// Dial opens a new connection to the same host, from a new socket, and the
// client resumes as the same player within the host's grace window
// (HostConfig.Grace). While it reconnects its world is held still and
// NetStats says how long the host waits. The host is named by the join line
// it printed (package joincode: its address, and its certificate pinned),
// and NewClient, given no connection, makes the first one with Dial too.
func ExampleClientConfig_dial() {
	code, err := joincode.Parse(flag.Arg(0)) // the host's join line, as the player pasted it
	if err != nil {
		fmt.Println("that join line:", err) // says what is wrong, for the player
		return
	}
	var cfg quicnet.Config
	code.Apply(&cfg)
	tr, err := quicnet.New(cfg)
	if err != nil {
		panic(err)
	}
	client, err := tandem.NewClient(discs, nil, tandem.ClientConfig[Thrust]{Name: "ann", Dial: tr.Dialer(code.Addr(), 10*time.Second)})
	if errors.Is(err, tandem.ErrJoinTimeout) {
		fmt.Println(err) // no answer from the host: it says what to check
		return
	}
	if err != nil {
		panic(err)
	}
	go client.Run(context.Background())
	// Each drawn frame, the game shows a reconnect under way (the client
	// dials again by itself when the connection breaks):
	drawFrame := func() {
		if st := client.NetStats(); st.State == tandem.Reconnecting {
			fmt.Printf("reconnecting… (%.0f s left)\n", st.ReconnectLeft.Seconds())
		}
	}
	drawFrame()
}

// A host and a client over QUIC on this machine's loopback, each stepping
// on a goroutine of its own as a game runs them: the host listens with a
// new certificate (a host that saves keeps one: OpenSave, or
// quicnet.LoadIdentity), and the client dials it pinned by the join line the
// host shows its players. For a test of a game over the real network,
// tandemtest.NewLoopback does this in one call.
func ExampleHost_Serve() {
	hostTransport, err := quicnet.New(quicnet.Config{})
	if err != nil {
		panic(err)
	}
	listener, err := hostTransport.Listen("127.0.0.1:0") // a free port
	if err != nil {
		panic(err)
	}
	host, err := tandem.NewHost(discs, tandem.HostConfig{})
	if err != nil {
		panic(err)
	}
	host.Serve(listener)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go host.Run(ctx)
	line, _, err := joincode.Lines(quicnet.ReachableAddr(listener.Addr()), hostTransport.Fingerprint())
	if err != nil {
		panic(err)
	}

	// The player's side: the join line, as pasted.
	code, err := joincode.Parse(line)
	if err != nil {
		panic(err)
	}
	var cfg quicnet.Config
	code.Apply(&cfg)
	clientTransport, err := quicnet.New(cfg)
	if err != nil {
		panic(err)
	}
	client, err := tandem.NewClient(discs, nil, tandem.ClientConfig[Thrust]{Name: "ann", Dial: clientTransport.Dialer(code.Addr(), 10*time.Second)})
	if err != nil {
		panic(err)
	}
	ready := make(chan struct{}, 1)
	client.OnEvent(func(e tandem.Event) {
		if e.Kind == tandem.PeerReady {
			select { // never wait inside an observer: it holds the world
			case ready <- struct{}{}:
			default:
			}
		}
	})
	ran := make(chan error, 1)
	go func() { ran <- client.Run(ctx) }()
	select {
	case <-ready:
	case err := <-ran:
		fmt.Println("the join failed:", err)
		return
	case <-time.After(10 * time.Second):
		fmt.Println("no join within 10 s")
		return
	}
	fmt.Println("client:", client.State())
	host.Do(func(w *tandem.World) {
		fmt.Println("networked entities on the host:", w.ECS.Networked()) // the ball and ann's disc
	})
	client.Close() // ann leaves; her Run returns ErrClosed
	fmt.Println("left:", errors.Is(<-ran, tandem.ErrClosed))
	host.Close()
	// Output:
	// client: playing
	// networked entities on the host: 2
	// left: true
}

// One loop for every way to play: alone, hosting or joined, the game's loop
// and its drawing see a Session, and Driven finds the entity the player at
// this machine drives. Here the game is played alone (a program picks
// NewLocal, NewHost or NewClient from its flags); nobody joins, so the game
// gives the player a disc itself.
func ExampleSession() {
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	local, err := tandem.NewLocal(discs, tandem.LocalConfig{Clock: clk})
	if err != nil {
		panic(err)
	}
	local.Do(func(w *tandem.World) { spawn(w, ecs.HostPeer, 0, 0, true) })
	var s tandem.Session[Thrust] = local
	defer s.Close()

	// The loop a window's program runs, here on the example's clock.
	s.SetInput(Thrust{X: 1})
	for range 60 {
		clk.Advance(time.Second / 60)
		s.Advance()
	}
	s.View(clk.Now(), func(v *tandem.View) {
		e, ok := tandem.Driven[Thrust](v.World, v.World.Peer)
		p, _ := v.Pose(e)
		fmt.Printf("the player's disc: %t, moved right: %t\n", ok, p.X > 50)
	})
	fmt.Println("stopped by itself:", s.Err() != nil)
	// Output:
	// the player's disc: true, moved right: true
	// stopped by itself: false
}

// A host refuses a client of another build of the game, and Schema says
// which build a program is: log it beside the version, or show it on the
// join screen. A component listed in another order is another game.
func ExampleGame_Schema() {
	same := *discs // as another build of the same code makes it
	swapped := *discs
	swapped.Components = []tandem.Component{discs.Components[1], discs.Components[0]}
	fmt.Println(same.Schema() == discs.Schema(), swapped.Schema() == discs.Schema())
	// Output: true false
}

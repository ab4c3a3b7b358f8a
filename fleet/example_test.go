package fleet_test

import (
	"context"
	"fmt"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/agones/agonestest"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/fleet"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// Nudge is the example game's input: a step left or right.
type Nudge struct{ X int8 }

// lobby is the example's game: players who join get nothing but a place.
var lobby = &tandem.Game[Nudge]{
	Input: tandem.InputCodec[Nudge]{
		Append:  func(dst []byte, in *Nudge) []byte { return append(dst, byte(in.X)) },
		Read:    func(r *wire.Reader, in *Nudge) { in.X = int8(r.U8()) },
		MaxSize: 1,
	},
	Setup: func(w *tandem.World) {}, // no content of its own
}

// A game server's main: bind the listener, then hand it to fleet.Run with
// the way to build a world's host. Here the SDK server is the fake one and
// the network in memory; a real server uses agones.New(agones.Options{})
// and a quicnet listener, and ends on SIGTERM (signal.NotifyContext).
func ExampleRun() {
	side := agonestest.New()
	defer side.Close()
	sdk, _ := agones.New(agones.Options{HTTPClient: side.HTTPClient()})
	n, _ := mem.NewNetwork(clock.Real{}, mem.Config{})
	l, _ := n.Listen("host")

	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- fleet.Run(ctx, fleet.Config{
			SDK: sdk, Listener: l, Pin: "5f3a…",
			Open: func(ctx context.Context, world string) (fleet.Host, error) {
				// world: the allocation's tandem.dev/world, "" before one.
				// A game that saves gives SaveTo (a postgres:// URL) and
				// World: world here, for a named world only: "" stays in
				// memory (every warm server would share the store's
				// default world, each stopping the one before).
				return tandem.NewHost(lobby, tandem.HostConfig{})
			},
		})
	}()
	side.WaitCount(context.Background(), "/ready", 1)
	// The pin is published before Ready is said.
	pin, _ := side.GameServer().SDKAnnotation(fleet.PinAnnotation)
	fmt.Println("pin", pin)

	stop() // SIGTERM
	fmt.Println(<-done, side.GameServer().Status.State)
	// Output:
	// pin 5f3a…
	// <nil> Shutdown
}

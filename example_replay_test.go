package tandem_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// The Example's game reconciles by replaying its drive: a shove the host
// gives the client's disc, which the client could not predict, is replayed
// from the host's state (the rule found in the world's resource inside the
// replay), and the disc comes to rest where the host's is.
func TestTheExamplesGameReplaysAShove(t *testing.T) {
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	link := condition.Config{Latency: 30 * time.Millisecond}
	network, _ := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	listener, _ := network.Listen("host")
	host, err := tandem.NewHost(discs, tandem.HostConfig{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	conn, _ := network.Dial(context.Background(), "host")
	client, err := tandem.NewClient(discs, conn, tandem.ClientConfig[Thrust]{Name: "ann", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	accepted, _ := listener.Accept(context.Background())
	host.Accept(accepted)
	run := func(d time.Duration) {
		for end := clk.Now().Add(d); clk.Now().Before(end); {
			clk.Advance(time.Second / 120)
			host.Advance()
			client.Advance()
		}
	}
	run(time.Second)
	client.SetInput(Thrust{X: 1})
	run(time.Second / 2)
	host.Do(func(w *tandem.World) {
		disc := w.ECS.Owned(client.Peer())[0]
		v := w.Physics.BodyOf(disc).Velocity()
		w.Physics.SetVelocity(disc, ecs.Velocity{X: v.X, Y: v.Y + 300}) // a shove the client cannot predict
	})
	run(time.Second / 2)
	client.SetInput(Thrust{})
	run(4 * time.Second)
	if st := client.NetStats().Predict; st.Replays == 0 {
		t.Fatalf("the client made no replay after the host's shove (%d corrections)", st.Corrections)
	}
	var hx, hy, cx, cy float64
	host.Do(func(w *tandem.World) {
		p := w.Physics.BodyOf(w.ECS.Owned(client.Peer())[0]).Position()
		hx, hy = p.X, p.Y
	})
	client.Do(func(w *tandem.World) {
		disc, _ := client.Local()
		p := w.Physics.BodyOf(disc).Position()
		cx, cy = p.X, p.Y
	})
	if hy < 20 || math.Hypot(hx-cx, hy-cy) > 0.5 {
		t.Fatalf("the shoved disc rests at (%.2f, %.2f) on the client, (%.2f, %.2f) on the host; want the shove's place on both", cx, cy, hx, hy)
	}
}

package netplay

import (
	"math"
	"testing"
	"time"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/condition"
)

func TestClientJoinsPredictsAndConverges(t *testing.T) {
	r := newRig(t, condition.Config{Latency: 40 * time.Millisecond}, 10)
	c := r.join("ann", false)
	r.run(2*time.Second, nil)
	if st := c.Session().State(); st != session.Playing {
		t.Fatalf("client state %v (%v)", st, c.Session().Err())
	}
	e, ok := c.Local()
	if !ok {
		t.Fatal("the client has no player of its own")
	}
	he, ok := r.host.Player(c.Session().Peer())
	if !ok {
		t.Fatal("the host has no player for the peer")
	}
	if got, want := c.g.World.Networked(), r.hg.World.Networked(); got != want {
		t.Fatalf("client holds %d networked entities, host %d", got, want)
	}
	start := c.g.Pose(e)
	c.SetInput(game.Input{MoveX: game.InputAxisMax})
	// The keys answer at once: the next frame moves the disc.
	r.run(50*time.Millisecond, nil)
	if d := c.g.Pose(e).X - start.X; d <= 0 {
		t.Fatalf("after 50 ms of thrust the predicted disc moved %.2f units right", d)
	}
	r.run(time.Second, nil)
	c.SetInput(game.Input{})
	r.run(3*time.Second, nil)
	cp, hp := c.g.Pose(e), r.hg.Pose(he)
	if d := math.Hypot(cp.X-hp.X, cp.Y-hp.Y); d > 0.05 {
		t.Fatalf("at rest the client's disc is at %v, the host's at %v (%.3f apart)", cp, hp, d)
	}
	if hp.X-start.X < 100 {
		t.Fatalf("the host's disc moved %.1f units under a second of thrust", hp.X-start.X)
	}
	st := c.NetStats()
	t.Logf("net: %+v", st)
	t.Logf("predict: %+v", c.Predictor().Stats())
	t.Logf("inputs: %+v", r.host.Inputs().Peer(c.Session().Peer()).Stats())
}

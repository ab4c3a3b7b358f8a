package netplay

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/condition"
)

func TestClientJoinsPredictsAndConverges(t *testing.T) {
	r := newRig(t, condition.Config{Latency: 40 * time.Millisecond}, 10)
	c := r.join("ann", nil)
	r.run(2*time.Second, nil)
	if st := c.State(); st != session.Playing {
		t.Fatalf("client state %v (%v)", st, c.Err())
	}
	if _, ok := c.Local(); !ok {
		t.Fatal("the client has no player of its own")
	}
	he, ok := r.hostPlayer(c)
	if !ok {
		t.Fatal("the host has no player for the peer")
	}
	if got, want := c.World().ECS.Networked(), r.hg.World.Networked(); got != want {
		t.Fatalf("client holds %d networked entities, host %d", got, want)
	}
	start := pose(c)
	c.SetInput(game.Input{MoveX: game.InputAxisMax})
	// The keys answer at once: the next frame moves the disc.
	r.run(50*time.Millisecond, nil)
	if d := pose(c).X - start.X; d <= 0 {
		t.Fatalf("after 50 ms of thrust the predicted disc moved %.2f units right", d)
	}
	r.run(time.Second, nil)
	c.SetInput(game.Input{})
	r.run(3*time.Second, nil)
	cp, hp := pose(c), r.hg.Pose(he)
	if d := dist(cp, hp); d > 0.05 {
		t.Fatalf("at rest the client's disc is at %v, the host's at %v (%.3f apart)", cp, hp, d)
	}
	if hp.X-start.X < 100 {
		t.Fatalf("the host's disc moved %.1f units under a second of thrust", hp.X-start.X)
	}
	t.Logf("net: %+v", c.NetStats())
}

package netplay

import (
	"errors"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// TestMaxPlayersPastTheColours: a match for 12 people takes 11 peers beside
// the host's own player, their colours repeating past the eighth, and
// refuses the 12th peer.
func TestMaxPlayersPastTheColours(t *testing.T) {
	cfg := Config{Match: game.DefaultConfig(), HostPlays: true, MaxPlayers: 12}
	w := &tandem.World{ECS: ecs.NewWorld(), Role: tandem.Alone}
	w.Schedule = ecs.NewSchedule(w.ECS, clock.NewFake(t0), cfg.Match.Step)
	w.Physics = physics.New(w.ECS, game.PhysicsConfig(cfg.Match))
	setup(cfg, w)
	for id := ecs.PeerID(1); id <= 11; id++ {
		if err := join(cfg, w, tandem.Peer{ID: id}); err != nil {
			t.Fatalf("peer %d refused: %v", id, err)
		}
	}
	var refusal *tandem.Refusal
	if err := join(cfg, w, tandem.Peer{ID: 12}); !errors.As(err, &refusal) {
		t.Fatalf("the 13th person was let in (%v)", err)
	}
	colours := map[[3]uint8]int{}
	n := 0
	q := generic.NewFilter1[game.Player]().Query(w.ECS.Arche())
	for q.Next() {
		c := q.Get().Color
		colours[[3]uint8{c.R, c.G, c.B}]++
		n++
	}
	if n != 12 || len(colours) != len(game.PlayerColors) {
		t.Fatalf("%d players in %d colours, want 12 in %d", n, len(colours), len(game.PlayerColors))
	}
	// A peer that leaves (the engine removes what it owns) frees its place
	// for the next.
	for _, e := range w.ECS.Owned(3) {
		w.ECS.Arche().RemoveEntity(e)
	}
	if err := join(cfg, w, tandem.Peer{ID: 13}); err != nil {
		t.Fatalf("a place freed by a leaver was not taken: %v", err)
	}
}

package netplay

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// TestCommandsAndSaves: a player's commands come back with their receipts
// (a switch to the bigger team refused, three crates dropped and a fourth
// refused), and a host closed for a restart and started again on its save
// holds the same match: ann's place, the dropped crates, the score, the
// bots, who play on, and the props, which have no body to get back.
func TestCommandsAndSaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.db")
	hc := tandem.HostConfig{SaveTo: path}
	match := game.DefaultConfig()
	match.Props = 40
	r := newRigWith(t, condition.Config{Latency: 20 * time.Millisecond}, Config{Match: match, Bots: 3}, 10, hc)
	c := r.join("ann", nil)
	var got []tandem.Receipt
	c.OnReceipt(func(rc tandem.Receipt) { got = append(got, rc) })
	r.run(2*time.Second, nil)
	if _, err := tandem.Send(c, SwitchTeam, struct{}{}); err != nil {
		t.Fatal(err)
	}
	for range game.MaxDrops + 1 {
		if _, err := tandem.Send(c, DropCrate, struct{}{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; len(got) < 5 && i < 100; i++ {
		r.run(100*time.Millisecond, nil)
		// The commits run on their own goroutine at the disk's pace, not
		// the fake clock's: wait for one each round.
		if err := r.host.Save(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 5 {
		t.Fatalf("%d receipts: %v", len(got), got)
	}
	if got[0].Command != "switch-team" || got[0].Status != tandem.ReceiptRefused || !strings.Contains(got[0].Reason, "full") {
		t.Errorf("the switch to the bigger team: %v", got[0])
	}
	for i, rc := range got[1:] {
		want := tandem.ReceiptDone
		if i == game.MaxDrops {
			want = tandem.ReceiptRefused
		}
		if rc.Command != "drop-crate" || rc.Status != want {
			t.Errorf("drop %d: %v, want %v", i+1, rc, want)
		}
	}
	count := func(w *tandem.World) (drops, bots, entities int) {
		q := generic.NewFilter1[game.Dropped]().Query(w.ECS.Arche())
		for q.Next() {
			drops++
		}
		props := generic.NewFilter1[game.Prop]().Query(w.ECS.Arche())
		if n := props.Count(); n != match.Props {
			t.Fatalf("the host holds %d props, want %d", n, match.Props)
		}
		props.Close()
		qb := generic.NewFilter1[game.Bot]().Query(w.ECS.Arche())
		for qb.Next() {
			bots++
		}
		// The roster (who is connected) is the session's, not the save's.
		return drops, bots, w.ECS.Networked() - len(tandem.Members(w, nil))
	}
	var drops, bots, entities int
	r.host.Do(func(w *tandem.World) { drops, bots, entities = count(w) })
	if drops != game.MaxDrops || bots != 3 {
		t.Fatalf("the host holds %d dropped crates and %d bots", drops, bots)
	}
	if err := r.host.CloseForRestart(); err != nil {
		t.Fatal(err)
	}

	again := newRigWith(t, condition.Config{}, Config{Match: match, Bots: 3}, 10, hc)
	if rep := again.host.Restored(); rep.Seq == 0 || rep.Entities != entities || rep.Players != 1 {
		t.Fatalf("the restart restored %v, want %d entities and ann", rep, entities)
	}
	var d2, b2, e2 int
	again.host.Do(func(w *tandem.World) { d2, b2, e2 = count(w) })
	if d2 != drops || b2 != bots || e2 != entities {
		t.Fatalf("restored %d drops, %d bots, %d entities; saved %d, %d, %d", d2, b2, e2, drops, bots, entities)
	}
	g := game.Of(again.host.World())
	start := g.Stats.BallTravel
	again.run(5*time.Second, nil)
	if g.Stats.BallTravel-start < 10 || !g.World.Alive(g.Ball) {
		t.Fatalf("the restored bots did not play: the ball moved %.1f", g.Stats.BallTravel-start)
	}
}

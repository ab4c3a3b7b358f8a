package tandemtest_test

import (
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// propsLobby is the walkers' game with 20,000 props around the origin and
// no figure for a player as it joins (a lobby: it sees the whole world).
func propsLobby() *tandem.Game[Walk] {
	g := walkersWithProps(func(m *generic.Map2[ecs.Transform, ecs.NetworkIdentity]) {
		for i := range 20_000 {
			m.NewWith(&ecs.Transform{X: float64(i%200) * 40, Y: float64(i/200) * 40}, &ecs.NetworkIdentity{})
		}
	})
	g.Join = nil
	return g
}

// A player who held the whole world of 20,000 props and is given her first
// figure far from them has it on her client within a few steps, while the
// props leave it over the next seconds: the removals take what the due
// items leave of the budget, not all of it (they took it all: her figure
// came after every removal, 94 steps later; 515 with 100,000 props). They
// still all go, at about the pace they went before, and while they wait
// her client hears of them (NetStats.Backlog).
func TestAFirstFigureDoesNotWaitForTheRemovalsItCauses(t *testing.T) {
	r := tandemtest.New(t, propsLobby(), tandem.HostConfig{}, tandemtest.Config{Unchecked: true})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	held := func() (n int) {
		ann.Do(func(w *tandem.World) { n = w.ECS.Networked() })
		return n
	}
	if !r.StepUntil(600, func() bool { return held() == 20_000 }) {
		t.Fatalf("in the lobby ann holds %d of the 20,000 props", held())
	}
	r.Host.Do(func(w *tandem.World) {
		m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, tandem.Input[Walk]](w.ECS.Arche())
		m.NewWith(&ecs.Transform{X: 1_000_000}, &ecs.NetworkIdentity{Owner: ann.Peer()}, &tandem.Input[Walk]{})
	})
	figure := 0
	if !r.StepUntil(60, func() bool { figure++; _, ok := ann.Local(); return ok }) {
		t.Fatalf("ann's first figure is not on her client a second after the host made it (she holds %d entities)", held())
	}
	gone, backlog := figure, 0
	if !r.StepUntil(1200, func() bool { gone++; backlog = max(backlog, ann.NetStats().Backlog); return held() == 1 }) {
		t.Fatalf("20 s after her figure came far from the props, ann still holds %d entities", held())
	}
	t.Logf("her figure on her client %d steps after the host made it; the 20,000 props gone from it after %d; her client told of up to %d items held back", figure, gone, backlog)
	if backlog < 10_000 {
		t.Errorf("while the props' removals waited, her client was told of at most %d items held back (NetStats.Backlog), want the removals counted", backlog)
	}
	if figure > 6 {
		t.Errorf("her first figure reached her client %d steps after the host made it, behind the props' removals; want a few", figure)
	}
	if gone > 120 {
		t.Errorf("the 20,000 props' removals took %d steps, want them to go at the budget's pace (about 100)", gone)
	}
}

package netplay

import (
	"reflect"
	"strings"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

// typesOf names the component types ids stand for in w.
func typesOf(w *ecs.World, ids []arche.ID) map[reflect.Type]bool {
	types := map[reflect.Type]bool{}
	for _, id := range ids {
		if info, ok := arche.ComponentInfo(w.Arche(), id); ok {
			types[info.Type] = true
		}
	}
	return types
}

// The rules' world for tests (game.New) reports the writes of every
// component of the game's own that the match replicates, as the match's
// world does: a component added to the codecs and not to New's list fails
// here.
func TestRulesWorldReportsWhatTheMatchSends(t *testing.T) {
	cfg := Config{Match: game.DefaultConfig()}
	h, err := tandem.NewHost(New(cfg), tandem.HostConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var sent map[reflect.Type]bool
	h.Do(func(w *tandem.World) { sent = typesOf(w.ECS, w.ECS.ReplicatedIDs()) })
	rules := game.New(cfg.Match, clock.NewFake(clock.Real{}.Now()))
	reported := typesOf(rules.World, rules.World.ReplicatedIDs())
	own := reflect.TypeFor[game.Player]().PkgPath()
	n := 0
	for tp := range sent {
		if tp.PkgPath() != own {
			continue
		}
		n++
		if !reported[tp] {
			t.Errorf("the match sends %v, and game.New does not mark it replicated", tp)
		}
	}
	if n == 0 || !strings.HasSuffix(own, "/game") {
		t.Fatalf("no component of package %s among what the match sends", own)
	}
}

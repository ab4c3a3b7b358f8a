package tandem

import (
	"context"
	"errors"
	"strings"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
)

// mood is a component no save of the ledger game holds.
type mood struct{ Glad bool }

// A host whose final save failed keeps its store for Save to try again
// (a Save that lands finishes the Close), until Abandon: then the store is let go
// (another host opens the save), and a Save says the host was abandoned,
// not that its world was saved.
func TestAbandonAfterAFailedClose(t *testing.T) {
	path := savePath(t)
	g := ledgerGame()
	join := g.Join
	g.Join = func(w *World, p Peer) error {
		if err := join(w, p); err != nil {
			return err
		}
		w.ECS.Arche().Add(w.ECS.Owned(p.ID)[0], arche.ComponentID[mood](w.ECS.Arche()))
		return nil
	}
	r := newRigOf(t, g, HostConfig{SaveTo: path})
	if err := r.host.Abandon(); err != nil {
		t.Fatalf("Abandon before a Close: %v, want nothing done", err)
	}
	r.join("ann", ClientConfig[push]{})
	err := r.host.Close()
	if err == nil || !strings.Contains(err.Error(), "mood") {
		t.Fatalf("Close: %v, want the final save failed naming mood", err)
	}
	if err := r.host.Abandon(); err != nil {
		t.Fatalf("Abandon: %v", err)
	}
	if err := r.host.Save(context.Background()); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "abandoned") {
		t.Fatalf("Save after Abandon: %v, want ErrClosed saying the host was abandoned", err)
	}
	if err := r.host.Abandon(); err != nil {
		t.Fatalf("a second Abandon: %v", err)
	}
	next, err := NewHost(ledgerGame(), HostConfig{SaveTo: path, Clock: r.clk})
	if err != nil {
		t.Fatalf("a host on the abandoned host's save: %v, want its store let go", err)
	}
	next.Close()
}

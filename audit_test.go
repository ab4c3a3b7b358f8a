package tandem

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/net/replicate"
)

// A host in play finds a system's writes made without a report: it sends
// them (the client ends up with the host's values), saves them, counts them
// in its figures and names the component to the game.
func TestHostFindsUnreportedWrites(t *testing.T) {
	var found []*replicate.UnreportedError
	cfg := HostConfig{SaveTo: savePath(t), SaveEvery: time.Second}
	cfg.Replication.OnUnreported = func(e *replicate.UnreportedError) { c := *e; found = append(found, &c) } // e is valid during the call
	r := newRig(t, cfg)
	c := r.join("ann", ClientConfig[push]{})
	r.step(30)
	if st := r.host.Stats(); st.Unreported != 0 || len(found) != 0 {
		t.Fatalf("the host found %d unreported writes in a game that reports them: %v", st.Unreported, found)
	}
	written := 0
	r.host.Do(func(w *World) {
		q := generic.NewFilter1[tally]().Query(w.ECS.Arche())
		for q.Next() {
			q.Get().N += 1000 // no MutateComponent
			written++
		}
	})
	r.step(60) // a world this small is looked through in a step
	if st := r.host.Stats(); st.Unreported != written || len(found) != written {
		t.Fatalf("the host counts %d unreported writes (%d named), want the %d made", st.Unreported, len(found), written)
	}
	for _, e := range found {
		if e.Component != "tally" || e.Added || !e.Audit {
			t.Fatalf("finding %v: want the tally named, as written, by the audit", e)
		}
	}
	c.Do(func(w *World) {
		q := generic.NewFilter1[tally]().Query(w.ECS.Arche())
		for q.Next() {
			if n := q.Get().N; n < 1000 {
				q.Close()
				t.Fatalf("the client holds a tally of %d: the write was not sent", n)
			}
		}
	})
	r.step(120) // past a save
	r.restart()
	restored := 0
	r.host.Do(func(w *World) {
		q := generic.NewFilter1[tally]().Query(w.ECS.Arche())
		for q.Next() {
			if q.Get().N >= 1000 {
				restored++
			}
		}
	})
	if restored != written {
		t.Fatalf("the restarted host holds %d of the %d tallies written without a report: the save missed them", restored, written)
	}
}

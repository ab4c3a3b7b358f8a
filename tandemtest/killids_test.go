package tandemtest_test

import (
	"path/filepath"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// rockLog is what a client's Arrived and Departed heard of.
type rockLog struct {
	arrived, departed map[arche.Entity]bool
}

// rockWalkers are the walkers whose clients log what arrives and departs.
func rockWalkers(l *rockLog) *tandem.Game[Walk] {
	g := *walkers
	g.Arrived = func(w *tandem.World, e arche.Entity) {
		if w.Role == tandem.Joined {
			l.arrived[e] = true
		}
	}
	g.Departed = func(w *tandem.World, e arche.Entity) { l.departed[e] = true }
	return &g
}

// rockAt makes a host's rock at x on the host's world.
func rockAt(r *tandemtest.Rig[Walk], x float64) (id ecs.NetID) {
	r.Host.Do(func(w *tandem.World) {
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		e := m.NewWith(&ecs.Transform{X: x}, &ecs.NetworkIdentity{})
		ni, _ := w.ECS.Identity(e)
		id = ni.ID
	})
	return id
}

// heldAt returns the entity client c holds at x owned by the host, if any.
func heldAt(c *tandem.Client[Walk], x float64) (held arche.Entity, ok bool) {
	c.Do(func(w *tandem.World) {
		q := generic.NewFilter2[ecs.Transform, ecs.NetworkIdentity]().Query(w.ECS.Arche())
		for q.Next() {
			if p, ni := q.Get(); p.X == x && ni.Owner == ecs.HostPeer {
				held, ok = q.Entity(), true
			}
		}
	})
	return held, ok
}

// rockAfterSave starts a host that saves to a file, with grace, joins ann,
// saves, and makes a rock at 100 after the save (its network id lost), and
// returns once ann's client holds it (first).
func rockAfterSave(t *testing.T, grace time.Duration) (r *tandemtest.Rig[Walk], ann *tandem.Client[Walk], l *rockLog, lost ecs.NetID, first arche.Entity) {
	t.Helper()
	l = &rockLog{arrived: map[arche.Entity]bool{}, departed: map[arche.Entity]bool{}}
	save := filepath.Join(t.TempDir(), "rocks.db")
	r = tandemtest.New(t, rockWalkers(l), tandem.HostConfig{SaveTo: save, Grace: grace, SaveEvery: time.Hour}, tandemtest.Config{Bubble: true})
	ann = r.Join("ann", tandem.ClientConfig[Walk]{})
	r.Save()
	lost = rockAt(r, 100)
	if !r.StepUntil(60, func() (ok bool) { first, ok = heldAt(ann, 100); return ok }) {
		t.Fatal("ann's client never held the rock at 100")
	}
	return r, ann, l, lost, first
}

// checkNewRock steps until ann's client holds the host's rock at x, and
// checks that it is a new entity, that the rock at 100 (first, which the
// host no longer has) departed, and that her figure, which the save has,
// is held as the entity it was.
func checkNewRock(t *testing.T, r *tandemtest.Rig[Walk], ann *tandem.Client[Walk], l *rockLog, first, figure arche.Entity, x float64) {
	t.Helper()
	var second arche.Entity
	if !r.StepUntil(120, func() (ok bool) { second, ok = heldAt(ann, x); return ok }) {
		t.Fatalf("ann's client never held the host's rock at %g", x)
	}
	if _, still := heldAt(ann, 100); still {
		t.Error("ann's client still holds the rock at 100 the host made after its last save")
	}
	if !l.departed[first] {
		t.Error("Departed did not run for the rock at 100 the host no longer has")
	}
	if second == first || !l.arrived[second] {
		t.Errorf("the rock at %g is the entity that held the rock at 100 (%v), Arrived %v: updated in place, not a new arrival", x, second == first, l.arrived[second])
	}
	if now, ok := ann.Local(); !ok || now != figure || l.departed[figure] {
		t.Errorf("ann's figure, in the save, is held as the entity it was: %v, the same %v, departed %v; want it kept", ok, now == figure, l.departed[figure])
	}
}

// A host killed after its last save had made a rock the save does not
// have; restarted from the save, it gives the rock's network id to the next
// entity it makes, another rock. The player who held the first rock resumes
// and hears of the first rock's removal and of the second's arrival, a new
// entity: held under the same id, the first was updated in place into the
// second, and neither hook ran (a block of a building game turned into
// another, or into a player's avatar). A resume into the same run (a cut)
// keeps what it held as it was, and so does a resume into the restored run
// for what the save has (her figure).
func TestAKilledHostsReusedIDsAreNewEntitiesOnItsClients(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r, ann, l, lost, first := rockAfterSave(t, 10*time.Second)
		// A cut resumes into the same run: the rock stays the entity it was.
		r.Cut(ann)
		if !r.StepUntil(20*60, func() bool { return ann.NetStats().Resumes == 1 && ann.State() == tandem.Playing }) {
			t.Fatalf("ann after the cut: %v, %d resumes (%v)", ann.State(), ann.NetStats().Resumes, ann.Err())
		}
		if held, ok := heldAt(ann, 100); !ok || held != first || l.departed[first] {
			t.Fatalf("resumed into the same run, ann's client holds the rock at 100: %v, the same entity %v, departed %v; want it kept", ok, held == first, l.departed[first])
		}
		figure, _ := ann.Local() // made before the save: the restored run has it
		clear(l.arrived)         // what arrives from now on
		r.Kill()
		if again := rockAt(r, 900); again != lost {
			t.Fatalf("the restarted host gave its rock id %d, the lost rock had %d: the test no longer reuses an id", again, lost)
		}
		if !r.StepUntil(20*60, func() bool { return ann.NetStats().Resumes == 2 && ann.State() == tandem.Playing }) {
			t.Fatalf("ann after the kill: %v, %d resumes (%v)", ann.State(), ann.NetStats().Resumes, ann.Err())
		}
		checkNewRock(t, r, ann, l, first, figure, 900)
	})
}

// A player away while a killed host's restored run made an entity under an
// id the killed host had given after its last save, saved it, and was
// killed in turn, comes back to the run restored from that save: she hears
// of the rock she held leaving and of the other arriving, a new entity,
// and keeps her figure, which the first save has. (The host's first fresh
// id alone did not say it: the second run's rock is below the third run's.)
func TestAPlayerWhoMissedAWholeRunHoldsNoneOfItsReusedIDs(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r, ann, l, lost, first := rockAfterSave(t, 30*time.Second)
		figure, _ := ann.Local()
		clear(l.arrived) // what arrives from now on
		r.Unreachable(ann, true)
		r.Kill()
		if again := rockAt(r, 500); again != lost {
			t.Fatalf("the second run gave its rock id %d, the lost rock had %d: the test no longer reuses an id", again, lost)
		}
		r.Step(10)
		r.Save()
		r.Kill()
		r.Unreachable(ann, false)
		if !r.StepUntil(40*60, func() bool { return ann.NetStats().Resumes == 1 && ann.State() == tandem.Playing }) {
			t.Fatalf("ann after two kills: %v, %d resumes (%v)", ann.State(), ann.NetStats().Resumes, ann.Err())
		}
		checkNewRock(t, r, ann, l, first, figure, 500)
	})
}

// A host closed for a restart saves its whole world first: its player
// resumes into the restored run holding every entity as the entity it was,
// none departed and none arrived again.
func TestARestartKeepsEveryEntityItsClientsHeld(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r, ann, l, _, rock := rockAfterSave(t, 10*time.Second) // the restart's own save has it
		figure, _ := ann.Local()
		clear(l.arrived)
		r.Restart()
		if !r.StepUntil(20*60, func() bool { return ann.NetStats().Resumes == 1 && ann.State() == tandem.Playing }) {
			t.Fatalf("ann after the restart: %v, %d resumes (%v)", ann.State(), ann.NetStats().Resumes, ann.Err())
		}
		r.Step(60)
		if held, ok := heldAt(ann, 100); !ok || held != rock {
			t.Errorf("after the restart ann's client holds the rock at 100: %v, the same entity %v; want it kept", ok, held == rock)
		}
		if now, ok := ann.Local(); !ok || now != figure {
			t.Errorf("after the restart ann's figure is held: %v, the same entity %v; want it kept", ok, now == figure)
		}
		if len(l.departed) != 0 || len(l.arrived) != 0 {
			t.Errorf("the restart had %d entities depart and %d arrive on ann's client, want none", len(l.departed), len(l.arrived))
		}
	})
}

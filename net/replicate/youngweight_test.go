package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A young entity's changes are weighed as any others for a peer the game
// gives them a low Priority (1/16: they wait sixteen times as long), not
// sent at the top at once. (They skipped the weighing.)
func TestYoungChangesAreWeighed(t *testing.T) {
	var low map[arche.Entity]bool
	r := newRig(t, HostConfig{Priority: func(p ecs.PeerID, e arche.Entity) float64 {
		if low[e] {
			return 1.0 / 16
		}
		return 1
	}})
	seen := stateFrames{}
	r.c.cfg.Observer = seen
	old := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	shot := r.m.NewWith(&ecs.Transform{X: 500}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	low = map[arche.Entity]bool{old: true, shot: true}
	r.s.Step() // the shot's spawn
	for _, i := range r.next() {
		r.deliver(i)
	}
	idOld, idShot := mustID(r.w, old), mustID(r.w, shot)
	before := map[ecs.NetID]int{}
	ceOld, _ := r.cw.EntityOf(idOld)
	ceShot, _ := r.cw.EntityOf(idShot)
	before[idOld], before[idShot] = len(seen[ceOld]), len(seen[ceShot])
	for range 2 {
		r.move(old, 100)
		r.move(shot, 100)
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
	gotOld, gotShot := len(seen[ceOld])-before[idOld], len(seen[ceShot])-before[idShot]
	t.Logf("states applied in the two send ticks after the spawn, both at Priority 1/16: old entity %d, new entity %d", gotOld, gotShot)
	if gotShot > gotOld {
		t.Fatalf("at HostConfig.Priority 1/16 for the peer, the new entity's changes went %d times in two send ticks, an older one's %d", gotShot, gotOld)
	}
}

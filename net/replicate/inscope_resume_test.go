package replicate

import (
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// A peer that comes back (ParkPeer, then AddPeer of its id, as a resume
// does) owning an entity the replicator knows has its scope drawn by
// AddPeer, and StartJoin pages it out before any step: InScope says so at
// once, not false for everything until the next step (as only a new
// player's, whose entities the next step takes in, is).
func TestInScopeOfAResumedPeerIsDrawnAtOnce(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	near := r.m.NewWith(&ecs.Transform{X: 200}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	far := r.m.NewWith(&ecs.Transform{X: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	r.h.ParkPeer(1)
	r.s.Step()
	p := r.h.AddPeer(1, &capture{})
	r.h.StartJoin(1)
	started := p.join == nil || p.join.pages > 0
	if !r.inScopeOf(1, near) || r.inScopeOf(1, far) {
		t.Fatal("the grid did not draw the scope at AddPeer: the test tests nothing")
	}
	if !p.InScope(near) || p.InScope(far) {
		t.Fatalf("resumed, its scope drawn (near %v, far %v by the grid) and its join started (%v): InScope near %v, far %v; want true, false",
			r.inScopeOf(1, near), r.inScopeOf(1, far), started, p.InScope(near), p.InScope(far))
	}
}

package replicate

import (
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// A joined peer that saw the whole world gets its first entity (a lobby
// player's) in a world of 50,300 entities, 300 of them outside its square:
// the room made for its removals is for those 300, not the world, and once
// they are all delivered the queue and its index keep no more than that
// (past removalKeep, nothing).
func TestRemovalRoomFollowsTheRemovals(t *testing.T) {
	const near, far = 50_000, 300
	_, h, s, m := scopedHost()
	rng := rand.New(rand.NewPCG(1, 2))
	for range near {
		m.NewWith(&ecs.Transform{X: rng.Float64() * 300, Y: rng.Float64() * 300}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	}
	for range far {
		m.NewWith(&ecs.Transform{X: 5000 + rng.Float64()*300, Y: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	}
	c := newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1})
	l := &link{rng: rand.New(rand.NewPCG(3, 4)), delay: 1, peer: 1}
	h.AddPeer(1, l)
	for i := 0; i < 2000 && !c.Joined(); i++ {
		s.Step()
		l.step(t, h, c)
	}
	if !c.Joined() {
		t.Fatal("not joined")
	}
	p := h.Peer(1)
	before, capBefore := p.rmIndex.memory(), cap(p.despawns)
	m.NewWith(&ecs.Transform{X: 100, Y: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1}) // its first entity
	s.Step()
	l.step(t, h, c)
	peak := len(p.despawns)
	t.Logf("after narrow: %d removals queued, index %d bytes, queue capacity %d", peak, p.rmIndex.memory(), cap(p.despawns))
	for i := 0; i < 600 && len(p.despawns) > 0; i++ {
		s.Step()
		l.step(t, h, c)
	}
	if len(p.despawns) != 0 {
		t.Fatalf("%d removals still queued", len(p.despawns))
	}
	t.Logf("before: index %d B, queue cap %d; queue empty now: index %d B, queue capacity %d (%d B), peer Memory %d B",
		before, capBefore, p.rmIndex.memory(), cap(p.despawns), cap(p.despawns)*16, p.Memory())
	if p.rmIndex.memory() > 16*4*peak+16*removalScan {
		t.Errorf("the emptied index keeps %d bytes; at most %d removals were queued, in a world of %d", p.rmIndex.memory(), peak, h.live)
	}
	if cap(p.despawns) > 4*peak+removalScan {
		t.Errorf("the empty queue keeps room for %d removals; at most %d were ever queued", cap(p.despawns), peak)
	}
}

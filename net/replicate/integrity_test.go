package replicate

import (
	"errors"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// droppingLane is a join lane that loses the n-th page it carries (1 for the
// first), as a client that dropped it would; everything else is delivered in
// order when drained.
type droppingLane struct {
	link
	drop   int
	pages  int
	queued [][]byte
}

func (l *droppingLane) SendLane(_ transport.Lane, msg []byte) error {
	if wire.Kind(msg[0]) == wire.KindJoinPage {
		if l.pages++; l.pages == l.drop {
			return nil
		}
	}
	l.queued = append(l.queued, append([]byte(nil), msg...))
	return nil
}

func (l *droppingLane) LaneBuffered(transport.Lane) int { return 0 }

// TestLostPageFailsTheJoin: FINAL says how many pages and entities the join
// sent; a client that lost a page fails the join with a JoinIncompleteError
// naming both counts, instead of reporting a world it does not hold.
func TestLostPageFailsTheJoin(t *testing.T) {
	const n = 5000
	_, reg, sched := bigWorld(n, 0)
	h := NewHost(reg, HostConfig{JoinPage: 4 << 10})
	sched.Add("replicate", h)
	c := newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1})
	l := &droppingLane{link: link{rng: rand.New(rand.NewPCG(1, 1)), peer: 1}, drop: 3}
	p := h.AddPeer(1, l)
	for p.Joining() {
		sched.Step()
	}
	var err error
	for _, m := range l.queued {
		if _, err = c.HandleLane(m); err != nil {
			break
		}
	}
	for err == nil && c.Waiting() > 0 {
		err = c.Pump()
	}
	var ji *JoinIncompleteError
	if !errors.As(err, &ji) || !errors.Is(err, ErrJoinIncomplete) {
		t.Fatalf("the join without page 3 ended with %v, want a *JoinIncompleteError", err)
	}
	if ji.PagesSent != uint64(l.pages) || ji.PagesReceived != uint64(l.pages-1) || ji.EntitiesSent != n || ji.EntitiesHeld >= n {
		t.Fatalf("%+v: want %d of %d pages and fewer than %d of %d entities", *ji, l.pages-1, l.pages, n, n)
	}
	if c.Joined() {
		t.Fatal("the client reports a join whose world it does not hold")
	}
}

// TestJoinCountsMatchWhileTheWorldChanges: entities spawned, changed and
// removed while a join runs over several ticks and rounds leave the client
// holding exactly the count FINAL states.
func TestJoinCountsMatchWhileTheWorldChanges(t *testing.T) {
	l := &pacedLane{link: link{rng: rand.New(rand.NewPCG(5, 6)), peer: 1}, rate: 8 << 10}
	_, p, c, _ := joinChangingScene(t, HostConfig{JoinWindow: 16 << 10, JoinPage: 4 << 10}, l)
	if p.Stats().JoinRounds < 2 || c.Stats().Despawns == 0 {
		t.Fatalf("rounds %d, removals %d: the world did not change during the join", p.Stats().JoinRounds, c.Stats().Despawns)
	}
}

// drainingLane is a join lane a test drains into a client.
type drainingLane interface {
	Out
	drain(t *testing.T, c *ClientReplicator)
}

// joinChangingScene joins a client to a scene of 3,000 entities that
// spawn, change and go while the join runs, through lane l, checking
// FINAL's count against the peer's slots every step (checkHeld); it returns
// the scene, the host's peer, the client and the client's world.
func joinChangingScene(t *testing.T, cfg HostConfig, l drainingLane) (*scene, *HostPeer, *ClientReplicator, *ecs.World) {
	t.Helper()
	host := newScene(3, 3000)
	h := NewHost(host.reg, cfg)
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	cw := ecs.NewWorld()
	c := newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
	p := h.AddPeer(1, l)
	for steps := 0; !c.Joined(); steps++ {
		host.sched.Step()
		checkHeld(t, p)
		l.drain(t, c) // fails the test on a JoinIncompleteError
		if p.Err() != nil || steps > 2000 {
			t.Fatalf("after %d steps: %v", steps, p.Err())
		}
	}
	return host, p, c, cw
}

// TestEntityLeavingScopeDuringJoinIsTakenBack: an entity that went out in a
// page and leaves the peer's scope before the join ends is removed from the
// client by a later page (as it would be after the join), so the client holds
// no ghost of it and FINAL's count holds.
func TestEntityLeavingScopeDuringJoinIsTakenBack(t *testing.T) {
	w, reg, sched := bigWorld(3000, 0)
	// The peer's player at the origin sees 1,000 units around it: the whole
	// world, until entities move away.
	player := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	player.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	h := NewHost(reg, HostConfig{JoinWindow: 16 << 10, JoinPage: 4 << 10,
		Interest: InterestConfig{CellSize: 100, Radius: 1000}})
	sched.Add("replicate", h)
	cw := ecs.NewWorld()
	c := newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
	l := &pacedLane{link: link{rng: rand.New(rand.NewPCG(5, 6)), peer: 1}, rate: 8 << 10}
	p := h.AddPeer(1, l)
	tf := generic.NewMap[ecs.Transform](w.Arche())
	sched.Step() // the first pages go out
	// Move ten entities the first page carried out of the peer's scope.
	var gone []ecs.NetID
	for slot := int32(0); len(gone) < 10; slot++ {
		e, id, _ := w.SlotEntity(slot)
		tf.Get(e).X += 5000
		ecs.MutateComponent(w, e, w.IDs.Transform)
		gone = append(gone, id)
	}
	for steps := 0; !c.Joined(); steps++ {
		sched.Step()
		checkHeld(t, p)
		l.drain(t, c)
		if p.Err() != nil || steps > 1000 {
			t.Fatalf("after %d steps: %v", steps, p.Err())
		}
	}
	for _, id := range gone {
		if _, ok := cw.EntityOf(id); ok {
			t.Fatalf("the client keeps entity %d, which left its scope during the join", id)
		}
	}
	if cw.Networked() != w.Networked()-len(gone) {
		t.Fatalf("client holds %d entities, want the %d in scope", cw.Networked(), w.Networked()-len(gone))
	}
	if p.Stats().Left < uint64(len(gone)) {
		t.Fatalf("%d entities left the peer's scope, want %d", p.Stats().Left, len(gone))
	}
}

// checkHeld fails the test unless a joining peer's count of the entities it
// holds by its pages (FINAL's) is that of its slots marked paged.
func checkHeld(t *testing.T, p *HostPeer) {
	t.Helper()
	live := 0
	for i := range p.h.ents {
		if p.h.ents[i].flags&eLive != 0 {
			live++
		}
	}
	if p.h.live != live {
		t.Fatalf("the host counts %d entities live, its records %d", p.h.live, live)
	}
	checkOwned(t, p.h)
	if p.join == nil {
		return
	}
	n := 0
	for i := range p.slots {
		if p.slots[i].flags&fPaged != 0 {
			n++
		}
	}
	if p.join.held != n {
		t.Fatalf("the join counts %d entities paged, its slots %d", p.join.held, n)
	}
}

// refusingLane is a pacedLane that refuses every third page as a full queue.
type refusingLane struct {
	pacedLane
	sends, refused int
}

func (l *refusingLane) SendLane(lane transport.Lane, msg []byte) error {
	l.sends++
	if l.sends%3 == 0 && msg[0] == byte(wire.KindJoinPage) {
		l.refused++
		return transport.ErrLaneQueueFull
	}
	return l.pacedLane.SendLane(lane, msg)
}

// TestJoinCountsMatchWhenTheLaneRefusesPages: pages the lane refuses as
// full go again in a later round, and FINAL's count of the entities the
// peer holds stays that of its slots marked paged, with the world changing.
func TestJoinCountsMatchWhenTheLaneRefusesPages(t *testing.T) {
	l := &refusingLane{pacedLane: pacedLane{link: link{rng: rand.New(rand.NewPCG(7, 8)), peer: 1}, rate: 8 << 10}}
	host, _, _, cw := joinChangingScene(t, HostConfig{JoinWindow: 16 << 10, JoinPage: 4 << 10, MaxJoinRounds: 64}, l)
	if l.refused == 0 {
		t.Fatal("the lane refused no page")
	}
	if cw.Networked() != host.w.Networked() {
		t.Fatalf("client holds %d entities, the host %d", cw.Networked(), host.w.Networked())
	}
}

// checkOwned fails the test unless the host's count of the entities each
// peer owns is that of its records.
func checkOwned(t *testing.T, h *HostReplicator) {
	t.Helper()
	owned := map[ecs.PeerID]int32{}
	for i := range h.ents {
		if e := &h.ents[i]; e.flags&eLive != 0 && e.owner != ecs.HostPeer {
			owned[e.owner]++
		}
	}
	if !maps.Equal(owned, h.owned) {
		t.Fatalf("the host counts the entities peers own as %v, its records %v", h.owned, owned)
	}
}

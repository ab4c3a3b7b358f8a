package replicate

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
)

// observed counts what an Observer and OnSpawn heard, by network id.
type observed struct {
	w       *ecs.World
	removed map[ecs.NetID]int
	spawned map[ecs.NetID]int
	snapped int
}

func (o *observed) Applied(e arche.Entity, f ecs.Frame) {
	if ip := (*ecs.Interpolated)(o.w.Arche().Get(e, o.w.IDs.Interpolated)); ip != nil && ip.Snap {
		o.snapped++
		ip.Snap = false
	}
}

func (o *observed) Removed(e arche.Entity) {
	ni, _ := o.w.Identity(e)
	o.removed[ni.ID]++
}

// joinedScene returns a host of the moving scene and a client (peer 1)
// joined to it over link l after the given steps, the client's Observer and
// OnSpawn counting by network id what it heard.
func joinedScene(t *testing.T, l *link, steps int) (*scene, *HostReplicator, *ecs.World, *Registry, *observed, *ClientReplicator) {
	t.Helper()
	host := newScene(11, 300)
	h := NewHost(host.reg, HostConfig{})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	cw := ecs.NewWorld()
	creg := NewRegistry(cw)
	o := &observed{w: cw, removed: map[ecs.NetID]int{}, spawned: map[ecs.NetID]int{}}
	c := newTestClient(creg, ClientConfig{Local: 1, Observer: o, OnSpawn: func(e arche.Entity, _ ecs.PeerID, _ ecs.Frame) {
		ni, _ := cw.Identity(e)
		o.spawned[ni.ID]++
	}})
	h.AddPeer(1, l)
	for range steps {
		host.sched.Step()
		l.step(t, h, c)
	}
	if !c.Joined() {
		t.Fatal("client never joined")
	}
	return host, h, cw, creg, o, c
}

// heldByID returns the networked entities world w holds, by network id.
func heldByID(w *ecs.World) map[ecs.NetID]arche.Entity {
	held := map[ecs.NetID]arche.Entity{}
	for slot := int32(0); int(slot) < w.NetSlots(); slot++ {
		if e, id, ok := w.SlotEntity(slot); ok {
			held[id] = e
		}
	}
	return held
}

// A rejoin after a gap in which the host's world changed (entities moved,
// came and went) leaves the client holding exactly the host's world, and
// every entity that lived through the gap is the same arche entity it was,
// neither removed nor spawned again; those removed in the gap are removed
// once, the new ones spawned once.
func TestRejoinKeepsTheEntitiesHeld(t *testing.T) {
	host, h, cw, creg, o, c := joinedScene(t, &link{rng: rand.New(rand.NewPCG(3, 4)), loss: 0.05, delay: 3, jitter: 1, peer: 1}, 600)

	// The connection breaks: the host forgets the peer, the world goes on.
	h.RemovePeer(1)
	before := heldByID(cw)
	for range 300 {
		host.sched.Step()
	}
	host.still = true
	clear(o.spawned)

	// It resumes on a new connection: the host joins it again.
	c.Rejoin(1, 0, 0)
	if c.Joined() || !c.Rejoining() {
		t.Fatal("a rejoin under way reports the client joined")
	}
	l2 := &link{rng: rand.New(rand.NewPCG(5, 6)), loss: 0.05, delay: 3, jitter: 1, peer: 1}
	h.AddPeer(1, l2)
	for range 300 {
		host.sched.Step()
		l2.step(t, h, c)
	}
	if !c.Joined() || c.Rejoining() {
		t.Fatal("the rejoin did not finish")
	}
	checkImage(t, host, cw, creg)

	kept, gone, born := 0, 0, 0
	for id, e := range before {
		he, alive := host.w.EntityOf(id)
		ce, held := cw.EntityOf(id)
		switch {
		case alive && (!held || ce != e):
			t.Fatalf("entity %d lived through the gap on the host (%v) but the client holds %v, not %v", id, he, ce, e)
		case alive:
			kept++
			if o.removed[id] != 0 || o.spawned[id] != 0 {
				t.Fatalf("entity %d lived through the gap but was removed %d and spawned %d times", id, o.removed[id], o.spawned[id])
			}
		case !alive && (held || o.removed[id] != 1):
			t.Fatalf("entity %d died in the gap: held %v, removed %d times, want once", id, held, o.removed[id])
		default:
			gone++
		}
	}
	for id, n := range o.spawned {
		if _, old := before[id]; old || n != 1 {
			t.Fatalf("entity %d spawned %d times by the rejoin (held before: %v)", id, n, old)
		}
		born++
	}
	st := c.Stats()
	t.Logf("rejoin: %d entities kept, %d removed in the gap, %d born in it; %d swept at FINAL, %d drawn as jumps", kept, gone, born, st.Swept, o.snapped)
	if kept == 0 || gone == 0 || born == 0 || st.Swept == 0 {
		t.Fatalf("the gap changed too little to test: kept %d, gone %d, born %d, swept %d", kept, gone, born, st.Swept)
	}
	if o.snapped < kept {
		t.Fatalf("%d of %d entities held through the rejoin were drawn as a jump to their new state", o.snapped, kept)
	}
}

// A rejoin whose pages do not all arrive fails as a first join does, and
// removes nothing.
func TestRejoinMissingAPageFails(t *testing.T) {
	host := newScene(13, 2000)
	host.still = true
	h := NewHost(host.reg, HostConfig{JoinPage: 1 << 10})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	cw := ecs.NewWorld()
	c := newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
	l := &link{rng: rand.New(rand.NewPCG(3, 4)), delay: 1, peer: 1}
	h.AddPeer(1, l)
	for range 60 {
		host.sched.Step()
		l.step(t, h, c)
	}
	h.RemovePeer(1)
	c.Rejoin(1, 0, 0)
	dl := &droppingLane{link: link{rng: rand.New(rand.NewPCG(1, 1)), peer: 1}, drop: 2}
	p := h.AddPeer(1, dl)
	held := cw.Networked()
	for p.Joining() {
		host.sched.Step()
	}
	var err error
	for _, m := range dl.queued {
		if _, err = c.HandleLane(m); err != nil {
			break
		}
	}
	for err == nil && c.Waiting() > 0 {
		err = c.Pump()
	}
	var ji *JoinIncompleteError
	if !errors.As(err, &ji) || c.Joined() {
		t.Fatalf("rejoin missing a page: %v (joined %v), want a JoinIncompleteError", err, c.Joined())
	}
	if cw.Networked() != held || c.Stats().Swept != 0 {
		t.Fatalf("a failed rejoin removed entities: %d held, %d before, %d swept", cw.Networked(), held, c.Stats().Swept)
	}
}

// A rejoin that starts while the join before it is half applied (its
// connection broke with pages queued) drops what was queued: the new join's
// counts hold, and the client ends with the host's world, those entities of
// the cut join that the host no longer has swept.
func TestRejoinDuringAJoinDropsItsPages(t *testing.T) {
	host := newScene(17, 3000)
	host.still = true
	h := NewHost(host.reg, HostConfig{JoinPage: 2 << 10})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	cw := ecs.NewWorld()
	creg := NewRegistry(cw)
	c := NewClient(creg, ClientConfig{Local: 1, Clock: clock.NewFake(time.Unix(0, 0))})
	first := &droppingLane{link: link{rng: rand.New(rand.NewPCG(1, 2)), peer: 1}}
	p := h.AddPeer(1, first)
	for p.Joining() {
		host.sched.Step()
	}
	pages := len(first.queued)
	if pages < 6 {
		t.Fatalf("the join took %d messages, want several pages", pages)
	}
	// Half the pages applied, a few more queued, then the break.
	for _, m := range first.queued[:pages/2] {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	for _, m := range first.queued[pages/2 : pages/2+2] {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	h.RemovePeer(1)
	// The world changes in the gap: a tenth of the entities the client holds go.
	gone := 0
	for slot := int32(0); gone < cw.Networked()/10; slot++ {
		if _, id, ok := cw.SlotEntity(slot); ok {
			if e, ok := host.w.EntityOf(id); ok {
				host.w.Arche().RemoveEntity(e)
				gone++
			}
		}
	}
	c.Rejoin(1, 0, 0)
	if c.Waiting() != 0 {
		t.Fatalf("%d bytes of the cut join still queued after Rejoin", c.Waiting())
	}
	second := &link{rng: rand.New(rand.NewPCG(3, 4)), delay: 1, peer: 1}
	h.AddPeer(1, second)
	for range 200 {
		host.sched.Step()
		second.step(t, h, c)
	}
	if !c.Joined() {
		t.Fatal("the rejoin did not finish")
	}
	checkImage(t, host, cw, creg)
	if st := c.Stats(); st.Swept < uint64(gone) {
		t.Fatalf("%d entities swept, want at least the %d removed in the gap", st.Swept, gone)
	}
}

// A rejoin into another run of the host's world (fresh not 0) removes at
// once every entity held under an id at or past fresh, telling the
// Observer and counting it swept, and keeps those below as they are.
func TestRejoinIntoAnotherRunDropsTheFreshIDs(t *testing.T) {
	_, _, cw, _, o, c := joinedScene(t, &link{rng: rand.New(rand.NewPCG(3, 4)), delay: 2, peer: 1}, 300)
	held := heldByID(cw)
	var top ecs.NetID
	for id := range held {
		top = max(top, id)
	}
	fresh := top/2 + 1
	swept := c.Stats().Swept
	c.Rejoin(1, 0, fresh)
	dropped := 0
	for id, e := range held {
		ce, ok := cw.EntityOf(id)
		switch {
		case id >= fresh && (ok || o.removed[id] != 1):
			t.Fatalf("entity %d, at or past the fresh id %d: held %v, removed %d times; want removed once", id, fresh, ok, o.removed[id])
		case id >= fresh:
			dropped++
		case !ok || ce != e || o.removed[id] != 0:
			t.Fatalf("entity %d, below the fresh id %d: held %v as the same entity %v, removed %d times; want it kept", id, fresh, ok, ce == e, o.removed[id])
		}
	}
	if dropped == 0 || c.Stats().Swept-swept != uint64(dropped) {
		t.Fatalf("%d entities dropped, %d counted swept", dropped, c.Stats().Swept-swept)
	}
}

package replicate

import (
	"errors"
	"fmt"
	"math"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// rig is a host replicator with one peer over a capture, and a client that
// is fed by hand: each test decides which message arrives and which is lost.
type rig struct {
	t      *testing.T
	w      *ecs.World
	reg    *Registry
	h      *HostReplicator
	s      *ecs.Schedule
	out    *capture
	m      generic.Map3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity]
	tf     generic.Map[ecs.Transform]
	cw     *ecs.World
	c      *ClientReplicator
	seen   int // messages handled so far
	scoped map[arche.Entity]bool
}

func newRig(t *testing.T, cfg HostConfig) *rig { return newRigWith(t, cfg, nil) }

// newRigWith is newRig with register, if not nil, registering the game's
// components after the core ones, on the host and on the client.
func newRigWith(t *testing.T, cfg HostConfig, register func(*Registry)) *rig {
	w := ecs.NewWorld()
	r := &rig{t: t, w: w, reg: NewRegistry(w), out: &capture{}, scoped: map[arche.Entity]bool{}}
	creg := NewRegistry(ecs.NewWorld())
	if register != nil {
		register(r.reg)
		register(creg)
	}
	if cfg.SendEvery == 0 {
		cfg.SendEvery = 1
	}
	r.h = NewHost(r.reg, cfg)
	r.s = ecs.NewSchedule(w, nil, 0)
	r.s.Add("replicate", r.h)
	r.m = generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	r.tf = generic.NewMap[ecs.Transform](w.Arche())
	r.cw = creg.world
	r.c = newTestClient(creg, ClientConfig{Local: 1})
	r.h.AddPeer(1, r.out)
	r.s.Step()
	for _, m := range r.out.lane {
		if _, err := r.c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.c.Pump(); err != nil {
		t.Fatal(err)
	}
	if !r.c.Joined() {
		t.Fatal("rig: client did not join")
	}
	return r
}

// next returns the index of every message sent since the last call.
func (r *rig) next() []int {
	var idx []int
	for ; r.seen < len(r.out.msgs); r.seen++ {
		idx = append(idx, r.seen)
	}
	return idx
}

// stepSend steps the host and delivers each message it sent, or with lose
// loses it (the host told of its fate either way).
func (r *rig) stepSend(lose bool) {
	r.s.Step()
	for _, i := range r.next() {
		if lose {
			r.lose(i)
		} else {
			r.deliver(i)
		}
	}
}

func (r *rig) deliver(i int) {
	r.arrive(i)
	if r.out.tokens[i] != 0 {
		r.h.Delivered(1, r.out.tokens[i])
	}
}

// arrive hands message i to the client, the host told nothing of it.
func (r *rig) arrive(i int) {
	m := r.out.msgs[i]
	if _, err := r.c.HandleDatagram(wire.Kind(m[0]), m[1:]); err != nil {
		r.t.Fatalf("message %d: %v (%+v)", i, err, r.c.Stats())
	}
}

func (r *rig) lose(i int) {
	if r.out.tokens[i] != 0 {
		r.h.Lost(1, r.out.tokens[i])
	}
}

// settle steps with every message delivered until nothing more is sent.
func (r *rig) settle() {
	for range 60 {
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
}

func (r *rig) move(e arche.Entity, dx float64) {
	r.tf.Get(e).X += dx
	ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
}

func TestLostSpawnWithSecondSpawnInFlightLeavesNoGhost(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.s.Step()
	first := r.next()
	r.move(e, 10)
	r.s.Step()
	second := r.next() // the spawn again, with the new pose
	r.lose(first[0])
	r.w.Arche().RemoveEntity(e)
	r.s.Step()
	removal := r.next()
	r.deliver(second[0]) // the second spawn arrives after all
	for _, i := range removal {
		r.deliver(i)
	}
	r.settle()
	if r.cw.Networked() != r.w.Networked() {
		t.Fatalf("host holds %d entities, client %d: a ghost", r.w.Networked(), r.cw.Networked())
	}
}

func TestScopeReentrySpawnsAgain(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	e := r.m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	id, _ := r.w.Identity(e)
	if _, ok := r.cw.EntityOf(id.ID); !ok {
		t.Fatal("entity never reached the client")
	}
	r.move(e, 1000) // x = 1100: ten cells away, out of scope
	r.s.Step()
	for _, i := range r.next() {
		r.deliver(i)
	}
	if _, ok := r.cw.EntityOf(id.ID); ok {
		t.Fatal("entity out of scope still on the client after the next send")
	}
	r.move(e, -900)
	r.settle()
	if ce, ok := r.cw.EntityOf(id.ID); !ok {
		t.Fatal("entity back in scope never came back")
	} else if got := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X; got != 200 {
		t.Fatalf("re-entered at x=%v, want 200", got)
	}
}

func TestLostAuthStateIsSentAgain(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	r.move(e, 11)
	r.s.Step()
	for _, i := range r.next() {
		r.lose(i) // the AuthState with x = 11 never arrives
	}
	r.settle()
	ce, _ := r.cw.EntityOf(mustID(r.w, e))
	if got := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X; got != 11 {
		t.Fatalf("owner holds x=%v after a lost AuthState, want 11", got)
	}
}

// A budget smaller than a message's framing still sends, the first item
// or removal of a tick once the budget is full: spawns, then removals.
func TestTinyBudgetStillSends(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 500, SendEvery: 2})
	var made []arche.Entity
	for range 3 {
		made = append(made, r.m.NewWith(&ecs.Transform{X: 1e6}, &ecs.Velocity{X: 100}, &ecs.NetworkIdentity{}))
	}
	run := func() {
		for range 600 {
			r.s.Step()
			for _, i := range r.next() {
				r.deliver(i)
			}
		}
	}
	run()
	if r.cw.Networked() != 3 {
		t.Fatalf("client holds %d of 3 entities after 10 s at 500 bit/s", r.cw.Networked())
	}
	for _, e := range made[:2] {
		r.w.Arche().RemoveEntity(e)
	}
	run()
	if r.cw.Networked() != 1 {
		t.Fatalf("client holds %d entities 10 s after 2 of 3 were removed at 500 bit/s, want 1", r.cw.Networked())
	}
}

func TestOwnerChangeReachesPeers(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	ecs.SetOwner(r.w, e, 1)
	r.settle()
	ce, _ := r.cw.EntityOf(mustID(r.w, e))
	if ni, _ := r.cw.Identity(ce); ni.Owner != 1 {
		t.Fatalf("client sees owner %d, want 1", ni.Owner)
	}
}

func mustID(w *ecs.World, e arche.Entity) ecs.NetID {
	ni, ok := w.Identity(e)
	if !ok {
		panic("not networked")
	}
	return ni.ID
}

func TestPriorityWeighsHowOftenChangesGo(t *testing.T) {
	var near, far arche.Entity
	r := newRig(t, HostConfig{Priority: func(_ ecs.PeerID, e arche.Entity) float64 {
		if e == far {
			return 0.25
		}
		return 1
	}})
	near = r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	far = r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	idNear, idFar := mustID(r.w, near), mustID(r.w, far)
	r.out.msgs, r.out.tokens, r.seen = nil, nil, 0
	for range 120 {
		r.move(near, 5)
		r.move(far, 5)
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
	// Both moved 600 units; the near one's state went every send, the far
	// one's about every fourth.
	nearSends, farSends := countSends(t, r, idNear), countSends(t, r, idFar)
	if nearSends < 100 || farSends > nearSends/3 || farSends < nearSends/6 {
		t.Fatalf("near entity sent %d times, far (weight 1/4) %d times", nearSends, farSends)
	}
	r.settle()
	for _, id := range []ecs.NetID{idNear, idFar} {
		ce, _ := r.cw.EntityOf(id)
		if x := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X; x != 600 {
			t.Fatalf("entity %d ends at x=%v on the client, want 600", id, x)
		}
	}
}

// countSends decodes every State message the rig sent and counts the items
// of entity id.
func countSends(t *testing.T, r *rig, id ecs.NetID) int {
	n := 0
	c := newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1})
	c.joined = true
	c.itemHook = func(got ecs.NetID, kind uint8) {
		if got == id {
			n++
		}
	}
	for _, m := range r.out.msgs {
		if wire.Kind(m[0]) != wire.KindState {
			continue
		}
		if err := c.applyState(m[1:]); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// A player whose only entity goes (it fell) keeps seeing around where it
// was, not the whole world, until it owns one again (it spawned anew
// elsewhere), which brings the scope there.
func TestScopeHeldBetweenLives(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	avatar := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	near := r.m.NewWith(&ecs.Transform{X: 200}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	far := r.m.NewWith(&ecs.Transform{X: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	held := func(e arche.Entity) bool {
		_, ok := r.cw.EntityOf(mustID(r.w, e))
		return ok
	}
	if !held(near) || held(far) {
		t.Fatalf("alive: near held %v, far held %v; want near only", held(near), held(far))
	}
	r.w.Arche().RemoveEntity(avatar)
	r.settle()
	if !held(near) || held(far) {
		t.Fatalf("between lives: near held %v, far held %v; want near only (the scope held where the avatar fell)", held(near), held(far))
	}
	r.m.NewWith(&ecs.Transform{X: 5100}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	if held(near) || !held(far) {
		t.Fatalf("alive again at x=5100: near held %v, far held %v; want far only", held(near), held(far))
	}
}

// A player joining a large world with its entity spawned as it is added (as
// a game's Join hook does) is sent what is in its scope; the far entities
// its first square puts out of scope during the join never were the
// peer's, so they are not counted as having left it.
func TestJoinScopeCountsNoLeaving(t *testing.T) {
	_, h, s, m := scopedHost()
	for i := range 300 {
		m.NewWith(&ecs.Transform{X: 5000 + float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	}
	m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	s.Step()
	m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	cw := ecs.NewWorld()
	c := newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
	out := &capture{}
	p := h.AddPeer(1, out)
	for steps := 0; !c.Joined(); steps++ {
		if steps > 100 {
			t.Fatal("no join in 100 steps")
		}
		s.Step()
		for _, msg := range out.lane {
			if _, err := c.HandleLane(msg); err != nil {
				t.Fatal(err)
			}
		}
		out.lane = nil
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if got := cw.Networked(); got != 2 {
		t.Fatalf("the client holds %d entities, want its own and the near one", got)
	}
	if st := p.Stats(); st.Left != 0 || st.Entered != 0 {
		t.Fatalf("a join counted %d entities left and %d entered", st.Left, st.Entered)
	}
}

// The game's square (Focus) decides what a peer that owns nothing sees,
// moves with it, adds to the squares of what the peer owns, and once taken
// away (Unfocus) leaves those.
func TestFocus(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	near := r.m.NewWith(&ecs.Transform{X: 200}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	far := r.m.NewWith(&ecs.Transform{X: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	check := func(when string, wantNear, wantFar bool) {
		t.Helper()
		_, n := r.cw.EntityOf(mustID(r.w, near))
		_, f := r.cw.EntityOf(mustID(r.w, far))
		if n != wantNear || f != wantFar {
			t.Fatalf("%s: near held %v, far held %v; want %v, %v", when, n, f, wantNear, wantFar)
		}
	}
	check("owning nothing, no focus: the whole world", true, true)
	r.h.Focus(1, 5050, 0)
	r.settle()
	check("focused on x=5050", false, true)
	r.h.Focus(1, math.NaN(), 0) // not a place: the square stays
	r.h.Focus(1, 0, math.NaN())
	r.settle()
	check("focus at NaN", false, true)
	r.h.Focus(1, 100, -40)
	r.settle()
	check("focus moved to x=100", true, false)
	r.m.NewWith(&ecs.Transform{X: 4900}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	check("focused at x=100, owning an entity at x=4900", true, true)
	r.h.Unfocus(1)
	r.settle()
	check("unfocused, owning an entity at x=4900", false, true)
	r.h.Unfocus(1)     // again: nothing
	r.h.Focus(2, 0, 0) // a peer the host does not know: nothing
	r.settle()
	check("unfocused twice", false, true)
}

// A death camera (Focus) ended while the player owns nothing leaves the
// square held where its entity was, whichever came first: the camera or
// the entity's end. The whole world is only for a peer that never owned
// anything.
func TestUnfocusBetweenLivesHolds(t *testing.T) {
	for _, order := range []string{"focus then fall", "fall then focus"} {
		t.Run(order, func(t *testing.T) {
			r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
			avatar := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
			near := r.m.NewWith(&ecs.Transform{X: 200}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			far := r.m.NewWith(&ecs.Transform{X: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			r.settle()
			held := func(e arche.Entity) bool { _, ok := r.cw.EntityOf(mustID(r.w, e)); return ok }
			if order == "focus then fall" {
				r.h.Focus(1, 5000, 0)
				r.settle()
				r.w.Arche().RemoveEntity(avatar)
			} else {
				r.w.Arche().RemoveEntity(avatar)
				r.settle()
				r.h.Focus(1, 5000, 0)
			}
			r.settle()
			if held(near) || !held(far) {
				t.Fatalf("the camera on x=5000: near held %v, far held %v; want far only", held(near), held(far))
			}
			r.h.Unfocus(1)
			r.settle()
			if !held(near) || held(far) {
				t.Fatalf("the camera gone: near held %v, far held %v; want near only (where the avatar was)", held(near), held(far))
			}
		})
	}
}

// A peer parked (its connection broke) and added again keeps its squares of
// its own: the game's (Focus, even one given while it was away) and the one
// held between lives. One removed for good does not pass them on to a peer
// that later gets its id.
func TestParkedPeerKeepsItsSquares(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	avatar := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.m.NewWith(&ecs.Transform{X: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	r.w.Arche().RemoveEntity(avatar)
	r.settle()
	r.h.ParkPeer(1)
	p := r.h.AddPeer(1, &capture{})
	if sc := p.scope; !sc.held || sc.pinned || sc.hx != 0 || sc.hy != 0 {
		t.Fatalf("back from a park between lives: held %v at (%d, %d), pinned %v; want held at (0, 0)", sc.held, sc.hx, sc.hy, sc.pinned)
	}
	r.h.ParkPeer(1)
	r.h.Focus(1, 5000, 0) // while it is away
	p = r.h.AddPeer(1, &capture{})
	if sc := p.scope; !sc.pinned || sc.px != 50 || sc.held || !sc.last {
		t.Fatalf("back from a park with a camera given meanwhile: pinned %v at %d, held %v, last %v; want pinned at 50, the held square behind it", sc.pinned, sc.px, sc.held, sc.last)
	}
	r.h.ParkPeer(1)
	r.h.DropParked(1)
	if p = r.h.AddPeer(1, &capture{}); p.scope.squared() {
		t.Fatal("a peer whose parked squares were dropped came back with squares")
	}
	r.h.ParkPeer(1)
	r.h.RemovePeer(1) // not there: forgets what was parked too
	if p = r.h.AddPeer(1, &capture{}); p.scope.squared() {
		t.Fatal("RemovePeer left parked squares for the next peer of the id")
	}
}

// A peer added after SetOwner gave it an entity, before the step takes the
// new owner in (a Join hook handing a player an existing ship), counts the
// ship's square once: when the ship goes, the peer holds its square.
func TestAddPeerBeforeReownCountsOnce(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	ship := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.m.NewWith(&ecs.Transform{X: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	ecs.SetOwner(r.w, ship, 2)
	p := r.h.AddPeer(2, &capture{})
	r.settle()
	if len(p.scope.own) != 1 {
		t.Fatalf("the peer given the ship counts %d squares, want 1", len(p.scope.own))
	}
	r.w.Arche().RemoveEntity(ship)
	r.settle()
	if len(p.scope.own) != 0 || !p.scope.held {
		t.Fatalf("after its only entity went: %d squares, held %v; want 0, held", len(p.scope.own), p.scope.held)
	}
}

// AuthStates of one input frame (the owner's input stalled) that arrive
// out of order leave the owner with the older state, as the client applies
// the newest frame it has seen: once every one of them is settled, the host
// sends the state once more, which arrives after them all.
func TestAuthStatesOfOneFrameReorderedEndNewest(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.h.Peer(1).SetInputFrame(7)
	r.settle()
	sent := r.h.Peer(1).Stats().AuthMessages
	r.move(e, 10)
	r.s.Step()
	older := r.next()
	r.move(e, 5)
	r.s.Step()
	newer := r.next()
	if len(older) != 1 || len(newer) != 1 {
		t.Fatalf("sent %d then %d messages, want one AuthState each", len(older), len(newer))
	}
	r.deliver(newer[0])
	r.deliver(older[0]) // overtaken on the way: applied last, at the same frame
	r.settle()
	ce, _ := r.cw.EntityOf(mustID(r.w, e))
	if got := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X; got != 15 {
		t.Fatalf("the owner holds x=%v, the host 15", got)
	}
	if got := r.h.Peer(1).Stats().AuthMessages - sent; got != 3 {
		t.Fatalf("%d AuthStates sent, want the two and one more", got)
	}
	// In order, nothing more goes.
	sent = r.h.Peer(1).Stats().AuthMessages
	r.move(e, 1)
	r.settle()
	if got := r.h.Peer(1).Stats().AuthMessages - sent; got != 1 {
		t.Fatalf("%d AuthStates sent for one change, want 1", got)
	}
}

// A spawn that gave an entity to a peer (another, or this client),
// overtaken by the next one, which gave it to another and made the entity
// on this client, does not set the owner back when it arrives after states
// of the entity built its history: the anchor image, the one the entity was
// made from, is gone by then; the frame of its newest spawn is kept beside
// it.
func TestOvertakenSpawnAfterHistoryKeepsTheOwner(t *testing.T) {
	for _, first := range []ecs.PeerID{9, 1} {
		t.Run(fmt.Sprintf("owner-%d-first", first), func(t *testing.T) {
			r := newRig(t, HostConfig{})
			e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: first})
			r.s.Step()
			late := r.next() // its spawn: overtaken on the way
			ecs.SetOwner(r.w, e, 7)
			r.s.Step()
			for _, i := range r.next() {
				if wire.Kind(r.out.msgs[i][0]) == wire.KindState {
					r.deliver(i) // the spawn of owner 7 makes the entity here
				}
			}
			for range 4 {
				r.moveDelivered(e)
			}
			for _, i := range late {
				r.deliver(i)
			}
			r.settle()
			r.wantOwner(e, 7)
		})
	}
}

// A spawn giving an entity to a new owner, overtaken by an update sent once
// the spawn before it was acknowledged, still sets the owner: a newer
// update does not make a spawn stale (it goes while a later spawn of the
// entity is still on its way).
func TestSpawnOvertakenByAnUpdateSetsTheOwner(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 9})
	r.s.Step()
	first := r.next()
	ecs.SetOwner(r.w, e, 7)
	r.s.Step()
	second := r.next() // the spawn with owner 7: overtaken on the way
	for _, i := range first {
		r.deliver(i)
	}
	r.moveDelivered(e)
	for _, i := range second {
		r.deliver(i)
	}
	r.settle()
	r.wantOwner(e, 7)
}

// moveDelivered moves e, steps, and delivers what the step sent.
func (r *rig) moveDelivered(e arche.Entity) {
	r.move(e, 10)
	r.s.Step()
	for _, i := range r.next() {
		r.deliver(i)
	}
}

// wantOwner fails the test unless the client holds e, owned by want.
func (r *rig) wantOwner(e arche.Entity, want ecs.PeerID) {
	r.t.Helper()
	ce, ok := r.cw.EntityOf(mustID(r.w, e))
	if !ok {
		r.t.Fatal("the client does not hold the entity")
	}
	if ni, _ := r.cw.Identity(ce); ni.Owner != want {
		r.t.Fatalf("the client says owner %d, the host %d", ni.Owner, want)
	}
}

// refusingOut is a capture that, once armed, refuses the next AuthState
// it is given, as a connection whose queue is full would.
type refusingOut struct {
	capture
	armed   bool
	refused int
}

func (o *refusingOut) QueueDatagram(kind wire.Kind, payload []byte, token uint32) error {
	if kind == wire.KindAuthState && o.armed {
		o.armed = false
		o.refused++
		return errors.New("queue full")
	}
	return o.capture.QueueDatagram(kind, payload, token)
}

// An AuthState the connection refused goes again at the next send tick,
// though nothing of the entity changed since.
func TestRefusedAuthStateGoesAgain(t *testing.T) {
	w := ecs.NewWorld()
	h := NewHost(NewRegistry(w), HostConfig{SendEvery: 1})
	s := ecs.NewSchedule(w, nil, 0)
	s.Add("replicate", h)
	out := &refusingOut{}
	h.AddPeer(1, out)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	e := m.NewWith(&ecs.Transform{X: 3}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	step := func() (auths int) {
		s.Step()
		for k, msg := range out.msgs {
			if wire.Kind(msg[0]) == wire.KindAuthState {
				auths++
			}
			if out.tokens[k] != 0 {
				h.Delivered(1, out.tokens[k])
			}
		}
		out.msgs, out.tokens = nil, nil
		return auths
	}
	for range 5 {
		step() // the spawn and the first states go and are acknowledged
	}
	out.armed = true
	tf := generic.NewMap[ecs.Transform](w.Arche())
	tf.Get(e).X = 4
	ecs.MutateComponent(w, e, w.IDs.Transform)
	if n := step(); n != 0 || out.refused != 1 {
		t.Fatalf("%d AuthStates sent, %d refused; want the one refused", n, out.refused)
	}
	if n := step() + step(); n != 1 {
		t.Fatalf("%d AuthStates sent after the refused one; want it again, once", n)
	}
}

// A peer that has seen the whole world, given its first square, has the
// many entities it puts out of its scope removed, the client left holding
// what the square covers: past removalScan removals at once, the queue is
// found by its index, and every one of them is delivered and settled.
func TestFirstSquareRemovesTheRest(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	const far = 5 * removalScan
	for i := range far {
		r.m.NewWith(&ecs.Transform{X: 5000 + float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	}
	near := r.m.NewWith(&ecs.Transform{X: 200}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	if got := r.cw.Networked(); got != far+1 {
		t.Fatalf("owning nothing, the client holds %d entities, want all %d", got, far+1)
	}
	r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.s.Step()
	p := r.h.Peer(1)
	if len(p.despawns) != far {
		t.Fatalf("%d removals queued by the first square, want %d", len(p.despawns), far)
	}
	r.settle()
	if got := r.cw.Networked(); got != 2 {
		t.Fatalf("the client holds %d entities, want its own and the near one", got)
	}
	if _, ok := r.cw.EntityOf(mustID(r.w, near)); !ok {
		t.Fatal("the client lost the near entity")
	}
	if st := p.Stats(); st.Left != far || len(p.despawns) != 0 || p.rmIndex.valid {
		t.Fatalf("left %d, removals queued %d, index in use %v: want %d, none and no", st.Left, len(p.despawns), p.rmIndex.valid, far)
	}
}

// scopedHost makes an empty world with a host replicator whose interest
// grid has cells of 100 and a radius of 500, sending every step, and the
// map its tests make bodies with.
func scopedHost() (*ecs.World, *HostReplicator, *ecs.Schedule, generic.Map3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity]) {
	w := ecs.NewWorld()
	h := NewHost(NewRegistry(w), HostConfig{SendEvery: 1, Interest: InterestConfig{CellSize: 100, Radius: 500}})
	s := ecs.NewSchedule(w, nil, 0)
	s.Add("replicate", h)
	return w, h, s, generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
}

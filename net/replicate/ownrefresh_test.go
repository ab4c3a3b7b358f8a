package replicate

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// authFrames is an AuthHandler that keeps, by AuthState frame, the
// entities each carried.
type authFrames map[ecs.Frame][]arche.Entity

func (a authFrames) AuthState(f ecs.Frame, e arche.Entity, _ State) { a[f] = append(a[f], e) }

// ownRig is a rig whose peer 1 owns n entities, with the owner's AuthStates
// recorded; each step applies a newer input frame of the peer.
type ownRig struct {
	*rig
	seen  authFrames
	owned []arche.Entity
	frame ecs.Frame
}

func newOwnRig(t *testing.T, n int, cfg HostConfig) *ownRig {
	r := &ownRig{rig: newRig(t, cfg), seen: authFrames{}}
	r.c.cfg.Auth = r.seen
	for range n {
		r.owned = append(r.owned, r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1}))
	}
	r.settle()
	return r
}

// step applies the peer's next input frame and steps the host; lose, if
// set, loses every AuthState of the step, else all is delivered. It returns
// the frame the step's AuthState carries.
func (r *ownRig) step(lose bool) ecs.Frame {
	r.frame++
	r.h.Peer(1).SetInputFrame(r.frame)
	r.s.Step()
	for _, i := range r.next() {
		if lose && wire.Kind(r.out.msgs[i][0]) == wire.KindAuthState {
			r.lose(i)
			continue
		}
		r.deliver(i)
	}
	return r.frame
}

// An owner of an army standing still is sent, at each newer input frame,
// an eighth of it in turn: each unit at least once in eight sends, never
// all of them; one the host moves goes every time; after a lost AuthState
// the whole army comes again within a few sends, as the owner's share of
// the budget holds. An owner of a few entities gets them all every time.
func TestAnIdleArmyTakesTurns(t *testing.T) {
	const n = 200
	r := newOwnRig(t, n, HostConfig{})
	r.frame = 1000
	refresh := r.h.cfg.OwnRefresh
	last := map[arche.Entity]int{}
	most, total := 0, 0
	const sends = 64
	for i := range sends {
		f := r.step(false)
		got := r.seen[f]
		most = max(most, len(got))
		total += len(got)
		for _, e := range got {
			if i-last[e] > refresh && i >= refresh {
				t.Fatalf("send %d: entity %v waited %d sends for its turn, more than %d", i, e, i-last[e], refresh)
			}
			last[e] = i
		}
	}
	for _, e := range r.owned {
		if sends-1-last[e] >= refresh {
			t.Fatalf("entity %v was last sent %d sends ago", e, sends-1-last[e])
		}
	}
	if avg := float64(total) / sends; avg > 1.5*n/float64(refresh) || most == n {
		t.Fatalf("an idle army of %d: %.1f states an AuthState on average, %d at most; want about %d", n, avg, most, n/refresh)
	}
	moved := r.owned[7]
	for range 3 * refresh {
		r.move(moved, 1)
		f := r.step(false)
		found := false
		for _, e := range r.seen[f] {
			found = found || e == moved
		}
		if !found {
			t.Fatalf("frame %d: the unit the host moved is not in its owner's AuthState", f)
		}
	}
	r.step(true)
	r.wholeArmyWithin(3)

	few := newOwnRig(t, ownAll, HostConfig{})
	few.frame = 1000
	for range 2 * refresh {
		if f := few.step(false); len(few.seen[f]) != ownAll {
			t.Fatalf("an owner of %d standing still was sent %d of them", ownAll, len(few.seen[f]))
		}
	}
}

// An army's unit the host holds still while its owner's client predicts it
// moving is corrected within OwnRefresh sends: the host's state of it comes
// in its turn.
func TestOwnRefreshBoundsTheWait(t *testing.T) {
	r := newOwnRig(t, 3*ownAll, HostConfig{OwnRefresh: 4})
	r.frame = 1000
	unit := mustID(r.w, r.owned[5])
	e, ok := r.cw.EntityOf(unit)
	if !ok {
		t.Fatal("the client does not hold the unit")
	}
	for range 4 {
		r.step(false)
	}
	clear(r.seen)
	for i := range 4 {
		f := r.step(false)
		for _, got := range r.seen[f] {
			if got == e {
				return
			}
		}
		t.Logf("send %d: %d states, not the unit's", i, len(r.seen[f]))
	}
	t.Fatal("the unit's state did not come in four sends")
}

// refuseAuth is an Out that refuses, as a connection with a full queue
// does, the next refuse AuthState messages; the rest go to the capture.
type refuseAuth struct {
	*capture
	refuse int
}

func (o *refuseAuth) QueueDatagram(kind wire.Kind, payload []byte, token uint32) error {
	if kind == wire.KindAuthState && o.refuse > 0 {
		o.refuse--
		return errors.New("queue full")
	}
	return o.capture.QueueDatagram(kind, payload, token)
}

// latest returns the owned entity whose turn comes last from the next
// AuthState built.
func (r *ownRig) latest() arche.Entity {
	own := &r.h.Peer(1).own
	owned := r.w.Owned(1)
	// The window of turns goes on from own.window through the owner's
	// list: the one just behind it has its turn last.
	return owned[(own.window+len(owned)-1)%len(owned)]
}

// clientOf returns the client's entity of host entity e.
func (r *ownRig) clientOf(e arche.Entity) arche.Entity {
	ce, ok := r.cw.EntityOf(mustID(r.w, e))
	if !ok {
		r.t.Fatalf("the client does not hold %v", e)
	}
	return ce
}

// An AuthState the connection refuses while it is built is a loss: the
// next carries the unit it moved, and the whole army comes again as fast as
// the owner's share of the budget holds.
func TestARefusedAuthStateIsSentAgainWhole(t *testing.T) {
	const n = 200
	r := settledArmy(t, n)
	r.h.Peer(1).out = &refuseAuth{capture: r.out, refuse: 1}
	moved := r.latest()
	r.move(moved, 50) // one change, then still
	if f := r.step(false); len(r.seen[f]) != 0 {
		t.Fatalf("the refused AuthState of frame %d arrived", f)
	}
	if got := r.wholeArmyWithin(3); !slices.Contains(got, r.clientOf(moved)) {
		t.Fatalf("the AuthState after a refused one carries %d of %d, not the moved unit", len(got), n)
	}
}

// wholeArmyWithin steps until every owned entity has come in an AuthState
// since the call, and fails if that takes more than sends sends or the
// first of them carries no more than a turn's worth (a loss makes the
// whole army due: it comes as fast as the owner's share of the budget
// holds, not in its turns). It returns what the first carried.
func (r *ownRig) wholeArmyWithin(sends int) (first []arche.Entity) {
	r.t.Helper()
	seen := map[arche.Entity]bool{}
	for i := range sends {
		f := r.step(false)
		if i == 0 {
			first = r.seen[f]
			if len(first) <= len(r.owned)/r.h.cfg.OwnRefresh+1 {
				r.t.Fatalf("the AuthState after a loss carries %d of %d, a turn's worth", len(first), len(r.owned))
			}
		}
		for _, e := range r.seen[f] {
			seen[e] = true
		}
		if len(seen) == len(r.owned) {
			return first
		}
	}
	r.t.Fatalf("after a loss, %d of the army's %d came in %d sends", len(seen), len(r.owned), sends)
	return nil
}

// newestOnly is an AuthHandler that takes, as predict does, no state of a
// frame older than the newest it took, keeping what it took by frame.
type newestOnly struct {
	newest ecs.Frame
	took   authFrames
}

func (p *newestOnly) AuthState(f ecs.Frame, e arche.Entity, _ State) {
	if f < p.newest {
		return
	}
	p.newest = f
	p.took[f] = append(p.took[f], e)
}

// A unit the host changed once goes in every AuthState until one built
// after the change is acknowledged: when the AuthState that first carried
// it arrives after the next one, a client that takes only the newest
// (predict) still has the change from that next one.
func TestReorderedAuthStatesKeepAChange(t *testing.T) {
	const n = 200
	r := newOwnRig(t, n, HostConfig{})
	took := &newestOnly{took: authFrames{}}
	r.c.cfg.Auth = took
	r.frame = 1000
	for range 20 {
		r.step(false)
	}
	moved := r.latest()
	r.move(moved, 50)
	r.frame++
	r.h.Peer(1).SetInputFrame(r.frame)
	r.s.Step()
	var held []int // the first AuthState with the change, held back
	for _, i := range r.next() {
		if wire.Kind(r.out.msgs[i][0]) == wire.KindAuthState {
			held = append(held, i)
			continue
		}
		r.deliver(i)
	}
	f2 := r.step(false) // overtakes it
	for _, i := range held {
		r.deliver(i)
	}
	if !slices.Contains(took.took[f2], r.clientOf(moved)) {
		t.Fatalf("the AuthState that overtook the change's does not carry the changed unit: %d states", len(took.took[f2]))
	}
}

// An entity the owner gains (a shot, a unit made) goes in its AuthStates
// until acknowledged, and does not make the rest of the army go again.
func TestOwnedSpawnsLeaveTheArmyInTurn(t *testing.T) {
	const n = 200
	r := settledArmy(t, n)
	total := 0
	var shots []arche.Entity
	const sends = 32
	for range sends {
		shot := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
		shots = append(shots, shot)
		if len(shots) > 4 { // a shot lives four sends
			r.w.Arche().RemoveEntity(shots[0])
			shots = shots[1:]
		}
		f := r.step(false)
		if !slices.Contains(r.seen[f], r.clientOf(shot)) {
			t.Fatalf("frame %d: the shot made this step is not in its owner's AuthState", f)
		}
		total += len(r.seen[f])
	}
	if avg := float64(total) / sends; avg > 2*float64(n)/float64(r.h.cfg.OwnRefresh) {
		t.Fatalf("an idle army and a shot a send: %.1f states an AuthState, want about %d", avg, n/r.h.cfg.OwnRefresh+4)
	}
}

// An entity that becomes the peer's goes in its AuthStates from the next
// one until acknowledged, not in its turn.
func TestAGivenEntityGoesAtOnce(t *testing.T) {
	const n = 200
	r := newOwnRig(t, n, HostConfig{})
	r.frame = 1000
	gift := r.m.NewWith(&ecs.Transform{X: 7}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 2})
	for range 20 {
		r.step(false)
	}
	ecs.SetOwner(r.w, gift, 1)
	for i := range 3 {
		if f := r.step(false); slices.Contains(r.seen[f], r.clientOf(gift)) {
			return
		} else if i == 2 {
			t.Fatalf("the entity given to the peer is not in its AuthStates after 3 sends")
		}
	}
}

// An owner of a walking army (every unit changed every tick, so due in
// every AuthState) is sent of it what its share of the budget holds, each
// unit in turn, the longest unsent first: before, the army went whole at
// every send (2.2 KB a send here, four times the budget's 533 bytes, 1
// Mbit/s at 60 sends a second), whatever the budget. Its AuthStates take
// what the State leaves of the budget, and at least half a send's worth.
func TestAWalkingArmyKeepsToTheBudget(t *testing.T) {
	for _, tc := range []struct {
		others int
		most   float64 // State and AuthState a send, in budgets
	}{{100, 1.1}, {1000, 1.6}} {
		t.Run(fmt.Sprintf("others-%d", tc.others), func(t *testing.T) {
			const n = 200
			r := newOwnRig(t, n, HostConfig{})
			var rest []arche.Entity
			for i := range tc.others {
				rest = append(rest, r.m.NewWith(&ecs.Transform{Y: float64(i % 40)}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
			}
			r.settle()
			r.frame = 1000
			tick := 0
			walk := func() {
				tick++
				for _, e := range r.owned {
					r.move(e, 0.1)
				}
				for i, e := range rest {
					r.move(e, float64((tick+i)%7)*0.05) // no Velocity says this
				}
			}
			for range 30 {
				walk()
				r.step(false)
			}
			budget := float64(r.h.cfg.BitsPerSecond) / 8 * float64(r.h.cfg.SendEvery) / r.h.cfg.StepRate // bytes a send
			from := len(r.out.msgs)
			last := map[arche.Entity]int{}
			for _, e := range r.owned {
				last[r.clientOf(e)] = -1
			}
			gap := 0
			const sends = 120
			for i := range sends {
				walk()
				f := r.step(false)
				for _, e := range r.seen[f] {
					gap = max(gap, i-last[e]-1)
					last[e] = i
				}
			}
			for _, i := range last {
				gap = max(gap, sends-1-i)
			}
			var state, auth float64
			for _, m := range r.out.msgs[from:] {
				cost := float64(len(m) + wire.MessageOverhead(len(m)) + r.h.cfg.DatagramOverhead)
				switch wire.Kind(m[0]) {
				case wire.KindState:
					state += cost / sends
				case wire.KindAuthState:
					auth += cost / sends
				}
			}
			t.Logf("a send: State %.0f bytes, AuthState %.0f, budget %.0f; a unit waited %d sends at most", state, auth, budget, gap)
			if state+auth > tc.most*budget {
				t.Errorf("State %.0f and AuthState %.0f bytes a send: more than %.1f budgets of %.0f", state, auth, tc.most, budget)
			}
			if gap > 10 {
				t.Errorf("an owned unit went %d sends without an AuthState", gap)
			}
		})
	}
}

// An owner of 200 whose 150 walking units fill its share is still sent the
// 50 standing ones in their turns: a unit's key is when it last went, the
// changed a refresh ahead of the unchanged, so none waits for ever (they
// sorted behind every changed one, and never went).
func TestStandingUnitsGoBesideAWalkingArmy(t *testing.T) {
	if missing, sends := unitsBesideWalkers(t, 0); missing > 0 {
		t.Fatalf("%d of 50 standing units went in none of %d AuthStates", missing, sends)
	}
}

// Units the host moved once while a walking army fills the share reach
// their owner: a change not yet sent keeps a unit due after an AuthState
// built after it is acknowledged (it was then taken as unchanged, behind
// every walker, and the client never heard of the move).
func TestAChangeLeftByTheShareStillGoes(t *testing.T) {
	if missing, sends := unitsBesideWalkers(t, 5); missing > 0 {
		t.Fatalf("%d of 50 units the host moved once never reached their owner in %d AuthStates", missing, sends)
	}
}

// unitsBesideWalkers runs an owner of 200 units, 150 walking every step and
// 50 standing (moved once by push, if not 0, as the walk begins), and
// returns how many of the 50 went in none of the sends AuthStates after.
func unitsBesideWalkers(t *testing.T, push float64) (missing, sends int) {
	r := newOwnRig(t, 200, HostConfig{})
	r.frame = 1000
	walkers, standing := r.owned[:150], r.owned[150:]
	walk := func() ecs.Frame {
		for _, e := range walkers {
			r.move(e, 0.1)
		}
		return r.step(false)
	}
	for range 20 {
		walk()
	}
	if push != 0 {
		for _, e := range standing {
			r.move(e, push)
		}
	}
	got := map[arche.Entity]bool{}
	sends = 64
	for range sends {
		for _, e := range r.seen[walk()] {
			got[e] = true
		}
	}
	for _, e := range standing {
		if !got[r.clientOf(e)] {
			missing++
		}
	}
	return missing, sends
}

// After a lost AuthState an owner of many is sent its whole army over as
// many AuthStates as the share needs, with or without newer input frames:
// what the share left out makes the next send tick send again (with the
// input stalled, the catch-up stopped after 122 of 200).
func TestTheCatchUpGoesOnWithoutNewInput(t *testing.T) {
	const n = 200
	r := newOwnRig(t, n, HostConfig{})
	r.frame = 1000
	for range 10 {
		r.step(false)
	}
	r.step(true) // lost
	got := map[arche.Entity]bool{}
	for i := range 30 {
		if i == 0 {
			r.frame++
			r.h.Peer(1).SetInputFrame(r.frame) // one newer input, then none
		}
		r.s.Step()
		for _, j := range r.next() {
			r.deliver(j)
		}
		for _, e := range r.seen[r.frame] {
			got[e] = true
		}
	}
	if len(got) != n {
		t.Fatalf("after a lost AuthState, input stalled: %d of %d owned entities sent in 30 steps (AuthMessages %d, deferred %d)", len(got), n, r.h.Peer(1).stats.AuthMessages, r.h.Peer(1).stats.AuthDeferred)
	}
}

// An idle army whose owner's input stalls after a lost AuthState is sent
// its catch-up and then nothing: over a round trip longer than a send tick
// the catch-up went beside an AuthState of the same frame still in flight,
// whose settling made the next one whole again, cut short by the share
// again, and so on (75 AuthStates in 100 steps of a still army).
func TestAStalledOwnerIsNotSentForEver(t *testing.T) {
	const n = 200
	r := newOwnRig(t, n, HostConfig{})
	r.frame = 1000
	for range 10 {
		r.step(false)
	}
	r.step(true) // lost: the next is whole, cut short by the share
	var held []int
	auths := 0
	seen := map[arche.Entity]bool{}
	for i := range 200 {
		r.s.Step()
		for _, j := range held { // each settles a step late
			r.deliver(j)
		}
		held = held[:0]
		for _, j := range r.next() {
			if wire.Kind(r.out.msgs[j][0]) == wire.KindAuthState {
				if i >= 100 {
					auths++
				}
				held = append(held, j)
				continue
			}
			r.deliver(j)
		}
		for _, e := range r.seen[r.frame] {
			seen[e] = true
		}
	}
	if auths > 0 || len(seen) != n {
		t.Fatalf("input stalled, nothing changed: %d AuthStates in steps 100 to 199 (%d deferred); %d of %d units caught up", auths, r.h.Peer(1).stats.AuthDeferred, len(seen), n)
	}
}

// An idle army whose owner's input skips one send tick in four is sent
// n/OwnRefresh of its units an AuthState, each once in its turn: a unit's
// age counts AuthStates built, as its turn does (counted in frames, it
// drifted from the turns at each skipped send, and a unit went twice: 50
// an AuthState where 25 were due).
func TestAnIdleArmyWithJitteryInputTakesTurns(t *testing.T) {
	const n = 200
	r := settledArmy(t, n)
	total, builds := 0, 0
	for i := range 400 {
		if i%4 != 3 {
			r.frame++
			r.h.Peer(1).SetInputFrame(r.frame)
		}
		r.s.Step()
		for _, j := range r.next() {
			r.deliver(j)
		}
		if i%4 != 3 {
			total += len(r.seen[r.frame])
			builds++
		}
	}
	want := n / r.h.cfg.OwnRefresh
	if avg := float64(total) / float64(builds); avg > 1.2*float64(want) {
		t.Fatalf("an idle army with one input in four missing: %.1f states an AuthState, want about %d", avg, want)
	}
}

// settledArmy is an ownRig whose peer owns n entities standing still, its
// input frames from 1000 on, after 20 sends delivered.
func settledArmy(t *testing.T, n int) *ownRig {
	r := newOwnRig(t, n, HostConfig{})
	r.frame = 1000
	for range 20 {
		r.step(false)
	}
	return r
}

// An army the host marks HostMoved (its owner draws it from states, and
// predicts none of it) takes no turns: standing still, its owner's
// AuthStates carry one unit (the newest input frame must go in something),
// not an eighth of the army; a unit the host moves goes in the owner's
// next State, coded as another's entity is, and in no AuthState.
func TestAHostMovedArmyTakesNoTurns(t *testing.T) {
	const n, sends = 40, 32
	r := newOwnRig(t, n, HostConfig{})
	for _, e := range r.owned {
		r.w.Arche().Add(e, r.w.IDs.HostMoved)
		ni, _ := r.w.Identity(e)
		ce, _ := r.c.w.EntityOf(ni.ID)
		r.c.w.Arche().Add(ce, r.c.w.IDs.HostMoved)
	}
	r.frame = r.w.Frame() // the owner's input frames are the host's
	p := r.h.Peer(1)
	for range sends {
		before := p.Stats().AuthItems
		if r.step(false); p.Stats().AuthItems-before != 1 {
			t.Fatalf("an idle marked army: an AuthState carried %d units, want 1", p.Stats().AuthItems-before)
		}
	}
	unit := r.owned[7]
	ni, _ := r.w.Identity(unit)
	ce, _ := r.c.w.EntityOf(ni.ID)
	updates := r.c.Stats().Updates
	for i := range 3 {
		r.move(unit, 5)
		before := p.Stats().AuthItems
		if r.step(false); p.Stats().AuthItems-before != 1 {
			t.Fatalf("move %d: the AuthState carried %d units, want the one that goes in any", i, p.Stats().AuthItems-before)
		}
		if got, want := ecs.Get[ecs.Transform](r.c.w, ce).X, r.tf.Get(unit).X; got != want {
			t.Fatalf("move %d: its owner holds the unit at x = %v, the host at %v", i, got, want)
		}
	}
	if got := r.c.Stats().Updates - updates; got != 3 {
		t.Fatalf("the owner took %d updates of its unit in its States, want 3", got)
	}
	if r.c.Stats().MarkedByHost != 0 || r.c.HostMovedFrame() != ecs.Frame(r.h.frame) {
		t.Fatalf("%d units marked by the host's States, the newest state of its HostMoved units of frame %d (host %d)", r.c.Stats().MarkedByHost, r.c.HostMovedFrame(), r.h.frame)
	}
}

// A client that predicts a unit its host marks HostMoved (a game that
// marks it on one side only) gets the unit's changes in States all the
// same: the first marks it HostMoved on the client too, counted, and the
// client holds the unit where the host has it, drawn from its states.
func TestAUnitTheHostMarksIsMarkedByItsStates(t *testing.T) {
	r := newOwnRig(t, 40, HostConfig{})
	unit := r.owned[7]
	r.w.Arche().Add(unit, r.w.IDs.HostMoved)
	ni, _ := r.w.Identity(unit)
	ce, _ := r.c.w.EntityOf(ni.ID)
	r.frame = r.w.Frame()
	for range 4 {
		r.step(false)
	}
	for range 3 {
		r.move(unit, 5)
		r.step(false)
	}
	if got, want := ecs.Get[ecs.Transform](r.c.w, ce).X, r.tf.Get(unit).X; r.c.Stats().MarkedByHost != 1 || !r.c.w.Arche().Has(ce, r.c.w.IDs.HostMoved) || got != want {
		t.Fatalf("%d units marked by the host's States (want 1), the unit marked: %v; its owner holds it at x = %v, the host at %v",
			r.c.Stats().MarkedByHost, r.c.w.Arche().Has(ce, r.c.w.IDs.HostMoved), got, want)
	}
}

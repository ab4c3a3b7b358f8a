package replicate

import (
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
// the next carries the whole army. An owner of a few entities gets them
// all every time.
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
	if f := r.step(false); len(r.seen[f]) != n {
		t.Fatalf("after a lost AuthState the next carries %d of the army's %d", len(r.seen[f]), n)
	}

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

package session

import (
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// leave closes c and steps until the host has let its peer go.
func (wd *world) leave(c *testClient) {
	wd.t.Helper()
	peer := c.cl.Peer()
	c.cl.Close()
	for i := 0; wd.host.connected(peer) || wd.host.known(peer) != nil; i++ {
		if i > 60 {
			wd.t.Fatalf("the host still holds peer %d a second after it left", peer)
		}
		wd.step()
	}
	for i, x := range wd.clients {
		if x == c {
			wd.clients = append(wd.clients[:i], wd.clients[i+1:]...)
			break
		}
	}
}

// A new peer gets the id free the longest: the ids never given come first,
// in increasing order, then those of the peers that left, in the order they
// left.
func TestPeerIDsFreeLongestFirst(t *testing.T) {
	wd := newWorld(t, condition.Config{}, HostConfig{})
	wd.host.ids.top = 4 // an id space of four, to see it run out
	peers := func(cs ...*testClient) []ecs.PeerID {
		var ids []ecs.PeerID
		for _, c := range cs {
			ids = append(ids, c.cl.Peer())
		}
		return ids
	}
	a, b, c := wd.join("a"), wd.join("b"), wd.join("c")
	if got := peers(a, b, c); got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("the first three peers are %v, want 1 2 3", got)
	}
	wd.leave(b)
	wd.leave(a)
	d := wd.join("d")
	if d.cl.Peer() != 4 {
		t.Fatalf("after 2 then 1 left, the next peer is %d; want 4, never given", d.cl.Peer())
	}
	e, f := wd.join("e"), wd.join("f")
	if got := peers(e, f); got[0] != 2 || got[1] != 1 {
		t.Fatalf("with every id given once, the next peers are %v; want 2 then 1, in the order their peers left", got)
	}
	wd.leave(c)
	wd.leave(f)
	wd.leave(e)
	if got := peers(wd.join("g"), wd.join("h"), wd.join("i")); got[0] != 3 || got[1] != 1 || got[2] != 2 {
		t.Fatalf("after 3, 1 and 2 left, the next peers are %v; want 3 1 2", got)
	}
	if st := wd.host.Stats(); st.Rejected != 0 {
		t.Fatalf("host stats %+v: nobody should be refused", st)
	}
}

// A peer id a Welcome offered to a connection that closed without taking
// it is free again, and waits its turn as a left peer's does: the client
// read it.
func TestAnOfferedPeerIDWaitsItsTurn(t *testing.T) {
	wd := newWorld(t, condition.Config{}, HostConfig{})
	wd.host.ids.top = 3
	raw := wd.dialRaw("offered", wire.Version)
	for i := 0; raw.welcome.PeerID == 0; i++ {
		if i > 60 {
			t.Fatal("no Welcome came")
		}
		wd.step()
		raw.read()
	}
	offered := ecs.PeerID(raw.welcome.PeerID)
	raw.tc.Close(transport.CloseNormal, "not taken")
	for wd.host.connected(offered) {
		wd.step()
	}
	x, y := wd.join("x"), wd.join("y")
	if x.cl.Peer() == offered || y.cl.Peer() == offered {
		t.Fatalf("x is peer %d, y %d: the id offered to the connection that closed (%d) came back before those never given", x.cl.Peer(), y.cl.Peer(), offered)
	}
	wd.leave(x)
	if z := wd.join("z"); z.cl.Peer() != offered {
		t.Fatalf("z is peer %d; want %d, offered and free longer than x's", z.cl.Peer(), offered)
	}
}

// An away peer's id is held for it while it may resume: a newcomer gets
// another, and the peer resumes as itself. Once its window runs out it is
// free, and waits behind the ids never given: the player who comes back
// after the window, joining afresh, is a new peer with a new id.
func TestAnAwayPeersIDIsHeldThenWaitsItsTurn(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{Grace: 2 * time.Second})
		a := r.join("a")
		b := r.join("b")
		away := a.cl.Peer()
		a.setBlock(true)
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		for r.hostCount(PeerDisconnected, away) == 0 {
			r.step()
		}
		b.cl.Close()
		for r.hostCount(PeerLeft, b.cl.Peer()) == 0 {
			r.step()
		}
		c := r.join("c")
		if c.cl.Peer() == away || c.cl.Peer() == b.cl.Peer() {
			t.Fatalf("c is peer %d: a (%d) may resume, b (%d) just left", c.cl.Peer(), away, b.cl.Peer())
		}
		r.steps(3 * time.Second) // past the host's window, within the client's
		var left error
		for _, e := range r.events {
			if e.Kind == PeerLeft && e.Peer == away {
				left = e.Err
			}
		}
		if !errors.Is(left, ErrGraceExpired) {
			t.Fatalf("a's peer left with %v, want ErrGraceExpired", left)
		}
		a.setBlock(false)
		for i := 0; a.cl.State() != Playing; i++ {
			if i > 10*60 {
				t.Fatalf("a did not join afresh: %v, %v", a.cl.State(), a.cl.Err())
			}
			r.step()
		}
		if a.cl.Resumes() != 0 || a.cl.Peer() == away || a.cl.Peer() == b.cl.Peer() || a.cl.Peer() == c.cl.Peer() {
			t.Fatalf("a joined afresh as peer %d after %d resumes; it was %d, b %d, c %d: want a new id", a.cl.Peer(), a.cl.Resumes(), away, b.cl.Peer(), c.cl.Peer())
		}
	})
}

// idsInUse is a peerIDs as a host uses it: an id take gives is held until
// free lets it go; now is the host's clock.
type idsInUse struct {
	s    peerIDs
	held map[ecs.PeerID]bool
	now  time.Time
}

func newIDsInUse(top ecs.PeerID) *idsInUse {
	return &idsInUse{s: peerIDs{top: top}, held: map[ecs.PeerID]bool{}, now: time.Unix(1000, 0)}
}

func (u *idsInUse) holds(id ecs.PeerID) bool { return u.held[id] }

// take gives an id and holds it (0: none free).
func (u *idsInUse) take() ecs.PeerID {
	id := u.s.take(u.holds, u.now)
	if id != 0 {
		u.held[id] = true
	}
	return id
}

// free lets id go.
func (u *idsInUse) free(id ecs.PeerID) {
	delete(u.held, id)
	u.s.release(id, u.holds, u.now)
}

// Ids RestorePeers reserves are not given while held, and once free wait
// their turn behind the ids never given, as any id given before.
func TestRestoredPeerIDsWaitTheirTurn(t *testing.T) {
	u := newIDsInUse(6) // the space runs out: age does not matter
	for _, id := range []ecs.PeerID{2, 5} {
		u.s.claim(id)
		u.held[id] = true
	}
	free := func(id ecs.PeerID) {
		u.free(id)
		u.s.release(id, u.holds, u.now) // twice is once
	}
	if a, b := u.take(), u.take(); a != 1 || b != 3 {
		t.Fatalf("with 2 and 5 restored, the first ids are %d %d; want 1 3", a, b)
	}
	free(5)
	free(1)
	if got := []ecs.PeerID{u.take(), u.take(), u.take(), u.take()}; got[0] != 4 || got[1] != 6 || got[2] != 5 || got[3] != 1 {
		t.Fatalf("after 5 then 1 were freed, the ids are %v; want 4 6 5 1", got)
	}
	if id := u.take(); id != 0 {
		t.Fatalf("every id held, take gave %d; want 0", id)
	}
	free(3)
	u.s.claim(3) // restored again while it waits
	u.held[3] = true
	if id := u.take(); id != 0 {
		t.Fatalf("every id held again, take gave %d; want 0", id)
	}
	free(3)
	if id := u.take(); id != 3 {
		t.Fatalf("take gave %d; want 3, free again", id)
	}
}

// Ids given before come back, free the longest first, once more than
// reuseAfter of them are free, before any id never given: a host whose
// players come and go keeps its ids small, and a freed id is given again
// only after reuseAfter others.
func TestPeerIDsStaySmall(t *testing.T) {
	u := newIDsInUse(0)
	// Eight players at once, each leaving as the next joins, a thousand
	// times over.
	var playing []ecs.PeerID
	var top ecs.PeerID
	freed := map[ecs.PeerID]int{} // by id: the join it was freed at
	for i := range 1000 {
		u.now = u.now.Add(5 * time.Second) // a join every 5 s: a minute is 12 joins
		if len(playing) == 8 {
			u.free(playing[0])
			freed[playing[0]] = i
			playing = playing[1:]
		}
		id := u.take()
		if at, ok := freed[id]; ok && i-at < reuseAfter {
			t.Fatalf("join %d got id %d, freed at join %d: back too soon", i, id, at)
		}
		playing = append(playing, id)
		top = max(top, id)
	}
	if limit := ecs.PeerID(8 + reuseAfter + 1); top > limit {
		t.Fatalf("the highest id given was %d; want at most %d (8 held, %d free before reuse)", top, limit, reuseAfter)
	}
	if top <= 8 {
		t.Fatalf("the highest id given was %d: ids were reused at once", top)
	}
}

// Many peers leaving at once (a round's end, a kick of many) free more than
// reuseAfter ids in one go: still, none of them is given to the next
// newcomers until reuseAfter ids were given after it was freed, as the
// docs promise (ecs.PeerID, tandem.Peer, PROTOCOL.md): the first newcomer
// does not get the id of one who left in the same step.
func TestManyLeavingAtOnceDoNotHandTheirIDsOn(t *testing.T) {
	u := newIDsInUse(0)
	var playing []ecs.PeerID
	left := map[ecs.PeerID]bool{}
	for range 40 {
		id := u.take()
		playing = append(playing, id)
		left[id] = true
	}
	for _, id := range playing {
		u.free(id)
	}
	u.now = u.now.Add(reuseAge) // long enough: only the count holds them back
	for i := range reuseAfter {
		if id := u.take(); left[id] {
			t.Fatalf("newcomer %d after 40 left at once got %d, one of theirs: back after %d ids given, want %d", i+1, id, i, reuseAfter)
		}
	}
	if id := u.take(); id != playing[0] {
		t.Fatalf("after %d newcomers the next got %d; want %d, free the longest", reuseAfter, id, playing[0])
	}
}

// Joins refused at once (the game's Join refusing a full match, again and
// again) take ids and free them in the same step: they do not bring a
// leaver's id back sooner; it waits a minute as well.
func TestRefusedJoinsDoNotHurryALeaversID(t *testing.T) {
	u := newIDsInUse(0)
	ann := u.take()
	u.free(ann) // ann leaves
	for i := range 100 {
		u.now = u.now.Add(100 * time.Millisecond)
		id := u.take()
		if id == ann {
			t.Fatalf("refused join %d, %v after ann left, got her id %d", i+1, 100*time.Millisecond*time.Duration(i+1), ann)
		}
		u.free(id) // refused
	}
	u.now = u.now.Add(reuseAge)
	if id := u.take(); id != ann {
		t.Fatalf("a minute later, after 100 refused joins, the next got %d; want ann's %d, free the longest", id, ann)
	}
}

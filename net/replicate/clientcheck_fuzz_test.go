package replicate

import (
	"errors"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// What FuzzClientDatagram and FuzzClientSequence hold the client replicator
// to, whatever a host sends it: each call's outcome is counted in its
// Stats as the call says, its errors are the package's kinds, and its
// world stays within ClientConfig's bounds with its network index whole.

// fuzzDatagram hands c a datagram message and checks the call: a kind
// replication does not take changes nothing; a State or AuthState of a
// joined client counts once (States or AuthStates), and as Malformed when
// refused, one of a joining client is held (MaxHeld at most, past it
// ErrHeldFull); a Backlog counts as Backlogs or as Malformed.
func fuzzDatagram(t *testing.T, c *ClientReplicator, kind wire.Kind, payload []byte) {
	t.Helper()
	before, joined, held := c.Stats(), c.Joined(), len(c.held)
	ok, err := c.HandleDatagram(kind, payload)
	after := c.Stats()
	refused := after.Malformed - before.Malformed
	switch kind {
	case wire.KindState, wire.KindAuthState:
		switch {
		case !ok:
			t.Fatalf("a %v was not taken", kind)
		case joined:
			checkErr(t, "a State or AuthState", err, ErrMalformed, ErrUnknownComponent, ErrNoBaseline, ErrTooManyEntities)
			if n := after.States + after.AuthStates - before.States - before.AuthStates; n != 1 {
				t.Fatalf("a %v counted as %d States and AuthStates", kind, n)
			}
			if refused != count(err != nil) {
				t.Fatalf("a %v returned %v and counted %d as Malformed", kind, err, refused)
			}
		case err != nil:
			checkErr(t, "a held State or AuthState", err, ErrHeldFull)
			if held != c.cfg.MaxHeld || len(c.held) != held || refused != 1 {
				t.Fatalf("ErrHeldFull with %d held of %d (now %d), %d counted as Malformed", held, c.cfg.MaxHeld, len(c.held), refused)
			}
		default:
			if len(c.held) != held+1 || after != before {
				t.Fatalf("a %v held: %d held, %d before; stats %+v, before %+v", kind, len(c.held), held, after, before)
			}
		}
	case wire.KindBacklog:
		checkErr(t, "a Backlog", err, ErrMalformed)
		if !ok || refused != count(err != nil) || after.Backlogs-before.Backlogs+refused != 1 {
			t.Fatalf("a Backlog: ok %v, %v; %d Backlogs, %d Malformed counted", ok, err, after.Backlogs-before.Backlogs, refused)
		}
	default:
		if ok || err != nil || after != before {
			t.Fatalf("a datagram of kind %v is not replication's: ok %v, %v, stats %+v, before %+v", kind, ok, err, after, before)
		}
	}
	if len(c.held) > c.cfg.MaxHeld {
		t.Fatalf("%d State held while joining, MaxHeld %d", len(c.held), c.cfg.MaxHeld)
	}
}

// fuzzLane hands c a join-lane message and checks the call: one not of a
// join (or not a message) changes nothing; a page or FINAL is queued and
// counted in JoinBytes, or refused (ErrMalformed after FINAL,
// ErrJoinQueueFull past MaxJoinQueue) and counted as Malformed.
func fuzzLane(t *testing.T, c *ClientReplicator, msg []byte) {
	t.Helper()
	k, kerr := wire.MessageKind(msg)
	before, waiting := c.Stats(), c.Waiting()
	ok, err := c.HandleLane(msg)
	after := c.Stats()
	if kerr != nil || k != wire.KindJoinPage && k != wire.KindJoinFinal {
		if ok || err != nil || after != before || c.Waiting() != waiting {
			t.Fatalf("a lane message of kind %v (%v) is not a join's: ok %v, %v", k, kerr, ok, err)
		}
		return
	}
	checkErr(t, "a join message", err, ErrMalformed, ErrJoinQueueFull)
	switch {
	case !ok:
		t.Fatalf("a %v was not taken", k)
	case err != nil:
		if after.Malformed-before.Malformed != 1 || c.Waiting() != waiting || after.JoinBytes != before.JoinBytes {
			t.Fatalf("a %v refused (%v): %d counted as Malformed, %d bytes waiting of %d", k, err, after.Malformed-before.Malformed, c.Waiting(), waiting)
		}
	default:
		if after.Malformed != before.Malformed || c.Waiting() != waiting+len(msg) || after.JoinBytes-before.JoinBytes != uint64(len(msg)) {
			t.Fatalf("a %v of %d bytes queued: %d Malformed, %d bytes waiting of %d, %d JoinBytes", k, len(msg), after.Malformed-before.Malformed, c.Waiting(), waiting, after.JoinBytes-before.JoinBytes)
		}
	}
	if c.Waiting() > c.cfg.MaxJoinQueue {
		t.Fatalf("%d bytes of join messages queued, MaxJoinQueue %d", c.Waiting(), c.cfg.MaxJoinQueue)
	}
}

// fuzzPump pumps c and checks the call: an error is counted as Malformed
// (so is each other message that failed), and a join it ends applied every
// State held while joining.
func fuzzPump(t *testing.T, c *ClientReplicator) {
	t.Helper()
	before, waiting, joined, held := c.Stats(), c.Waiting(), c.Joined(), len(c.held)
	err := c.Pump()
	after := c.Stats()
	checkErr(t, "a Pump", err, ErrMalformed, ErrUnknownComponent, ErrJoinIncomplete, ErrTooManyEntities)
	if errors.Is(err, ErrJoinIncomplete) {
		if _, ok := errors.AsType[*JoinIncompleteError](err); !ok {
			t.Fatalf("an incomplete join says %v, not a *JoinIncompleteError", err)
		}
	}
	if err != nil && after.Malformed == before.Malformed {
		t.Fatalf("a Pump returned %v and counted nothing as Malformed", err)
	}
	if c.Waiting() > waiting || waiting == 0 && (err != nil || after.Malformed != before.Malformed) {
		t.Fatalf("a Pump with %d bytes waiting left %d, returned %v", waiting, c.Waiting(), err)
	}
	if !joined && c.Joined() {
		if len(c.held) != 0 || after.States+after.AuthStates-before.States-before.AuthStates != uint64(held) {
			t.Fatalf("the join ended with %d State held: %d left, %d applied", held, len(c.held), after.States+after.AuthStates-before.States-before.AuthStates)
		}
	}
}

// checkErr fails unless err is nil or one of kinds (errors.Is).
func checkErr(t *testing.T, what string, err error, kinds ...error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, k := range kinds {
		if errors.Is(err, k) {
			return
		}
	}
	t.Fatalf("%s returned %q (%T), none of the errors it may return", what, err, err)
}

// seedClient returns a client of a world of its own that took the join
// messages seedJoin, applied: for a target's bounds, the seed world's size.
func seedClient(seedJoin [][]byte, cfg ClientConfig) *ClientReplicator {
	c := newTestClient(NewRegistry(ecs.NewWorld()), cfg)
	for _, m := range seedJoin {
		c.HandleLane(m)
	}
	for c.Waiting() > 0 {
		c.Pump()
	}
	return c
}

func count(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// checkClientWorld checks c's world: at most MaxEntities networked
// entities, as many as the Stats say it made and removed (the world was
// empty before c), each one found by its network id and slot, its identity
// as its NetworkIdentity says, listed among its owner's.
func checkClientWorld(t *testing.T, c *ClientReplicator) {
	t.Helper()
	w := c.w
	n := w.Networked()
	st := c.Stats()
	if n > c.cfg.MaxEntities {
		t.Fatalf("%d networked entities, MaxEntities %d", n, c.cfg.MaxEntities)
	}
	if uint64(n) != st.Spawns-st.Despawns {
		t.Fatalf("%d networked entities; Stats: %d made, %d removed", n, st.Spawns, st.Despawns)
	}
	owners := map[ecs.PeerID]int{}
	seen := 0
	q := generic.NewFilter1[ecs.NetworkIdentity]().Query(w.Arche())
	for q.Next() {
		e, ni := q.Entity(), *q.Get()
		seen++
		owners[ni.Owner]++
		byID, ok := w.EntityOf(ni.ID)
		id, idOK := w.Identity(e)
		slot, slotOK := w.NetSlot(e)
		bySlot, slotID, _ := w.SlotEntity(slot)
		if !ok || byID != e || !idOK || id != ni || !slotOK || bySlot != e || slotID != ni.ID {
			q.Close()
			t.Fatalf("entity %v (%+v): by id %v %v, identity %+v %v, slot %d %v holding %v id %d", e, ni, byID, ok, id, idOK, slot, slotOK, bySlot, slotID)
		}
	}
	if seen != n {
		t.Fatalf("%d entities with a NetworkIdentity, %d networked", seen, n)
	}
	for p, k := range owners {
		list := w.Owned(p)
		if len(list) != k {
			t.Fatalf("peer %d owns %d entities, its list %d", p, k, len(list))
		}
		for _, e := range list {
			if id, ok := w.Identity(e); !ok || id.Owner != p {
				t.Fatalf("peer %d's list holds %v, of %+v (%v)", p, e, id, ok)
			}
		}
	}
}

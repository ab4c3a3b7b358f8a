package tandem

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// joinTwo joins h's client to a world of entity 1, owned by the client
// (peer 1), and entity 2, the host's, each with every component and a
// body (testGame's Arrived).
func (h *hostileClient) joinTwo(t *testing.T) {
	t.Helper()
	seeds := hostileSeeds(h.client.reg)
	h.host.SendLane(transport.LaneJoin, seeds[0])
	h.host.SendLane(transport.LaneJoin, seeds[1])
	for range 3 {
		h.step()
	}
	if !h.client.Joined() || h.client.w.ECS.Networked() != 2 {
		t.Fatalf("not joined: %v", h.client.session.Err())
	}
}

// stepsPanic runs n steps and returns the panic of the first that panics.
func (h *hostileClient) stepsPanic(n int) (p any) {
	defer func() {
		if p = recover(); p != nil {
			p = fmt.Sprintf("%v\n%s", p, debug.Stack())
		}
	}()
	for range n {
		h.step()
	}
	return nil
}

// An AuthState item whose mask leaves out the Transform (PROTOCOL.md §9.4:
// a component the item leaves out is removed, the host's entity lost it)
// removes the Transform from the client's entity (replicate.matchAuth) and
// leaves its physics body attached: the next steps go on, where
// physics.Space.Update dereferenced the missing Transform and panicked.
// One AuthState of a few bytes, for the client's own entity or another.
func TestAnAuthStateStrippingABodysTransformIsSurvived(t *testing.T) {
	for _, id := range []byte{1, 2} {
		t.Run(fmt.Sprint("entity", id), func(t *testing.T) {
			h := newHostileClient(t)
			h.joinTwo(t)
			// AuthState of frame 101: entity id with Velocity alone.
			vel := uint64(1) << 1 // component 1: Velocity
			msg := wire.AppendUvarint([]byte{101, id}, vel<<2)
			msg = append(msg, 0, 0, 0)
			h.host.Queue(wire.KindAuthState, msg, 0)
			if p := h.stepsPanic(5); p != nil {
				t.Fatalf("an AuthState of entity %d without its Transform made the client panic: %v", id, p)
			}
		})
	}
}

// A State spawn of an entity the client holds, newer than its state, that
// carries no Transform (PROTOCOL.md §9.3: the client removes the
// registered components its mask leaves out) removes the remote entity's
// Transform (replicate dropAbsent) and leaves its physics body attached:
// the next steps go on, where physics.Space.Update panicked.
func TestASpawnStrippingABodysTransformIsSurvived(t *testing.T) {
	h := newHostileClient(t)
	h.joinTwo(t)
	reg := h.client.reg
	fields := 0
	for c := range replicate.Component(reg.Len()) {
		fields += reg.Fields(c)
	}
	var w wire.BitWriter
	w.Reset(wire.AppendUvarint(nil, 102))
	w.WriteExpGolomb(1, 0) // one item
	w.WriteBits(1, 7)      // stream 0 (id gaps): used, order 0
	for range 1 + 2*fields {
		w.WriteBits(0, 1) // the others: not used
	}
	w.WriteBits(0, uint(reg.Len())) // common mask
	w.WriteBits(1, 1)               // common base: the newest image
	w.WriteExpGolomb(1, 0)          // id gap 1: entity 2
	w.WriteBits(0b010, 3)           // a spawn
	w.WriteExpGolomb(0, 0)          // owner: the host
	w.WriteBits(0, uint(reg.Len())) // mask: no component
	w.WriteBits(0, 1)               // no snap
	h.host.Queue(wire.KindState, w.Finish(), 0)
	if p := h.stepsPanic(5); p != nil {
		t.Fatalf("a spawn of entity 2 without its Transform made the client panic: %v", p)
	}
	if e, ok := h.client.w.ECS.EntityOf(2); !ok || h.client.w.ECS.Arche().Has(e, h.client.w.ECS.IDs.Transform) {
		t.Fatalf("entity 2 held %v, its Transform kept: the spawn was not applied, and the test tests nothing", ok)
	}
}

// A join page (or a spawn) of an entity without Transform or Velocity runs
// the game's Arrived hook, and the package's own pattern for it
// (example_test.go, rest_test.go: w.Physics.AttachCircle in Arrived,
// unconditionally) panics in physics.Space.Attach ("lacks ecs.Transform or
// ecs.Velocity"): the client recovers, and the session ends with
// ErrHostData, where a game written as the example shows crashed on a page
// of a few bytes.
func TestAnArrivedPanicOnWhatTheHostSentEndsTheSession(t *testing.T) {
	h := newHostileClient(t)
	h.client.g.Arrived = testGame().Arrived // the documented pattern
	fields := h.client.reg.Fields(1)
	page := []byte{byte(wire.KindJoinPage), 100, 1, 0, 1}
	page = wire.AppendUvarint(page, 1|(1<<1)<<2) // a spawn of Velocity alone
	page = append(page, 0)                       // owner: the host
	for range fields {
		page = append(page, 0)
	}
	h.host.SendLane(transport.LaneJoin, page)
	if p := h.stepsPanic(3); p != nil {
		t.Fatalf("a join page of an entity without Transform made the client panic: %v", p)
	}
	if err := h.client.Err(); !errors.Is(err, ErrHostData) || !strings.Contains(err.Error(), "Arrived hook panicked") {
		t.Fatalf("the session after the game's Arrived panicked: %v, want ErrHostData naming the hook", err)
	}
}

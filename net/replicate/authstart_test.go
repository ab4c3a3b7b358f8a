package replicate

import (
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A peer that starts (a resume, a join into a world where its army stands
// already, a restore) has acknowledged no AuthState: every owned entity
// changed after the newest it acknowledged (none), so each goes in every
// AuthState until one is acknowledged (ownRefresh's rule, and
// HostConfig.OwnRefresh: "goes in every AuthState until the peer
// acknowledges one built after that"). The first is full; when it is
// overtaken by the second, a client that takes only the newest (predict)
// has of its army only what the second carried: the full one notes what
// is due until acknowledged (ownRefresh.recent), so the second carries the
// whole army too, not a turn's worth of it.
func TestAStartingPeersArmyGoesUntilAcknowledged(t *testing.T) {
	const n = 40
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	h := NewHost(reg, HostConfig{SendEvery: 1})
	s := ecs.NewSchedule(w, nil, 0)
	s.Add("replicate", h)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	for i := range n {
		m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	}
	for range 5 {
		s.Step() // the army stands in the host's world before the peer comes
	}
	creg := NewRegistry(ecs.NewWorld())
	took := &newestOnly{took: authFrames{}}
	c := newTestClient(creg, ClientConfig{Local: 1, Auth: took})
	out := &capture{}
	h.AddPeer(1, out)
	s.Step()
	for _, msg := range out.lane {
		if _, err := c.HandleLane(msg); err != nil {
			t.Fatal(err)
		}
	}
	for c.Waiting() > 0 { // each Pump applies what its slice of time holds
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if !c.Joined() {
		t.Fatal("the client did not join")
	}
	seen := 0
	step := func(f ecs.Frame) (auth, other []int) {
		h.Peer(1).SetInputFrame(f)
		s.Step()
		for ; seen < len(out.msgs); seen++ {
			if wire.Kind(out.msgs[seen][0]) == wire.KindAuthState {
				auth = append(auth, seen)
			} else {
				other = append(other, seen)
			}
		}
		return auth, other
	}
	deliver := func(i int) {
		msg := out.msgs[i]
		if _, err := c.HandleDatagram(wire.Kind(msg[0]), msg[1:]); err != nil {
			t.Fatal(err)
		}
		if out.tokens[i] != 0 {
			h.Delivered(1, out.tokens[i])
		}
	}
	first, other := step(1000) // the full one: held back
	for _, i := range other {
		deliver(i)
	}
	second, other := step(1001) // overtakes it
	for _, i := range other {
		deliver(i)
	}
	for _, i := range second {
		deliver(i)
	}
	for _, i := range first {
		deliver(i)
	}
	if len(first) == 0 || len(second) == 0 {
		t.Fatalf("AuthStates: %d of frame 1000, %d of 1001", len(first), len(second))
	}
	if got := len(took.took[1001]); got != n {
		t.Fatalf("the AuthState that overtook the starting peer's full one carries %d of its %d units, none of them acknowledged: the client that takes the newest has the rest from no AuthState", got, n)
	}
}

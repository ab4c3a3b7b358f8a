package replicate

import (
	"errors"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// authSeen is one AuthState an authRecorder was given.
type authSeen struct {
	x    int32     // the Transform's X image
	tele ecs.Frame // State.Teleport's frame
	ok   bool      // State.Teleport's ok
}

// authRecorder is an AuthHandler that keeps what it was given.
type authRecorder struct{ seen []authSeen }

func (a *authRecorder) AuthState(_ ecs.Frame, _ arche.Entity, s State) {
	f, ok := s.Teleport()
	var x int32
	if img := s.Image(0); img != nil {
		x = img[0]
	}
	a.seen = append(a.seen, authSeen{x: x, tele: f, ok: ok})
}

// TestAuthStateSaysTeleport: the owner's AuthStates say its entity's pose
// is of a teleport, with the teleport's host frame, from the teleport for
// snapWindow frames, and not before or after.
func TestAuthStateSaysTeleport(t *testing.T) {
	r := newRig(t, HostConfig{})
	rec := &authRecorder{}
	r.c.cfg.Auth = rec
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	r.move(e, 1)
	r.settle()
	if len(rec.seen) == 0 {
		t.Fatal("no AuthState reached the owner")
	}
	for _, s := range rec.seen {
		if s.ok {
			t.Fatalf("an AuthState before any teleport says %+v", s)
		}
	}
	rec.seen = nil
	r.tf.Get(e).X = 5000
	ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	ecs.ReportTeleport(r.w, e)
	r.s.Step()
	for _, i := range r.next() {
		r.deliver(i)
	}
	if len(rec.seen) != 1 || !rec.seen[0].ok || rec.seen[0].x != 5000*PositionScale {
		t.Fatalf("the teleport's AuthState: %+v, want x %d with a teleport", rec.seen, 5000*PositionScale)
	}
	tele := rec.seen[0].tele
	if tele == 0 || tele > r.w.Frame() {
		t.Fatalf("teleport at frame %d, the host is at %d", tele, r.w.Frame())
	}
	// Moves after it keep saying so, with the same frame, for snapWindow
	// frames, then stop.
	var said, after int
	for range snapWindow + 20 {
		r.move(e, 1)
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
		s := rec.seen[len(rec.seen)-1]
		switch {
		case s.ok && s.tele != tele:
			t.Fatalf("a later AuthState names the teleport of frame %d, want %d", s.tele, tele)
		case s.ok && after > 0:
			t.Fatal("an AuthState says teleport again after one that did not")
		case s.ok:
			said++
		default:
			after++
		}
	}
	if said < snapWindow-2 || after == 0 {
		t.Fatalf("%d AuthStates said the teleport, %d after did not; want about %d, then none", said, after, snapWindow)
	}
}

// TestAuthStateTeleportMalformed: a teleport flag on an item without a
// Transform, a teleport at frame 0 and an item flag this version does not
// know are malformed.
func TestAuthStateTeleportMalformed(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	id := uint64(mustID(r.w, e))
	item := func(flags, tele uint64, withTele bool) []byte {
		b := wire.AppendUvarint(nil, 10) // frame
		b = wire.AppendUvarint(b, id)
		b = wire.AppendUvarint(b, flags)
		if withTele {
			b = wire.AppendUvarint(b, tele)
		}
		for range 3 { // a Velocity image, if the mask says one
			b = wire.AppendUvarint(b, 0)
		}
		return b
	}
	velocityOnly := uint64(1<<1) << itemShift
	for name, msg := range map[string][]byte{
		"no Transform": item(velocityOnly|authTeleport, 7, true),
		"frame 0":      item(uint64(1)<<itemShift|authTeleport, 0, true),
		"unknown flag": item(uint64(1)<<itemShift|2, 0, false),
	} {
		if _, err := r.c.HandleDatagram(wire.KindAuthState, msg); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

// A teleport reported of an owned entity without a Transform is not said in
// its AuthStates (there is no pose to draw as a jump): the client takes
// them, none malformed.
func TestAuthStateTeleportWithoutTransform(t *testing.T) {
	r := newRig(t, HostConfig{})
	rec := &authRecorder{}
	r.c.cfg.Auth = rec
	m := generic.NewMap2[ecs.Velocity, ecs.NetworkIdentity](r.w.Arche())
	e := m.NewWith(&ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	ecs.Mutate[ecs.Velocity](r.w, e).X = 3
	ecs.ReportTeleport(r.w, e)
	r.settle() // the rig fails the test on a message the client refuses
	if st := r.c.Stats(); st.Malformed != 0 || len(rec.seen) == 0 {
		t.Fatalf("%d malformed messages, %d AuthStates taken", st.Malformed, len(rec.seen))
	}
	for _, s := range rec.seen {
		if s.ok {
			t.Fatalf("an AuthState says a teleport of an entity without a Transform: %+v", s)
		}
	}
}

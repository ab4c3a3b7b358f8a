package replicate

import (
	"math/rand/v2"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// auditScene is a scene of 300 moving entities (every write reported),
// one more entity without a Velocity, a host with the given audit and one
// client over a perfect link; the scene has played a second and stands
// still, the client in step.
type auditScene struct {
	*scene
	h     *HostReplicator
	c     *ClientReplicator
	cw    *ecs.World
	creg  *Registry
	l     *link
	bare  arche.Entity
	found []*UnreportedError
}

func newAuditScene(t *testing.T, audit int) *auditScene {
	t.Helper()
	s := &auditScene{scene: newScene(11, 300)}
	m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](s.w.Arche())
	s.bare = m.NewWith(&ecs.Transform{X: 5}, &ecs.NetworkIdentity{})
	s.h = NewHost(s.reg, HostConfig{Audit: audit, OnUnreported: func(e *UnreportedError) { c := *e; s.found = append(s.found, &c) }})
	s.sched = ecs.NewSchedule(s.w, nil, 0)
	s.sched.Add("scene", s.scene).Add("replicate", s.h)
	s.cw = ecs.NewWorld()
	s.creg = NewRegistry(s.cw)
	s.c = newTestClient(s.creg, ClientConfig{Local: 1})
	s.l = &link{rng: rand.New(rand.NewPCG(5, 6)), delay: 2, peer: 1}
	s.h.AddPeer(1, s.l)
	s.steps(t, 60)
	s.still = true
	s.steps(t, 30)
	if !s.c.Joined() {
		t.Fatal("client never joined")
	}
	checkImage(t, s.scene, s.cw, s.creg)
	return s
}

func (s *auditScene) steps(t *testing.T, n int) {
	t.Helper()
	for range n {
		s.sched.Step()
		s.l.step(t, s.h, s.c)
	}
}

// unreported writes five poses without reporting them, and adds a Velocity
// to the bare entity without a report.
func (s *auditScene) unreported() {
	for i := range 5 {
		s.tf.Get(s.live[i*50]).X += 7
	}
	s.w.Arche().Add(s.bare, s.w.IDs.Velocity)
}

// The audit finds every write and addition made without a report within a
// pass over the world, sends each (the client ends up holding the host's
// world), counts them and names each; it finds nothing while every write
// is reported. Without the audit the client keeps the old values.
func TestAuditSendsUnreportedWrites(t *testing.T) {
	s := newAuditScene(t, 0) // the default
	if n := s.h.Unreported(); n != 0 || len(s.found) != 0 {
		t.Fatalf("the audit found %d unreported writes among reported ones: %v", n, s.found)
	}
	s.unreported()
	// 301 slots at 4 a step, one look in four steps at a kind instead: a
	// pass takes 81 steps; then the link's delay.
	s.steps(t, 81+10)
	if n := s.h.Unreported(); n != 6 || len(s.found) != 6 {
		t.Fatalf("the audit found %d (%d passed on), want the 5 writes and the addition", n, len(s.found))
	}
	written, added := 0, 0
	for _, e := range s.found {
		switch {
		case !e.Audit:
			t.Fatalf("a finding not marked as the audit's: %v", e)
		case e.Component == "Transform" && !e.Added:
			written++
		case e.Component == "Velocity" && e.Added && e.Entity == s.bare:
			added++
		default:
			t.Fatalf("unexpected finding: %v", e)
		}
	}
	if written != 5 || added != 1 {
		t.Fatalf("found %d writes and %d additions, want 5 and 1", written, added)
	}
	checkImage(t, s.scene, s.cw, s.creg)
	s.steps(t, 160) // two more passes: each write found once
	if n := s.h.Unreported(); n != 6 {
		t.Fatalf("the audit counts %d after two more passes, want the same 6", n)
	}

	off := newAuditScene(t, -1)
	off.unreported()
	off.steps(t, 60)
	if n := off.h.Unreported(); n != 0 || len(off.found) != 0 {
		t.Fatalf("with no audit, %d found", n)
	}
	ident, _ := off.w.Identity(off.live[0])
	ce, ok := off.cw.EntityOf(ident.ID)
	if !ok {
		t.Fatalf("client lacks network id %d", ident.ID)
	}
	ctf := generic.NewMap[ecs.Transform](off.cw.Arche())
	if hx, cx := off.tf.Get(off.live[0]).X, ctf.Get(ce).X; hx == cx {
		t.Fatalf("without the audit the client has the unreported write too (x %v): the test shows nothing", cx)
	}
}

// The audit looks at as many entities a step as it is set to, whatever the
// world's size: its cost is flat. One every kindEvery steps is of the next
// of its kinds.
func TestAuditLooksAtItsShare(t *testing.T) {
	s := newAuditScene(t, 4)
	start := s.h.auditAt
	s.steps(t, 10)
	if len(s.h.kinds) == 0 {
		t.Fatal("the audit knows no kind of entity in a world of them")
	}
	// Of the 40 looks, those of the steps whose frame is a multiple of
	// kindEvery went to a kind.
	kinds := 0
	for f := s.h.frame - 9; f <= s.h.frame; f++ {
		if f%kindEvery == 0 {
			kinds++
		}
	}
	if got, want := (s.h.auditAt-start+len(s.h.ents))%len(s.h.ents), (40-kinds)%len(s.h.ents); got != want {
		t.Fatalf("the audit moved %d slots in 10 steps of 4, %d looks of them for a kind; want %d", got, kinds, want)
	}
}

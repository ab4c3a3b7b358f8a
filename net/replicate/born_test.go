package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// births is a client BirthObserver that keeps the frame each entity was
// told born at, and how often.
type births struct {
	frame map[arche.Entity]ecs.Frame
	told  map[arche.Entity]int
}

func (b *births) Applied(arche.Entity, ecs.Frame) {}
func (b *births) Removed(arche.Entity)            {}
func (b *births) Born(e arche.Entity, f ecs.Frame) {
	b.frame[e] = f
	b.told[e]++
}

// An entity the host makes in play reaches the client with the frame it
// was made in (BirthObserver.Born), once, however its spawn is delayed; its
// updates say nothing of the making (no snap head: the client counts no
// teleport), and a teleport later is still one.
func TestMadeEntityIsToldBorn(t *testing.T) {
	r := newRig(t, HostConfig{})
	b := &births{frame: map[arche.Entity]ecs.Frame{}, told: map[arche.Entity]int{}}
	r.c.cfg.Observer = b
	r.settle()
	now := r.w.Frame()
	shot := r.m.NewWith(&ecs.Transform{X: 5}, &ecs.Velocity{X: 600}, &ecs.NetworkIdentity{})
	r.s.Step()
	made := r.w.Frame() // the step that found it made
	late := r.next()    // its spawn: lost, sent again a few steps later
	for _, i := range late {
		r.lose(i)
	}
	for range 3 {
		r.move(shot, 10)
		r.s.Step()
		for _, i := range r.next() {
			r.lose(i)
		}
	}
	for range 30 {
		r.move(shot, 10)
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
	ce, ok := r.cw.EntityOf(mustID(r.w, shot))
	if !ok {
		t.Fatal("the client does not hold the shot")
	}
	if got := b.told[ce]; got != 1 {
		t.Fatalf("the shot was told born %d times, want once", got)
	}
	if got := b.frame[ce]; got != made || got <= now {
		t.Fatalf("the shot was told born at frame %d, want %d, the frame it was made in", got, made)
	}
	if st := r.c.Stats(); st.Snaps != 0 {
		t.Fatalf("the client counted %d teleports of a shot that only flew", st.Snaps)
	}
	ecs.ReportTeleport(r.w, shot)
	r.move(shot, 1000)
	r.settle()
	if st := r.c.Stats(); st.Snaps != 1 {
		t.Fatalf("a teleport of the shot counted %d snaps on the client, want 1", st.Snaps)
	}
	if got := b.told[ce]; got != 1 {
		t.Fatalf("the shot was told born %d times after a teleport, want once", got)
	}
}

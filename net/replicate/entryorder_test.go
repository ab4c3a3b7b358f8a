package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A focus moved onto a crowd of still props with a moving body among them
// (a camera cut, a jump across the world), more than the budget carries at
// once: the body, which moves, is sent at the first send tick, ahead of
// the props whatever its id; a prop the game's Priority favours goes ahead
// of the other props; and while the props keep coming, the body's changes
// reach the client ahead of them: a few send ticks late at most (they wait
// behind a prop's entry for a tick per three ticks it waited), where they
// waited for every prop before.
func TestEntriesMoversFirst(t *testing.T) {
	var favoured arche.Entity
	cfg := HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}, BitsPerSecond: 64_000}
	r := newRig(t, cfg)
	r.h.cfg.Priority = func(_ ecs.PeerID, e arche.Entity) float64 {
		if e == favoured {
			return 4
		}
		return 1
	}
	r.h.Focus(1, 0, 0)
	var props []arche.Entity
	for i := range 3000 {
		props = append(props, r.m.NewWith(&ecs.Transform{X: 10_000 + float64(i%300), Y: float64(i / 300)}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	favoured = props[len(props)-2]
	body := r.m.NewWith(&ecs.Transform{X: 10_150, Y: 5}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	if got := r.cw.Networked(); got != 0 {
		t.Fatalf("focused far from them, the client holds %d entities", got)
	}
	for range 30 { // the body moves a little every step
		r.move(body, 0.5)
		r.stepDeliver()
	}
	r.h.Focus(1, 10_150, 0)
	r.move(body, 0.5)
	r.stepDeliver()
	_, bodyIn := r.cw.EntityOf(mustID(r.w, body))
	_, favIn := r.cw.EntityOf(mustID(r.w, favoured))
	held := r.cw.Networked()
	if !bodyIn || !favIn || held >= len(props) {
		t.Fatalf("after the first send tick the client holds %d of %d: the moving body %v, the favoured prop %v; want both, and not every prop yet", held, len(props)+1, bodyIn, favIn)
	}
	for step := range 10 {
		r.move(body, 40) // far past what waits: urgent
		r.stepDeliver()
		ce, _ := r.cw.EntityOf(mustID(r.w, body))
		host := r.tf.Get(body).X
		got := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X
		if d := host - got; d > 3*40+1 || d < -1 {
			t.Fatalf("step %d of the props coming (%d of %d held): the client has the body at x=%.1f, the host at %.1f", step, r.cw.Networked(), len(props)+1, got, host)
		}
	}
	if r.cw.Networked() >= len(props) {
		t.Fatalf("the props all came within ten send ticks: the budget did not hold them back")
	}
}

// stepDeliver runs one step and delivers what it sent.
func (r *rig) stepDeliver() {
	r.s.Step()
	for _, i := range r.next() {
		r.deliver(i)
	}
}

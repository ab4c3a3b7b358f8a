package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A slow entity whose small changes the host defers (sent every fourth send,
// while another entity goes out every send) is drawn moving steadily along
// its path: never still between its states, never hurried to catch up, and
// extrapolated at its own speed while its next state is due.
func TestDeferredEntityMovesSteadily(t *testing.T) {
	r := newRig(t, Config{})
	busy := mover{vx: 100}
	slow := mover{x0: 50, vx: 15, vy: -3}
	a := r.spawn(ecs.HostPeer, true, busy.at(0))
	b := r.spawn(ecs.HostPeer, true, slow.at(0))
	l := link{latency: 50 * time.Millisecond}
	const hz = 144
	perFrame := slow.speed() / hz
	var prev ecs.Transform
	checked := 0
	r.play(l.sends(2, 900, 2), hz, 14*time.Second, func(f ecs.Frame) {
		r.apply(a, f, busy.at(f))
		if f%8 == 2 { // the host defers b's small changes for four sends
			r.apply(b, f, slow.at(f))
		}
	}, func(now time.Duration) {
		p := r.pose(b)
		if now > 2*time.Second {
			checked++
			rf := r.ip.RenderFrame()
			if want := ecs.Blend(slow.at(0), slow.at(1), rf); dist(p, want) > 1e-6 {
				t.Fatalf("at %v: drawn %v, the host had it at %v at frame %.2f (%+v)", now, p, want, rf, r.ip.Stats())
			}
			if d := dist(p, prev); d < perFrame*0.88 || d > perFrame*1.12 {
				t.Fatalf("at %v: moved %.4f in a frame, want %.4f ± 12%%", now, d, perFrame)
			}
		}
		prev = p
	})
	if checked < 10*hz {
		t.Fatalf("only %d frames checked", checked)
	}
}

// One tick's state split over two datagrams, one of them lost: the entity
// it carried is drawn straight from its state before to its state after,
// not held and then hurried.
func TestEntityMissingFromSplitTickIsNotHeld(t *testing.T) {
	r := newRig(t, Config{})
	ma := mover{vx: 100}
	mb := mover{vx: 300, vy: 60}
	a := r.spawn(ecs.HostPeer, true, ma.at(0))
	b := r.spawn(ecs.HostPeer, true, mb.at(0))
	l := link{latency: 50 * time.Millisecond}
	lost := map[ecs.Frame]bool{400: true, 520: true, 640: true}
	const hz = 144
	var prev ecs.Transform
	r.play(l.sends(2, 900, 2), hz, 14*time.Second, func(f ecs.Frame) {
		r.apply(a, f, ma.at(f))
		if !lost[f] { // the datagram with b's state of f was lost
			r.apply(b, f, mb.at(f))
		}
	}, func(now time.Duration) {
		p := r.pose(b)
		if now > 2*time.Second {
			rf := r.ip.RenderFrame()
			if want := ecs.Blend(mb.at(0), mb.at(1), rf); dist(p, want) > 1e-6 {
				t.Fatalf("at %v: drawn %v, the host had it at %v at frame %.2f", now, p, want, rf)
			}
			if d := dist(p, prev); d > mb.speed()/hz*1.12 {
				t.Fatalf("at %v (render frame %.2f): moved %.3f in a frame, limit %.3f", now, rf, d, mb.speed()/hz*1.12)
			}
		}
		prev = p
	})
}

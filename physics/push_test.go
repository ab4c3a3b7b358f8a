package physics_test

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/physics"
)

// A body that fell asleep against a wall has no push at a step that did
// not move it: the push its last move took is not this step's.
func TestPushOfABodyAsleepIsNone(t *testing.T) {
	r := newRig(t, physics.Config{SleepTime: 100 * time.Millisecond})
	_, disc := wallAndDisc(r, 70)
	r.s.Push(disc) // its steps keep their pushes from now on
	for range 30 {
		press(r, disc)
		r.tick()
	}
	if x, _, _ := r.s.Push(disc); x == 0 {
		t.Fatal("pressed against the wall, the disc has no push")
	}
	for i := 0; i < 120 && !r.s.BodyOf(disc).IsSleeping(); i++ {
		r.tick()
	}
	if !r.s.BodyOf(disc).IsSleeping() {
		t.Fatal("the disc did not fall asleep")
	}
	r.tick()
	if x, y, a := r.s.Push(disc); x != 0 || y != 0 || a != 0 {
		t.Errorf("asleep, the disc's push is (%v, %v, %v), want none", x, y, a)
	}
}

package tandem

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A long hold shows in the recent figure for one to two seconds, then
// only in the figure since the start; shorter ones after it show as they
// come.
func TestLongestLately(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		var m longest
		if m.lately() != 0 || m.get() != 0 {
			t.Fatal("nothing noted, yet a hold")
		}
		m.note(30 * time.Millisecond)
		m.note(2 * time.Millisecond)
		if m.lately() != 30*time.Millisecond {
			t.Fatalf("lately %v right after a 30 ms hold", m.lately())
		}
		time.Sleep(time.Second)
		m.note(3 * time.Millisecond)
		if m.lately() != 30*time.Millisecond {
			t.Fatalf("lately %v a second after a 30 ms hold", m.lately())
		}
		time.Sleep(time.Second)
		m.note(4 * time.Millisecond)
		if m.lately() != 4*time.Millisecond || m.get() != 30*time.Millisecond {
			t.Fatalf("two seconds after: lately %v, since the start %v; want 4 ms and 30 ms", m.lately(), m.get())
		}
		time.Sleep(time.Second)
		if m.lately() != 4*time.Millisecond {
			t.Fatalf("a second after a 4 ms hold and nothing since: lately %v", m.lately())
		}
		time.Sleep(time.Second)
		if m.lately() != 0 {
			t.Fatalf("two seconds after the last hold: lately %v", m.lately())
		}
	})
}

// A host's Stats give the longest hold of its world lately, as a client's
// NetStats do. (In a bubble, where the real clock the holds are timed on
// stands still: the steps' holds are 0, and one noted by hand is the
// longest.)
func TestHostStatsStepsLately(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newPair(t, testGame(), condition.Config{})
		p.run(time.Second)
		p.host.Do(func(*World) { p.host.steps.note(7 * time.Millisecond) })
		if st := p.host.Stats(); st.Steps != 7*time.Millisecond {
			t.Fatalf("after a hold of 7 ms the host's Stats say %v lately", st.Steps)
		}
		time.Sleep(3 * time.Second)
		p.run(time.Second / 10)
		if st := p.host.Stats(); st.Steps != 0 {
			t.Fatalf("three seconds after the 7 ms hold the host's Stats say %v lately", st.Steps)
		}
		if steps, _ := p.host.LockStats(); steps != 7*time.Millisecond {
			t.Fatalf("LockStats %v since the start, want the 7 ms hold", steps)
		}
	})
}

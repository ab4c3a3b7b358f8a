package interp

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
)

// countingClock is a fake clock that counts its readings.
type countingClock struct {
	*clock.Fake
	reads int
}

func (c *countingClock) Now() time.Time {
	c.reads++
	return c.Fake.Now()
}

// The states of one frame for many entities (a state, a join page) read
// the clock once, at the first: the others hear a frame already marked as
// the newest. The timeline still takes each new frame.
func TestTheNewestFrameHeardAgainDoesNotReadTheClock(t *testing.T) {
	r := newRig(t, Config{})
	clk := &countingClock{Fake: r.clk}
	r.ip = New(r.w, clk, Config{})
	const n = 1000
	m := mover{vx: 100}
	var es []arche.Entity
	for range n {
		es = append(es, r.spawn(ecs.HostPeer, true, m.at(0)))
	}
	for _, f := range []ecs.Frame{10, 12} {
		before := clk.reads
		for _, e := range es {
			r.apply(e, f, m.at(f))
		}
		if got := clk.reads - before; got > 2 {
			t.Errorf("frame %d for %d entities read the clock %d times", f, len(es), got)
		}
		if st := r.ip.Stats(); st.Newest != f {
			t.Errorf("after frame %d, the newest frame is %d", f, st.Newest)
		}
		clk.Advance(2 * step)
	}
}

package tandem

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
)

// Close's wait for the receipts to reach the players ends when nothing is
// left, when drainWait passed, when the clock stands still (a test's that
// nobody moves while Close runs), also after it moved once (it waited for
// a deadline the clock never reached: Close hung), and after drainLooks
// looks whatever the clock does.
func TestTheDrainEnds(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		left  int                           // what stays unsettled
		tick  func(c *clock.Fake, look int) // what the clock does at each sleep
		check func(t *testing.T, looks int, c *clock.Fake)
	}{
		{"nothing left", 0, func(*clock.Fake, int) {}, func(t *testing.T, looks int, _ *clock.Fake) {
			if looks != 1 {
				t.Fatalf("%d looks with nothing left", looks)
			}
		}},
		{"still clock", 1, func(*clock.Fake, int) {}, func(t *testing.T, looks int, _ *clock.Fake) {
			if looks != drainStill {
				t.Fatalf("%d looks at a still clock, want %d", looks, drainStill)
			}
		}},
		{"moved once, then still", 1, func(c *clock.Fake, look int) {
			if look == 10 {
				c.Advance(time.Millisecond)
			}
		}, func(t *testing.T, looks int, _ *clock.Fake) {
			if looks != 11+drainStill { // the 11th saw it move
				t.Fatalf("%d looks at a clock that moved once before the 11th, want %d", looks, 11+drainStill)
			}
		}},
		{"real time", 1, func(c *clock.Fake, _ int) { c.Advance(drainPoll) }, func(t *testing.T, looks int, c *clock.Fake) {
			if took := c.Now().Sub(start); looks != drainLooks || took != drainWait-drainPoll {
				t.Fatalf("%d looks over %v, want %d over %v", looks, took, drainLooks, drainWait-drainPoll)
			}
		}},
		{"slow clock", 1, func(c *clock.Fake, look int) {
			if look%100 == 0 {
				c.Advance(time.Microsecond)
			}
		}, func(t *testing.T, looks int, _ *clock.Fake) {
			if looks != drainLooks {
				t.Fatalf("%d looks at a clock slower than the sleeps, want %d", looks, drainLooks)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := clock.NewFake(start)
			look := 0
			looks := drainLoop(c, func() int { return tc.left }, func(time.Duration) {
				look++
				tc.tick(c, look)
			})
			tc.check(t, looks, c)
		})
	}
}

package netplay

import (
	"math"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A player who presses her disc into the left wall, sliding along it up and
// down into the corner of a goal, with another player chasing her into it,
// is never spun or thrown on her own client faster than anything the game
// does: the contacts' friction decides a rubbing disc's spin frame by frame,
// and each correction carried a difference of a past frame's spin into a
// present that had left it behind, a loop that grew each round trip (her
// disc spun at up to 1.5·10^23 radians a second, the host's at 12, and was
// thrown at up to 5.8·10^7 units a second, corrected by up to 1.9·10^6
// units at a time).
func TestADiscPressedIntoTheWallsIsNotSpunUp(t *testing.T) {
	for _, tc := range []struct {
		period float64 // frames of her slide's up-and-down, over 2π
		lat    time.Duration
	}{{20, 40 * time.Millisecond}, {40, 60 * time.Millisecond}, {80, 60 * time.Millisecond}} {
		link := condition.Config{Latency: tc.lat, Jitter: 10 * time.Millisecond, Loss: 0.05, Seed: 3}
		r := newRig(t, link, 0)
		var annID ecs.NetID
		ann := r.join("ann", func(w *tandem.World) game.Input {
			e, ok := tandem.Driven[game.Input](w, w.Peer)
			if !ok {
				return game.Input{}
			}
			y := game.Of(w).Pose(e).Y
			target := 200 + 80*math.Sin(float64(w.ECS.Frame())/tc.period)
			return game.Input{MoveX: -127, MoveY: axis((target - y) * 3)}
		})
		r.join("bob", func(w *tandem.World) game.Input {
			e, ok := tandem.Driven[game.Input](w, w.Peer)
			a, found := w.ECS.EntityOf(annID)
			if !ok || !found {
				return game.Input{}
			}
			p, q := game.Of(w).Pose(e), game.Of(w).Pose(a)
			d := math.Hypot(q.X-p.X, q.Y-p.Y) + 1e-9
			return game.Input{MoveX: axis(127 * (q.X - p.X) / d), MoveY: axis(127 * (q.Y - p.Y) / d)}
		})
		fastest, spin, hostSpin := 0.0, 0.0, 0.0
		r.run(40*time.Second, func(c *client, _ time.Time) {
			if c != ann {
				return
			}
			c.Do(func(w *tandem.World) {
				e, ok := c.Local()
				if !ok {
					return
				}
				id, _ := w.ECS.Identity(e)
				annID = id.ID
				vm := generic.NewMap[ecs.Velocity](w.ECS.Arche())
				v := vm.Get(e)
				fastest = max(fastest, math.Hypot(v.X, v.Y))
				spin = max(spin, math.Abs(v.Angular))
			})
			r.host.Do(func(w *tandem.World) {
				if e, ok := w.ECS.EntityOf(annID); ok {
					vm := generic.NewMap[ecs.Velocity](w.ECS.Arche())
					hostSpin = max(hostSpin, math.Abs(vm.Get(e).Angular))
				}
			})
		})
		st := ann.NetStats()
		t.Logf("slide of %v frames, %v each way: fastest %.0f units/s, spin %.1f rad/s (the host's %.1f), %d pose corrections, largest %.1f units",
			tc.period, tc.lat, fastest, spin, hostSpin, st.Predict.PoseCorrections, st.Corrections.Max)
		if annID == 0 || st.Predict.PoseCorrections == 0 {
			t.Fatalf("ann's disc %d, %d corrections: the test does not test what it says", annID, st.Predict.PoseCorrections)
		}
		if cfg := game.DefaultConfig(); fastest > 2*cfg.DashMaxSpeed || spin > 2*hostSpin+10 || st.Corrections.Max > 90 {
			t.Errorf("slide of %v frames, %v each way: ann's disc went at up to %.0f units/s (a dash: %.0f), spun at up to %.1f rad/s (the host's %.1f) and was corrected by up to %.1f units", tc.period, tc.lat, fastest, cfg.DashMaxSpeed, spin, hostSpin, st.Corrections.Max)
		}
	}
}

// axis is v as an input axis, clamped to its range.
func axis(v float64) int8 { return int8(max(-game.InputAxisMax, min(game.InputAxisMax, v))) }

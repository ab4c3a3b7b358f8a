package tandemtest_test

import (
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
)

// upUntilStopped moves the lift up at 30 units a second while its Phase
// is 0, and holds it still once it is not (a lever that stops it).
func upUntilStopped(_ ecs.Frame, s liftShape, _ cp.Vector, _ float64) ecs.Velocity {
	if s.Phase != 0 {
		return ecs.Velocity{}
	}
	return ecs.Velocity{Y: -30}
}

// A host's teleport of a kinematic body the client does not predict
// (physics.SetPose: Interpolated.Snap) moves the client's body there at
// once, not steered there over frames, swept through whatever lies
// between at thousands of units a second (the teleport's mark was read
// after the interpolator had taken it).
func TestAKinematicBodyTheHostTeleportsJumps(t *testing.T) {
	lt, _, r := liftRun(t, false, 11)
	// Wait for a frame where the path shifted by half a period is far
	// from the lift (u near 0: 150 units apart).
	var hostFrame ecs.Frame
	for range 400 {
		r.Host.Do(func(w *tandem.World) { hostFrame = w.ECS.Frame() })
		if hostFrame%360 == 350 {
			break
		}
		r.Step(1)
	}
	var jump float64
	r.Host.Do(func(w *tandem.World) {
		l := setPhase(w, 180)
		x, y := liftPath(w.ECS.Frame(), 180)
		p := w.Physics.BodyOf(l).Position()
		jump = math.Hypot(x-p.X, y-p.Y)
		w.Physics.SetPose(l, ecs.Transform{X: x, Y: y})
	})
	clear(lt.at)
	r.Step(120)
	biggest, moving := 0.0, 0
	lt.steps(func(_ ecs.Frame, prev, at cp.Vector) {
		d := math.Hypot(at.X-prev.X, at.Y-prev.Y)
		biggest = max(biggest, d)
		if d > 5 {
			moving++ // far faster than the lift's 0.83 units a frame
		}
	})
	t.Logf("host teleported the lift %.1f units; the client's lift moved at most %.1f units in a frame, %d frames faster than 5 units/frame", jump, biggest, moving)
	if jump < 100 {
		t.Fatalf("teleport of %.1f units: test set-up", jump)
	}
	if biggest < 0.8*jump {
		t.Errorf("a teleport of %.1f units reached the client's kinematic body as a sweep (%d frames faster than 5 units a frame, at most %.1f a frame), not a jump", jump, moving, biggest)
	}
}

// A predicted body whose own system moves it by velocity, and that the
// host stops (a change the client's system learns from the states that
// tell it), ends where the host's is, its overshoot (its lead and the round
// trip at the lift's speed) taken back: by a state of a frame recorded
// after the client knew, or, the host sending nothing more of a still
// lift, once both have rested half a second apart. It was left 7 units
// off.
func TestAPredictedLiftTheHostStopsEndsWhereTheHostsIs(t *testing.T) {
	_, c, r := liftRunOf(t, func(tr func(*tandem.World)) *tandem.Game[Hop] { return liftGameBy(true, upUntilStopped, tr) }, 0, 12)
	r.Host.Do(func(w *tandem.World) {
		setPhase(w, 1) // stop
	})
	r.Step(300) // 5 s
	var host, client cp.Vector
	r.Host.Do(func(w *tandem.World) { host = w.Physics.BodyOf(liftOf(w)).Position() })
	c.Do(func(w *tandem.World) { client = w.Physics.BodyOf(liftOf(w)).Position() })
	off := math.Hypot(host.X-client.X, host.Y-client.Y)
	t.Logf("5 s after the host stopped its lift at y %.2f, the client's predicted lift is at y %.2f (%.2f off); corrected %d times", host.Y, client.Y, off, c.NetStats().Bodies.Corrected)
	if off > 0.25 {
		t.Errorf("a predicted lift the host stopped stays %.2f units off the host's on the client", off)
	}
}

// A kinematic body the client does not predict, steered onto a host state
// at rest, comes to rest too: its velocity exactly zero, as the host's is
// (the rest lock takes any other for a moving platform). Steered a quarter
// of the gap a step, it stayed an ulp off with a velocity of a rounding.
func TestASteeredKinematicBodyComesToRest(t *testing.T) {
	_, c, r := liftRunOf(t, func(tr func(*tandem.World)) *tandem.Game[Hop] { return liftGameBy(false, upUntilStopped, tr) }, 0, 14)
	r.Host.Do(func(w *tandem.World) {
		setPhase(w, 1) // stop
	})
	r.Step(600) // 10 s
	var host, client cp.Vector
	var hv, cv cp.Vector
	r.Host.Do(func(w *tandem.World) { b := w.Physics.BodyOf(liftOf(w)); host, hv = b.Position(), b.Velocity() })
	c.Do(func(w *tandem.World) { b := w.Physics.BodyOf(liftOf(w)); client, cv = b.Position(), b.Velocity() })
	t.Logf("host lift y %.17g v %g; client lift y %.17g v (%g, %g)", host.Y, hv.Y, client.Y, cv.X, cv.Y)
	if hv != (cp.Vector{}) {
		t.Fatalf("host's lift still moving: test set-up")
	}
	if cv != (cp.Vector{}) {
		t.Errorf("10 s after the host's lift stopped, the client's steered lift still has velocity (%g, %g), stuck an ulp off its target: a moving kinematic body to rest.go (kinematicTouch)", cv.X, cv.Y)
	}
}

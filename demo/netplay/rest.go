package netplay

import (
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// restLock keeps a client's player where the host has it at rest.
//
// The host's physics lets a disc fall asleep where it stopped, which may be
// pressed a little into a wall or another disc. The client's disc, woken by
// the correction that puts it there, is pushed back out by the client's
// physics, corrected again at the next AUTH_STATE, and so on: a disc at rest
// would be corrected for ever. So while the host reports the disc at rest
// (AUTH_STATE with a zero velocity) and the player has given no input since
// that frame, the client puts its disc on the host's pose after every step.
// The first time that moves it, the interpolator hides the move like any
// correction. Input, or the host reporting the disc moving (pushed by
// someone), lets it go.
//
// It is the client replicator's AuthHandler and passes every AUTH_STATE on
// to the predictor.
type restLock struct {
	c    *Client
	next replicate.AuthHandler
	reg  *replicate.Registry
	pose replicate.Component // Transform's and Velocity's places in the registry
	vel  replicate.Component

	rest      bool          // the host's newest AUTH_STATE has the player at rest
	restFrame ecs.Frame     // its frame
	restPose  ecs.Transform // the host's pose then
	neutral   ecs.Frame     // first frame of the current run of empty inputs (0: none)
	locks     uint64
}

func newRestLock(c *Client, next replicate.AuthHandler) *restLock {
	l := &restLock{c: c, next: next, reg: c.reg}
	w := c.g.World
	l.pose, _ = c.reg.Lookup(w.IDs.Transform)
	l.vel, _ = c.reg.Lookup(w.IDs.Velocity)
	return l
}

// AuthState implements replicate.AuthHandler. While the lock holds the
// player, the host's state is the lock's to apply: the predictor, which would
// carry each difference into the frames it predicted since, does not see it
// (once its clock is in step: until then the host frames of AUTH_STATE are
// what it sets the clock by).
func (l *restLock) AuthState(f ecs.Frame, e arche.Entity, mask uint16, images []int32) {
	if e == l.c.local && f >= l.restFrame {
		v := images[l.reg.Offset(l.vel):][:l.reg.Fields(l.vel)]
		l.rest = mask&(1<<l.vel) != 0 && mask&(1<<l.pose) != 0 && v[0] == 0 && v[1] == 0 && v[2] == 0
		l.restFrame = f
		if l.rest {
			q := images[l.reg.Offset(l.pose):][:l.reg.Fields(l.pose)]
			l.reg.Dequantize(l.pose, q, unsafe.Pointer(&l.restPose))
		}
		if l.holds() && l.c.pred.Sync().Stats().Synced {
			return
		}
	}
	l.next.AuthState(f, e, mask, images)
}

// holds reports whether the lock holds the player: the host has it at rest
// and no input was given since.
func (l *restLock) holds() bool {
	return l.rest && l.neutral != 0 && l.neutral <= l.restFrame
}

// input notes the input of frame f.
func (l *restLock) input(f ecs.Frame, in game.Input) {
	switch {
	case in != (game.Input{}):
		l.neutral = 0
	case l.neutral == 0:
		l.neutral = f
	}
}

// Update is the client system after the physics step: it holds the player on
// the host's resting pose.
func (l *restLock) Update(w *ecs.World) {
	e := l.c.local
	if !l.holds() || !w.Alive(e) {
		return
	}
	g := l.c.g
	t := g.Pose(e)
	dx, dy, da := l.restPose.X-t.X, l.restPose.Y-t.Y, ecs.AngleDiff(t.Angle, l.restPose.Angle)
	if dx != 0 || dy != 0 || da != 0 {
		g.Space.CorrectPose(e, dx, dy, da)
		if dist(t, l.restPose) > PoseTolerance {
			l.c.ip.AddCorrection(e, dx, dy, da)
		}
		l.locks++
	}
	g.Space.SetVelocity(e, ecs.Velocity{})
}

package interp

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Pose returns where to draw entity e, and false if e is dead or has no
// ecs.Transform, or is a remote entity the host made in play (Born) whose
// first state the render frame has not reached, or one it removed whose
// removal the render frame passed (Drawing): not there in the world drawn.
// A remote entity is drawn where the last Update put it (alpha is not
// used). One simulated here is drawn between its last two simulated poses,
// blending Interpolated.Prev to Transform by alpha (the schedule's Alpha;
// Transform as is without Interpolated, or when Interpolated.Snap is set),
// plus what is left of its correction offset; a remote one not drawn from
// its states (none since a Reset yet) at its Transform, the newest
// received. A snapped entity loses its
// offset. With interpolation off (SetEnabled), a remote entity is drawn at
// its newest received state and any other at its Transform.
func (ip *Interpolator) Pose(e arche.Entity, alpha float64) (ecs.Transform, bool) {
	w := ip.w
	s, slotted := w.NetSlot(e)
	var sl *slotState
	if slotted {
		sl = ip.find(s, e)
	}
	if sl != nil {
		if sl.flags&(flagRemote|flagNoPose) == flagRemote && sl.n > 0 {
			if ip.disabled {
				_, poses := ip.ring(s)
				return poses[sl.head], true
			}
			if sl.flags&flagEarly != 0 || sl.mode == modeGone {
				return ecs.Transform{}, false // not made yet, or removed, at the render frame
			}
			return add(sl.raw, sl.off), true
		}
	}
	a := w.Arche()
	if !a.Alive(e) {
		return ecs.Transform{}, false
	}
	tp := (*ecs.Transform)(a.Get(e, w.IDs.Transform))
	if tp == nil {
		return ecs.Transform{}, false
	}
	t := *tp
	if ip.disabled {
		return t, true
	}
	if ic := (*ecs.Interpolated)(a.Get(e, w.IDs.Interpolated)); ic != nil && ip.simulated(e) {
		if ic.Snap {
			if sl != nil {
				sl.off = ecs.Transform{}
			}
			return t, true
		}
		t = ecs.Blend(ic.Prev, t, min(max(alpha, 0), 1))
	}
	if sl != nil {
		t = add(t, sl.off)
	}
	return t, true
}

// Remote reports whether e is drawn from received states: its pose, or for
// an entity without a Transform its Tracks alone (Pose then says false).
func (ip *Interpolator) Remote(e arche.Entity) bool {
	s, ok := ip.w.NetSlot(e)
	if !ok {
		return false
	}
	sl := ip.find(s, e)
	return sl != nil && sl.flags&flagRemote != 0 && sl.n > 0
}

func add(a, b ecs.Transform) ecs.Transform {
	return ecs.Transform{X: a.X + b.X, Y: a.Y + b.Y, Angle: a.Angle + b.Angle}
}

// diff returns a − b, the angle the short way.
func diff(a, b ecs.Transform) ecs.Transform {
	return ecs.Transform{X: a.X - b.X, Y: a.Y - b.Y, Angle: ecs.AngleDiff(b.Angle, a.Angle)}
}

// simulated reports whether e is simulated here, so that its
// Interpolated.Prev follows its steps: every entity until SetLocal, then
// those the local peer owns but the ones marked ecs.HostMoved. Another's
// entity, or one the host alone moves, not drawn from its states now
// (before its first state since a Reset) is drawn at its newest, not
// blended from a Prev no step keeps.
func (ip *Interpolator) simulated(e arche.Entity) bool {
	if !ip.localSet {
		return true
	}
	w := ip.w
	id, ok := w.Identity(e)
	return !ok || id.Owner == ip.local && !w.Arche().Has(e, w.IDs.HostMoved)
}

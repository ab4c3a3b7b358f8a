package interp

import (
	"math"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Offsets below these are dropped as invisible.
const (
	minOffset      = 1e-6 // world units
	minAngleOffset = 1e-7 // radians
)

// AddCorrection tells the Interpolator that prediction has just moved entity
// e's simulated pose by dx, dy (world units) and turned it by dAngle
// (radians). The drawn pose keeps an offset of minus that move, decaying with
// Config.HalfLife, so the entity slides to its corrected place instead of
// jumping; corrections add up. The drawn pose is continuous when the whole
// drawn history moved, Transform and Interpolated.Prev alike, as they have
// once the next simulation step ran (physics.CorrectPose before the physics
// step does that). It does nothing for an entity that is not networked.
func (ip *Interpolator) AddCorrection(e arche.Entity, dx, dy, dAngle float64) {
	if _, ok := ip.w.NetSlot(e); ok {
		ip.stats.Corrections++
	}
	ip.Slide(e, -dx, -dy, -dAngle)
}

// Slide draws entity e d away from where its states put it, the offset
// decaying as a correction's does (Config.HalfLife): a pose that was drawn
// elsewhere until now (a body the client's physics held, drawn in the
// present) handed back to interpolation without a jump. It counts no
// correction, and does nothing for an entity that is not networked.
func (ip *Interpolator) Slide(e arche.Entity, dx, dy, dAngle float64) {
	s, ok := ip.w.NetSlot(e)
	if !ok {
		return
	}
	ip.grow(s)
	sl := ip.slot(s)
	if sl.ent != e {
		ip.clearSlot(s)
		sl.ent = e
		for _, t := range ip.tracks {
			t.clear(s)
		}
	}
	ip.addOffset(s, ecs.Transform{X: dx, Y: dy, Angle: dAngle})
}

// SnapCorrection tells the Interpolator that entity e's simulated pose jumped
// (a teleport the host reported, or a prediction thrown away) rather than
// being corrected: what is left of its offset is dropped, so it is drawn at
// its pose from the next frame, not sliding there. Draw the jump from where
// the entity is by giving Interpolated.Prev its new Transform too. It does
// nothing for an entity that is not networked; predict.Snapper.
func (ip *Interpolator) SnapCorrection(e arche.Entity) {
	s, ok := ip.w.NetSlot(e)
	sl := ip.find(s, e)
	if !ok || sl == nil {
		return
	}
	sl.off = ecs.Transform{}
	ip.stats.Snaps++
}

// Offset returns what is left of entity e's visual offset: the drawn pose is
// the interpolated or blended pose plus it.
func (ip *Interpolator) Offset(e arche.Entity) ecs.Transform {
	s, ok := ip.w.NetSlot(e)
	sl := ip.find(s, e)
	if !ok || sl == nil {
		return ecs.Transform{}
	}
	return sl.off
}

// ClampOffset replaces the translation left of entity e's offset (world
// units) by what clamp returns of it: clamp takes out of the drawn pose's
// move from its simulated one what the simulation would not let the body
// do there. A physics Space's ClampDrawn does so for a body that landed
// while its offset still drew it where it fell: drawn sinking into the
// floor it rests on, by a correction that lifted it a frame before. It
// does nothing for an entity with no offset (clamp is not called), and
// allocates nothing itself.
func (ip *Interpolator) ClampOffset(e arche.Entity, clamp func(e arche.Entity, dx, dy float64) (float64, float64)) {
	s, ok := ip.w.NetSlot(e)
	sl := ip.find(s, e)
	if !ok || sl == nil || sl.off.X == 0 && sl.off.Y == 0 {
		return
	}
	sl.off.X, sl.off.Y = clamp(e, sl.off.X, sl.off.Y)
}

// addOffset adds d to slot s's visual offset and lists the slot for decay.
// A d that is not finite is ignored; an offset that overflows is dropped.
func (ip *Interpolator) addOffset(s int32, d ecs.Transform) {
	if !finite(d) || math.Abs(d.X) < minOffset && math.Abs(d.Y) < minOffset && math.Abs(d.Angle) < minAngleOffset {
		return
	}
	sl := ip.slot(s)
	sl.off = add(sl.off, d)
	if m := ip.cfg.MaxOffset; !finite(sl.off) || m > 0 && math.Hypot(sl.off.X, sl.off.Y) > m {
		sl.off = ecs.Transform{}
		ip.stats.Dropped++
		return
	}
	if sl.flags&flagListed == 0 {
		sl.flags |= flagListed
		ip.offsets = append(ip.offsets, s)
	}
}

// finite reports whether every field of t is a finite number.
func finite(t ecs.Transform) bool {
	return !math.IsNaN(t.X-t.X) && !math.IsNaN(t.Y-t.Y) && !math.IsNaN(t.Angle-t.Angle)
}

// decay shrinks every listed offset for dt seconds and unlists those that
// reached zero.
func (ip *Interpolator) decay(dt float64) {
	if len(ip.offsets) == 0 {
		return
	}
	k := math.Exp2(-dt / ip.cfg.HalfLife.Seconds())
	for i := 0; i < len(ip.offsets); {
		s := ip.offsets[i]
		sl := ip.slot(s)
		o := &sl.off
		o.X *= k
		o.Y *= k
		o.Angle *= k
		if math.Abs(o.X) < minOffset && math.Abs(o.Y) < minOffset && math.Abs(o.Angle) < minAngleOffset {
			*o = ecs.Transform{}
			sl.flags &^= flagListed
			last := len(ip.offsets) - 1
			ip.offsets[i] = ip.offsets[last]
			ip.offsets = ip.offsets[:last]
			continue
		}
		i++
	}
}

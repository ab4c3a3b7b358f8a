package tandem

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// drawnPoses keeps ecs.Interpolated.Prev, the pose a locally simulated
// entity is drawn from between two steps, for every networked entity whose
// Transform writes are reported (ecs.MutateComponent), so a game moves its
// entities as it likes and they are drawn blended with nothing to keep:
//
//   - at the end of a step it lists the entities with Interpolated whose
//     Transform the step reported, and gives those it reported teleported
//     (ecs.ReportTeleport) or given a new owner (ecs.SetOwner: a pose drawn
//     from received states until then), and those it made (spawned) with a
//     Prev left at the zero Transform, their Transform as Prev: they are
//     drawn at rest where they landed or appeared, not sliding there (from
//     the origin, for a new entity); the entities Setup makes get theirs
//     before the first step, so the first frame drawn shows them where they
//     are, and those made between steps as they are made (loop.settle);
//   - at the start of the next step, before anything moves them, it sets the
//     listed entities' Prev to their Transform: the pose the last step ended
//     at, which drawing blends from until the step after.
//
// An entity not reported since holds its Prev, which is already its
// Transform. Whoever moves an entity later in the step and keeps Prev itself
// (the physics bridge does for bodies) overrides it, as before. What it
// costs is what the step reported: no pass over the world. A correction of
// a predicted pose (shift) moves Prev with the Transform, so the correction
// is drawn as the interpolator's decaying offset, never as a one-step jump.
type drawnPoses struct {
	moved []arche.Entity // reported last step, with Interpolated
}

// start is the first system of a step (ecs.StageInput): the entities the
// last step moved take the pose it ended at as Prev.
func (d *drawnPoses) start(w *ecs.World) {
	if len(d.moved) > 0 {
		d.atRest(w, d.moved, false)
		d.moved = d.moved[:0]
	}
}

// end is the last system of a step (ecs.StageOutput): it lists the entities
// whose Transform the step reported, and gives the new ones their Transform
// as Prev.
func (d *drawnPoses) end(w *ecs.World) {
	a, ids := w.Arche(), &w.IDs
	j := w.Journal()
	for _, ch := range j.Changes(w) {
		if ch.Component == ids.Transform && a.Has(ch.Entity, ids.Interpolated) {
			d.moved = append(d.moved, ch.Entity)
		}
	}
	d.atRest(w, j.Spawned(w), true)
	d.atRest(w, j.Teleported(w), false)
	d.atRest(w, j.Reowned(w), false)
}

// atRest gives each of es that is alive and has Interpolated its Transform
// as Prev (with unset, only those whose Prev is still the zero Transform):
// it is drawn where it is until the next step moves it.
func (d *drawnPoses) atRest(w *ecs.World, es []arche.Entity, unset bool) {
	a, ids := w.Arche(), &w.IDs
	for _, e := range es {
		if !a.Alive(e) {
			continue // removed since it was listed
		}
		ip := (*ecs.Interpolated)(a.Get(e, ids.Interpolated))
		t := (*ecs.Transform)(a.Get(e, ids.Transform))
		if ip != nil && t != nil && (!unset || ip.Prev == ecs.Transform{}) {
			ip.Prev = *t
		}
	}
}

// shift moves entity e's Prev by a correction of its pose (dx, dy world
// units, dAngle radians) that moved its Transform, if e has Interpolated.
func (d *drawnPoses) shift(w *ecs.World, e arche.Entity, dx, dy, dAngle float64) {
	a := w.Arche()
	if !a.Alive(e) {
		return
	}
	if ip := (*ecs.Interpolated)(a.Get(e, w.IDs.Interpolated)); ip != nil {
		ip.Prev.X += dx
		ip.Prev.Y += dy
		ip.Prev.Angle += dAngle
	}
}

package tandem

import (
	"math"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Drawing held bodies in the present. A remote body that a predicted body
// touches is held: the client simulates it in the present, beside the body
// pushing it. Drawn in the past with the other remote entities, it would be
// drawn behind what pushes it (a player's disc drawn through the crate it
// pushes, by the round trip and the render delay at its speed). So from the
// touch on it is drawn where the client's physics has it, between its last
// two steps as a predicted body is, sliding from where it was drawn into
// the present as the hold begins (the offset halving every heldHalfLife).
// It goes back to interpolation once drawn there it would be within
// aheadGap of where it is drawn (at rest in both, or nearly), heldLinger
// frames after the last touch at the soonest (a crate pushed in spurts is
// not sent back and forth); what is left goes to the interpolator's
// offset, and slides away. Handed back while moving, it would be drawn
// going back by the round trip and the render delay at its speed. One that
// does not come to rest goes back after aheadMax frames all the same.

// heldLinger is how many frames after its last touch a held body is drawn
// in the present at least.
const heldLinger = 60

// aheadGap is how near, in world units, a body drawn in the present must
// be to where interpolation draws it to go back to interpolation, and
// aheadMax how many frames after its last touch it goes back all the same.
const (
	aheadGap = 0.5
	aheadMax = 600
)

// heldHalfLife is the half-life of the slide into the present, in seconds.
const heldHalfLife = 0.05

// presentDraw is a remote body a predicted body touched, drawn in the
// present.
type presentDraw struct {
	e         arche.Entity
	until     ecs.Frame     // drawn so through this frame: its last touch's, and heldLinger more
	prev, cur ecs.Transform // its drawn pose at the end of the last two steps
	off       ecs.Transform // from the body's pose to the drawn one, halving every heldHalfLife
	body      ecs.Transform // the body's pose as a replay began
	// snap: the host teleported it (Interpolated.Snap), and its next put
	// is a jump; jumped: it was, and the step draws no blend across it.
	snap, jumped bool
	// predicted: a body this client predicts (ecs.Predicted), drawn in the
	// present for as long as it does.
	predicted bool
}

// drawTouched draws remote body e, which a predicted body touched this
// step, in the present from now to heldLinger frames on.
func (n *netPhysics) drawTouched(e arche.Entity) {
	if !n.cfg.DrawHeldAhead || n.past == nil {
		return
	}
	st := n.slot(e)
	if st != nil && st.ahead {
		for i := range n.drawn {
			if n.drawn[i].e == e {
				// (A replayed frame's touch keeps the present's.)
				n.drawn[i].until = max(n.drawn[i].until, n.frame+heldLinger)
				return
			}
		}
	}
	b := n.w.Physics.BodyOf(e)
	if b == nil {
		return
	}
	body := bodyPose(b)
	from, ok := n.past(e)
	if !ok {
		from = body
	}
	n.stats.DrawnAhead++
	if st != nil {
		st.ahead = true
	}
	// body: touched in a replayed frame, the replay's end absorbs what it
	// moved it by since (drawnReplayEnd).
	n.drawn = append(n.drawn, presentDraw{e: e, until: n.frame + heldLinger, prev: from, cur: from, off: poseDiff(from, body), body: body})
}

// updateDrawn moves the drawn poses of the bodies drawn in the present on
// by the step, and hands those whose time is over (or that are no longer
// remote bodies) back to interpolation.
func (n *netPhysics) updateDrawn() {
	if len(n.drawn) == 0 {
		return
	}
	k := math.Pow(0.5, n.step/heldHalfLife)
	kept := n.drawn[:0]
	for _, d := range n.drawn {
		b := n.w.Physics.BodyOf(d.e)
		st := n.slot(d.e)
		if b == nil || st == nil || !st.body {
			if st != nil {
				st.ahead = false
			}
			continue // gone, or this client's to predict now
		}
		if n.frame > d.until && n.handBack(&d) {
			st.ahead = false
			continue
		}
		d.off = ecs.Transform{X: d.off.X * k, Y: d.off.Y * k, Angle: d.off.Angle * k}
		p := bodyPose(b)
		d.prev, d.cur = d.cur, ecs.Transform{X: p.X + d.off.X, Y: p.Y + d.off.Y, Angle: p.Angle + d.off.Angle}
		if d.jumped {
			d.prev, d.jumped = d.cur, false // drawn as a jump
		}
		kept = append(kept, d)
	}
	clear(n.drawn[len(kept):])
	n.drawn = kept
}

// absorbPut keeps the drawn pose of e, if it is drawn in the present, where
// it is as its body is put at pose (on the host's state): the jump slides
// away with the rest of its offset.
func (n *netPhysics) absorbPut(e arche.Entity, pose ecs.Transform) {
	for i := range n.drawn {
		if d := &n.drawn[i]; d.e == e {
			if d.snap {
				d.snap, d.jumped, d.off = false, true, ecs.Transform{}
				return
			}
			if b := n.w.Physics.BodyOf(e); b != nil {
				j := poseDiff(bodyPose(b), pose)
				d.off = ecs.Transform{X: d.off.X + j.X, Y: d.off.Y + j.Y, Angle: d.off.Angle + j.Angle}
			}
			return
		}
	}
}

// snapped reports whether the state being applied to e is of a teleport
// (its Interpolated.Snap, before the interpolator takes it); if e is drawn
// in the present, its put is then drawn as a jump.
func (n *netPhysics) snapped(e arche.Entity) bool {
	a := n.w.ECS.Arche()
	ic := (*ecs.Interpolated)(a.GetUnchecked(e, n.w.ECS.IDs.Interpolated))
	if ic == nil || !ic.Snap {
		return false
	}
	for i := range n.drawn {
		if n.drawn[i].e == e {
			n.drawn[i].snap = true
		}
	}
	return true
}

// drawnReplayBegin notes where the bodies drawn in the present are as a
// replay begins; drawnReplayEnd absorbs what the replay moved them by.
func (n *netPhysics) drawnReplayBegin() {
	for i := range n.drawn {
		if b := n.w.Physics.BodyOf(n.drawn[i].e); b != nil {
			n.drawn[i].body = bodyPose(b)
		}
	}
}

func (n *netPhysics) drawnReplayEnd() {
	for i := range n.drawn {
		d := &n.drawn[i]
		if b := n.w.Physics.BodyOf(d.e); b != nil {
			j := poseDiff(d.body, bodyPose(b))
			d.off = ecs.Transform{X: d.off.X + j.X, Y: d.off.Y + j.Y, Angle: d.off.Angle + j.Angle}
		}
	}
}

// handBack gives d's body back to interpolation, the way between where it
// is drawn and where interpolation draws it to slide, and reports true, if
// that way is short (aheadGap) or it has been drawn ahead aheadMax frames
// since its last touch; a body moving still stays drawn in the present.
func (n *netPhysics) handBack(d *presentDraw) bool {
	past, ok := n.past(d.e)
	s := poseDiff(d.cur, past)
	if ok && math.Hypot(s.X, s.Y) > aheadGap && n.frame <= d.until-heldLinger+aheadMax {
		return false
	}
	if ok {
		n.slide(d.e, s.X, s.Y, s.Angle)
	}
	return true
}

// forgetDrawn stops drawing e in the present (it was removed).
func (n *netPhysics) forgetDrawn(e arche.Entity) {
	if st := n.slot(e); st != nil {
		st.ahead = false
	}
	for i := range n.drawn {
		if n.drawn[i].e == e {
			n.drawn = append(n.drawn[:i], n.drawn[i+1:]...)
			return
		}
	}
}

// ahead reports whether e is a held body drawn in the present.
func (n *netPhysics) ahead(e arche.Entity) bool {
	if !n.aheadSlot(e) {
		return false
	}
	for i := range n.drawn {
		if n.drawn[i].e == e {
			return true
		}
	}
	return false
}

// drawnPose returns where to draw e if it is a held or predicted body drawn
// in the present (between its drawn poses of the last two steps, alpha of
// the way), or a remote body a predicted one carries (carriedPose).
func (n *netPhysics) drawnPose(e arche.Entity, alpha float64) (ecs.Transform, bool) {
	if !n.aheadSlot(e) {
		return n.carriedPose(e, alpha)
	}
	for i := range n.drawn {
		if d := &n.drawn[i]; d.e == e {
			return ecs.Blend(d.prev, d.cur, min(max(alpha, 0), 1)), true
		}
	}
	return ecs.Transform{}, false
}

// bodyPose returns body b's pose.
func bodyPose(b *cp.Body) ecs.Transform {
	p := b.Position()
	return ecs.Transform{X: p.X, Y: p.Y, Angle: b.Angle()}
}

// aheadSlot reports whether e's slot says it is drawn in the present: one
// look, where most entities drawn are not.
func (n *netPhysics) aheadSlot(e arche.Entity) bool {
	if len(n.drawn) == 0 {
		return false
	}
	s, ok := n.w.ECS.NetSlot(e)
	return ok && int(s) < len(n.slots) && n.slots[s].ahead
}

// poseDiff returns a − b, the angle the short way round.
func poseDiff(a, b ecs.Transform) ecs.Transform {
	return ecs.Transform{X: a.X - b.X, Y: a.Y - b.Y, Angle: math.Remainder(a.Angle-b.Angle, 2*math.Pi)}
}

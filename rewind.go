package tandem

import (
	"math"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// LagCompensated marks a networked entity whose poses the host keeps for
// HostConfig.MaxRewind, so that a hit test finds it where a player saw it:
// World.Seen with the player's Input.View. Give it to what players aim at
// (the other players' avatars, creeps), on the host; on a client and alone
// it costs nothing. The host records each marked entity's Transform every
// step, 29 bytes a step kept (about 1.8 KB an entity at the defaults). It
// is the host's own mark, neither replicated nor saved: a host restored from
// a save marks the entities again where it rebuilds what a save leaves out
// (Game.Restored, or Arrived in its place). An entity removed is not kept:
// one a shot should still find for the round trip after its removal (a
// player killed a moment before her killer's shot came) stays in the world
// that long, marked as the game likes, before it goes.
//
// A projectile that flies for frames (not a hitscan shot) is tested each
// step against World.Seen(target, view+age): view is the shooter's
// Input.View at the frame she fired, age the frames the projectile has
// flown since, so it meets the target where her screen showed it as the
// projectile got there. Keep the view with the projectile on the host (a
// component of the host's own). A shooter trial's host agreed with her
// screen on 111 of 114 such shots at a dodging runner, 100 ms each way;
// tested against the targets' present poses, on half.
type LagCompensated struct{}

// Seen returns where the player whose input has view (Input.View) saw entity
// e: on the host, e's pose at that host frame, from the poses kept of an
// entity marked LagCompensated (between the states of the send ticks around
// the view, as a client draws between the states it receives; at a
// teleport, on the side of the view's frame), or its Transform now for one
// not marked; on a client, where it draws e now (the interpolator's pose of
// one it does not predict, the Transform of one it does, and its world's
// Transform while it draws nothing): a hit predicted there shows at once,
// the host's decides (with ClientConfig.Replay, a frame simulated again
// sees what the client draws at the time, not what it drew then); alone,
// its Transform. ok is false when e is not alive, has no Transform, or, on
// the host, was made after the view. A view older than the poses kept (an
// entity marked since) gives the oldest. What a client drew it guessed
// where states were late (an entity moved on by its velocity) and the host
// does not: there the two part. Call it on the simulation goroutine; it
// allocates nothing.
func (w *World) Seen(e arche.Entity, view float64) (pose ecs.Transform, ok bool) {
	if w.seen != nil {
		return w.seen(e, view)
	}
	return w.transformOf(e)
}

// transformOf returns e's Transform, ok false when e is dead or has none.
func (w *World) transformOf(e arche.Entity) (ecs.Transform, bool) {
	a := w.ECS.Arche()
	if !a.Alive(e) {
		return ecs.Transform{}, false
	}
	t := (*ecs.Transform)(a.Get(e, w.ECS.IDs.Transform))
	if t == nil {
		return ecs.Transform{}, false
	}
	return *t, true
}

// rewinder keeps, on the host, the poses of the entities marked
// LagCompensated: a ring of the last frames of each, recorded at the end of
// every step (ecs.StageOutput). Cost per step: the marked entities, not the
// world; nothing is allocated once each marked entity has its ring (rings
// of entities gone are taken again).
type rewinder struct {
	w      *World
	filter *generic.Filter2[LagCompensated, ecs.Transform]
	size   int     // frames a ring holds: MaxRewind's and two
	index  []int32 // by arche entity id: 1 + the entity's ring, 0 none
	rings  []poseRing
	free   []int32 // rings of entities gone
	frame  ecs.Frame
	// sentFrame gives the frame of the host's last send tick (nil: every
	// frame is sent); sends holds, by frame % size, the frames that were.
	sentFrame func() ecs.Frame
	sends     []ecs.Frame
}

// poseRing is one entity's poses of its last frames, by frame % size.
type poseRing struct {
	entity arche.Entity
	from   ecs.Frame // the frame it was made in (it was not there before); 0: before the ring
	first  ecs.Frame // the oldest frame recorded
	seen   ecs.Frame // the last frame recorded
	frames []ecs.Frame
	poses  []ecs.Transform
	jumps  []bool // the frame's pose was a teleport (ecs.ReportTeleport)
}

// newRewinder keeps the poses of w's marked entities for frames steps back;
// sent gives the frame of the host's last send tick (nil: every frame's
// state is sent).
func newRewinder(w *World, frames int, sent func() ecs.Frame) *rewinder {
	return &rewinder{w: w, filter: generic.NewFilter2[LagCompensated, ecs.Transform](), size: frames + 2, sentFrame: sent, sends: make([]ecs.Frame, frames+2)}
}

// Update records the step's poses: an ecs.System for ecs.StageOutput.
func (r *rewinder) Update(ew *ecs.World) {
	f := ew.Frame()
	r.frame = f
	if r.sentFrame == nil || r.sentFrame() == f {
		r.sends[int(uint64(f)%uint64(r.size))] = f
	}
	j := ew.Journal()
	q := r.filter.Query(ew.Arche())
	for q.Next() {
		_, t := q.Get()
		e := q.Entity()
		rg := r.ring(e, f)
		s := int(uint64(f) % uint64(r.size))
		rg.frames[s], rg.poses[s], rg.jumps[s] = f, *t, false
		rg.seen = f
	}
	// A spawn had no pose before; a teleport is not drawn between.
	for _, e := range j.Spawned(ew) {
		if rg := r.of(e); rg != nil && rg.first == f {
			rg.from = f
		}
	}
	for _, e := range j.Teleported(ew) {
		if rg := r.of(e); rg != nil && rg.seen == f {
			rg.jumps[int(uint64(f)%uint64(r.size))] = true
		}
	}
	// The rings of entities gone, or no longer marked, are taken back.
	for i := range r.rings {
		rg := &r.rings[i]
		if rg.seen != f && !rg.entity.IsZero() {
			// (An entity made this step may have the gone one's id, and
			// its own ring under it already.)
			if id := rg.entity.ID(); r.index[id] == int32(i)+1 {
				r.index[id] = 0
			}
			rg.entity = arche.Entity{}
			r.free = append(r.free, int32(i))
		}
	}
}

// of returns e's ring, nil if it has none.
func (r *rewinder) of(e arche.Entity) *poseRing {
	id := int(e.ID())
	if id >= len(r.index) || r.index[id] == 0 {
		return nil
	}
	rg := &r.rings[r.index[id]-1]
	if rg.entity != e {
		return nil
	}
	return rg
}

// ring returns e's ring, giving it one first recorded at frame f.
func (r *rewinder) ring(e arche.Entity, f ecs.Frame) *poseRing {
	if rg := r.of(e); rg != nil {
		return rg
	}
	var i int32
	if n := len(r.free); n > 0 {
		i, r.free = r.free[n-1], r.free[:n-1]
	} else {
		r.rings = append(r.rings, poseRing{
			frames: make([]ecs.Frame, r.size),
			poses:  make([]ecs.Transform, r.size),
			jumps:  make([]bool, r.size),
		})
		i = int32(len(r.rings) - 1)
	}
	rg := &r.rings[i]
	clear(rg.frames)
	rg.entity, rg.from, rg.first, rg.seen = e, 0, f, 0
	id := int(e.ID())
	if id >= len(r.index) {
		r.index = append(r.index, make([]int32, id+1-len(r.index))...)
	}
	r.index[id] = i + 1
	return rg
}

// at returns frame g's pose from the ring, ok false if it holds none.
func (rg *poseRing) at(g ecs.Frame) (ecs.Transform, bool, bool) {
	s := int(uint64(g) % uint64(len(rg.frames)))
	if rg.frames[s] != g {
		return ecs.Transform{}, false, false
	}
	return rg.poses[s], rg.jumps[s], true
}

// seenAt is World.Seen on the host.
func (r *rewinder) seenAt(e arche.Entity, view float64) (ecs.Transform, bool) {
	now, ok := r.w.transformOf(e)
	rg := r.of(e)
	if !ok || rg == nil || rg.seen != r.frame || !(view < float64(r.w.ECS.Frame())) {
		// Not marked (or marked since the last step), or seen at the
		// present: as it is.
		return now, ok
	}
	g := ecs.Frame(0)
	if view > 0 {
		g = ecs.Frame(math.Floor(view))
	}
	if rg.from != 0 && g < rg.from {
		return ecs.Transform{}, false // made after the view
	}
	if oldest := ecs.Frame(max(int64(rg.first), int64(r.frame)-int64(len(rg.frames))+1)); g < oldest {
		// Older than what is kept: the oldest kept.
		p, _, _ := rg.at(oldest)
		return p, true
	}
	if p, ok := r.betweenSends(rg, g, view); ok {
		return p, true
	}
	p0, _, _ := rg.at(g)
	p1, jump, ok := rg.at(g + 1)
	if !ok {
		// g is the last step's frame, and the step under way is moving
		// it: from there to where it is now.
		p1, jump = now, false
	}
	if jump {
		return p0, true
	}
	return ecs.Blend(p0, p1, view-float64(g)), true
}

// betweenSends is the pose a client drew at view, of frame g (its floor):
// between the states of the send ticks around it, as the client draws
// between the states it receives (a reversal between two sends is drawn
// cutting the corner). ok is false where those are not both kept, or a
// teleport is between them: the pose of each frame then.
func (r *rewinder) betweenSends(rg *poseRing, g ecs.Frame, view float64) (ecs.Transform, bool) {
	if r.sentFrame == nil {
		return ecs.Transform{}, false
	}
	size := ecs.Frame(r.size)
	s0, s1 := ecs.Frame(0), ecs.Frame(0)
	for f := g; f+size > r.frame && f >= rg.first && f > 0; f-- {
		if r.sends[int(uint64(f)%uint64(r.size))] == f {
			s0 = f
			break
		}
	}
	for f := g + 1; f <= r.frame; f++ {
		if r.sends[int(uint64(f)%uint64(r.size))] == f {
			s1 = f
			break
		}
		if _, jump, _ := rg.at(f); jump {
			return ecs.Transform{}, false
		}
	}
	if s0 == 0 || s1 == 0 || s1-s0 == 1 {
		return ecs.Transform{}, false
	}
	if _, jump, _ := rg.at(s1); jump {
		return ecs.Transform{}, false
	}
	for f := s0 + 1; f <= g; f++ {
		if _, jump, _ := rg.at(f); jump {
			return ecs.Transform{}, false
		}
	}
	p0, _, _ := rg.at(s0)
	p1, _, _ := rg.at(s1)
	return ecs.Blend(p0, p1, (view-float64(s0))/float64(s1-s0)), true
}

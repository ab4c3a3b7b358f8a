package interp

import (
	arche "github.com/mlange-42/arche/ecs"
)

// track is what the Interpolator asks of a Track, whatever its type.
type track interface {
	record(s int32, k int, e arche.Entity) // ring position k of slot s takes e's component
	hold(s int32, from, to int)            // ring position to repeats position from
	eval(s int32, a, b int, alpha float64) // drawn value: blend of positions a and b
	clear(s int32)
	reset()
}

// Track interpolates one more component of remote entities, of type T, along
// with their pose: it keeps a ring of T beside the Interpolator's ring of
// poses, and each Update blends the same two states, at the same fraction,
// with the game's blend function. Use it for what a game draws besides the
// pose (a scale, a colour, a turret's angle), or instead of one (a position
// of the game's own on entities without a Transform, drawn blended all the
// same); Transform itself needs none.
//
// Create it with NewTrack before states arrive. Memory: 9 values of
// T per slot, in blocks as the Interpolator's. Not safe for concurrent use,
// like its Interpolator.
type Track[T any] struct {
	ip     *Interpolator
	id     arche.ID
	blend  func(a, b T, alpha float64) T
	blocks []*trackBlock[T] // slot s in blocks[s>>blockBits]
}

// trackBlock is a Track's values of blockLen slots: each one's ring, at
// slot*ringSize, and its drawn value.
type trackBlock[T any] struct {
	vals  [blockLen * ringSize]T
	drawn [blockLen]T
}

// ring returns slot s's ring of values and its drawn value; s must have
// room (grow).
func (t *Track[T]) ring(s int32) (vals *[ringSize]T, drawn *T) {
	b := t.blocks[s>>blockBits]
	o := int(s&blockMask) * ringSize
	return (*[ringSize]T)(b.vals[o : o+ringSize]), &b.drawn[s&blockMask]
}

// NewTrack adds a Track of component T, registered in ip's world if it was
// not, to ip. blend returns the value a fraction alpha of the way from a to
// b; alpha exceeds 1 while an entity is extrapolated, so clamp it if T
// cannot be extrapolated. While the entity is drawn before its oldest state
// (one that came into the client's interest), its value is the oldest's:
// the pose may move back along its velocity, a value has nothing to go by.
func NewTrack[T any](ip *Interpolator, blend func(a, b T, alpha float64) T) *Track[T] {
	t := &Track[T]{ip: ip, id: arche.ComponentID[T](ip.w.Arche()), blend: blend}
	ip.tracks = append(ip.tracks, t)
	return t
}

// Get returns the value of T to draw entity e with: for a remote entity the
// one the last Update blended, for any other its component as is; false if e
// is dead or has no T.
func (t *Track[T]) Get(e arche.Entity) (T, bool) {
	ip := t.ip
	if s, ok := ip.w.NetSlot(e); ok && int(s>>blockBits) < len(t.blocks) && ip.Remote(e) {
		vals, drawn := t.ring(s)
		if ip.disabled {
			return vals[ip.slot(s).head], true
		}
		return *drawn, true
	}
	var zero T
	a := ip.w.Arche()
	if !a.Alive(e) {
		return zero, false
	}
	p := (*T)(a.Get(e, t.id))
	if p == nil {
		return zero, false
	}
	return *p, true
}

func (t *Track[T]) grow(s int32) {
	for int(s>>blockBits) >= len(t.blocks) {
		t.blocks = append(t.blocks, new(trackBlock[T]))
	}
}

func (t *Track[T]) record(s int32, k int, e arche.Entity) {
	t.grow(s)
	vals, drawn := t.ring(s)
	n := t.ip.slot(s).n
	if p := (*T)(t.ip.w.Arche().Get(e, t.id)); p != nil {
		vals[k] = *p
	} else if n > 1 {
		vals[k] = vals[(k-1)&(ringSize-1)]
	}
	if n == 1 {
		*drawn = vals[k]
	}
}

func (t *Track[T]) hold(s int32, from, to int) {
	t.grow(s)
	vals, _ := t.ring(s)
	vals[to] = vals[from]
}

func (t *Track[T]) eval(s int32, a, b int, alpha float64) {
	vals, drawn := t.ring(s)
	if a == b {
		*drawn = vals[a]
		return
	}
	*drawn = t.blend(vals[a], vals[b], alpha)
}

func (t *Track[T]) clear(s int32) {
	if int(s>>blockBits) < len(t.blocks) {
		vals, drawn := t.ring(s)
		var zero T
		*drawn = zero
		clear(vals[:])
	}
}

func (t *Track[T]) reset() {
	for _, b := range t.blocks {
		*b = trackBlock[T]{}
	}
}

// record has every Track take e's component into ring position k of slot s.
func (ip *Interpolator) record(s int32, k int, e arche.Entity) {
	for _, t := range ip.tracks {
		t.record(s, k, e)
	}
}

// hold has every Track repeat ring position from at position to of slot s.
func (ip *Interpolator) hold(s int32, from, to int) {
	for _, t := range ip.tracks {
		t.hold(s, from, to)
	}
}

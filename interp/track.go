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
// Create it with NewTrack before states arrive. Memory: ringSize+1 values of
// T per slot. Not safe for concurrent use, like its Interpolator.
type Track[T any] struct {
	ip    *Interpolator
	id    arche.ID
	blend func(a, b T, alpha float64) T
	vals  []T // slot*ringSize + k
	drawn []T // by slot
}

// NewTrack adds a Track of component T, registered in ip's world if it was
// not, to ip. blend returns the value a fraction alpha of the way from a to
// b; alpha exceeds 1 while an entity is extrapolated, so clamp it if T cannot
// be extrapolated.
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
	if s, ok := ip.w.NetSlot(e); ok && int(s) < len(t.drawn) && ip.Remote(e) {
		if ip.disabled {
			return t.vals[int(s)*ringSize+int(ip.slots[s].head)], true
		}
		return t.drawn[s], true
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
	n := int(s) + 1
	if n <= len(t.drawn) {
		return
	}
	t.drawn = resize(t.drawn, n)
	t.vals = resize(t.vals, n*ringSize)
}

func (t *Track[T]) record(s int32, k int, e arche.Entity) {
	t.grow(s)
	i := int(s)*ringSize + k
	if p := (*T)(t.ip.w.Arche().Get(e, t.id)); p != nil {
		t.vals[i] = *p
	} else if sl := &t.ip.slots[s]; sl.n > 1 {
		t.vals[i] = t.vals[int(s)*ringSize+((k-1)&(ringSize-1))]
	}
	if t.ip.slots[s].n == 1 {
		t.drawn[s] = t.vals[i]
	}
}

func (t *Track[T]) hold(s int32, from, to int) {
	t.grow(s)
	base := int(s) * ringSize
	t.vals[base+to] = t.vals[base+from]
}

func (t *Track[T]) eval(s int32, a, b int, alpha float64) {
	base := int(s) * ringSize
	if a == b {
		t.drawn[s] = t.vals[base+a]
		return
	}
	t.drawn[s] = t.blend(t.vals[base+a], t.vals[base+b], alpha)
}

func (t *Track[T]) clear(s int32) {
	if int(s) < len(t.drawn) {
		var zero T
		t.drawn[s] = zero
		clear(t.vals[int(s)*ringSize : int(s+1)*ringSize])
	}
}

func (t *Track[T]) reset() {
	clear(t.vals)
	clear(t.drawn)
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

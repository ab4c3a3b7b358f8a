package tandem

import (
	"slices"
	"sync"
)

// observers is a list of functions that hear something (events, receipts),
// under a mutex of its own rather than the world's: a game adds one from
// any goroutine, inside a callback or another observer too. The list is
// never changed in place (each add or remove makes a new array), so a copy
// taken to call them stays as it was while one is added or removed.
type observers[T any] struct {
	mu   sync.Mutex
	fns  []func(T)
	ids  []uint64 // fns[i]'s, for remove
	next uint64
}

// add appends fn, which hears what comes after, and returns the function
// that removes it: from the next delivery on, it is not called. A delivery
// already under way (the one the removing observer is part of, or one on
// the simulation goroutine while another goroutine removes it) goes on with
// the list it began with, so it may be called once more. Removing twice is
// removing once.
func (o *observers[T]) add(fn func(T)) (remove func()) {
	o.mu.Lock()
	o.next++
	id := o.next
	o.fns = append(o.fns[:len(o.fns):len(o.fns)], fn)
	o.ids = append(o.ids[:len(o.ids):len(o.ids)], id)
	o.mu.Unlock()
	return func() { o.remove(id) }
}

// remove takes the observer of id out of the list, if it is in it.
func (o *observers[T]) remove(id uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i := slices.Index(o.ids, id)
	if i < 0 {
		return
	}
	o.fns = slices.Concat(o.fns[:i], o.fns[i+1:])
	o.ids = slices.Concat(o.ids[:i], o.ids[i+1:])
}

// list returns the observers as they are now, in the order added: the
// caller calls them without the list's mutex.
func (o *observers[T]) list() []func(T) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.fns
}

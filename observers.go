package tandem

import "sync"

// observers is a list of functions that hear something (events, receipts),
// under a mutex of its own rather than the world's: a game adds one from
// any goroutine, inside a callback or another observer too. The list is
// only ever appended to, into a new array each time, so a copy taken to call
// them stays as it was while one is added.
type observers[T any] struct {
	mu  sync.Mutex
	fns []func(T)
}

// add appends fn; it hears what comes after.
func (o *observers[T]) add(fn func(T)) {
	o.mu.Lock()
	o.fns = append(o.fns[:len(o.fns):len(o.fns)], fn)
	o.mu.Unlock()
}

// list returns the observers as they are now, in the order added: the
// caller calls them without the list's mutex.
func (o *observers[T]) list() []func(T) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.fns
}

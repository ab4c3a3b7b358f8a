package store

import (
	"bytes"
	"slices"
)

// Limits on what a Batch may hold, checked by Commit.
const (
	// MaxKeySize is the longest key, in bytes. Keys are 1 to MaxKeySize bytes.
	MaxKeySize = 1024
	// MaxValueSize is the longest value of one record, in bytes.
	MaxValueSize = 64 << 20
)

// A Batch is a set of puts and deletes committed together by World.Commit.
// Put and Delete copy their arguments, so the caller may reuse its buffers at
// once. When one key is put or deleted more than once, the last operation
// wins. The zero value is an empty batch ready to use.
//
// A Batch is not safe for concurrent use, and must not be changed while a
// Commit given it runs. Reset keeps its memory: a batch filled again with
// about as much allocates nothing.
type Batch struct {
	buf   []byte // keys and values, back to back
	ops   []op
	order []int32 // scratch: ops sorted by key, last of each key kept
	dirty bool    // order is stale
}

type op struct {
	key, val span
	del      bool
}

type span struct{ off, n int }

func (s span) of(buf []byte) []byte { return buf[s.off : s.off+s.n : s.off+s.n] }

// Put sets the record at key to value (copied). An empty value is a record
// holding nothing, not a delete.
func (b *Batch) Put(key, value []byte) {
	k := b.add(key)
	v := b.add(value)
	b.ops = append(b.ops, op{key: k, val: v})
	b.dirty = true
}

// Delete removes the record at key, if there is one.
func (b *Batch) Delete(key []byte) {
	b.ops = append(b.ops, op{key: b.add(key), del: true})
	b.dirty = true
}

func (b *Batch) add(p []byte) span {
	s := span{off: len(b.buf), n: len(p)}
	b.buf = append(b.buf, p...)
	return s
}

// Reset empties the batch, keeping its memory.
func (b *Batch) Reset() {
	b.buf = b.buf[:0]
	b.ops = b.ops[:0]
	b.order = b.order[:0]
	b.dirty = false
}

// Len returns how many operations were queued (a key put twice counts twice).
func (b *Batch) Len() int { return len(b.ops) }

// Size returns the bytes of keys and values queued.
func (b *Batch) Size() int { return len(b.buf) }

// Range calls fn with the batch's effective operations in key order: one per
// key, the last queued for it; value is nil for a delete. The slices are valid
// only during the call. Range stops at and returns fn's first error.
func (b *Batch) Range(fn func(key, value []byte, del bool) error) error {
	b.normalize()
	for _, i := range b.order {
		o := &b.ops[i]
		var v []byte
		if !o.del {
			v = o.val.of(b.buf)
		}
		if err := fn(o.key.of(b.buf), v, o.del); err != nil {
			return err
		}
	}
	return nil
}

// normalize sorts the operations by key, keeping the last one of each key.
func (b *Batch) normalize() {
	if !b.dirty {
		return
	}
	b.order = b.order[:0]
	for i := range b.ops {
		b.order = append(b.order, int32(i))
	}
	slices.SortStableFunc(b.order, func(x, y int32) int {
		return bytes.Compare(b.ops[x].key.of(b.buf), b.ops[y].key.of(b.buf))
	})
	kept := b.order[:0]
	for j, i := range b.order {
		if j+1 < len(b.order) && bytes.Equal(b.ops[i].key.of(b.buf), b.ops[b.order[j+1]].key.of(b.buf)) {
			continue // a later operation on the same key wins
		}
		kept = append(kept, i)
	}
	b.order = kept
	b.dirty = false
}

// check refuses a batch with a key or value out of bounds.
func (b *Batch) check() error {
	for i := range b.ops {
		o := &b.ops[i]
		if o.key.n == 0 || o.key.n > MaxKeySize {
			return invalidf("a key of %d bytes: keys are 1 to %d bytes", o.key.n, MaxKeySize)
		}
		if o.val.n > MaxValueSize {
			return invalidf("the value of key %q has %d bytes: at most %d fit in one record; split it over several keys", o.key.of(b.buf), o.val.n, MaxValueSize)
		}
	}
	return nil
}

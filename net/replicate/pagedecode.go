package replicate

// A join page's items are decoded from the page's bytes with an offset held
// in a local variable, not through a wire.Reader: a join brings every entity
// of the world, and the reader's call per value (its error checks, its
// offset kept in memory) made decoding two fifths of the instructions of a
// client applying a join. The rules are the reader's (PROTOCOL.md §1):
// canonical varints of at most 64 bits, and an image's values zig-zag coded
// within 32 bits. FuzzPageDecoders holds them to the reader's results.

// pageUvarint decodes the unsigned varint at b[i:]: its value and the offset
// after it, or next < 0 when it is truncated, longer than its shortest form
// or past 64 bits (or i < 0).
func pageUvarint(b []byte, i int) (v uint64, next int) {
	if i < 0 {
		return 0, -1
	}
	for k := 0; k < 10; k++ {
		if i >= len(b) {
			return 0, -1 // truncated
		}
		c := b[i]
		i++
		if k == 9 && c > 1 {
			return 0, -1 // past 64 bits
		}
		v |= uint64(c&0x7f) << (7 * k)
		if c < 0x80 {
			if c == 0 && k > 0 {
				return 0, -1 // not the shortest form
			}
			return v, i
		}
	}
	return 0, -1
}

// pageValue decodes the unsigned varint of at most 32 bits at b[i:]: its
// value and the offset after it, or next < 0 when it is truncated, longer
// than its shortest form or past 32 bits (or i < 0). Away from the end of b
// its bytes are read without a loop.
func pageValue(b []byte, i int) (v uint32, next int) {
	if i < 0 || i > len(b)-5 {
		return pageValueNearEnd(b, i)
	}
	p := b[i : i+5 : i+5]
	c := p[0]
	if c < 0x80 {
		return uint32(c), i + 1
	}
	v = uint32(c & 0x7f)
	c = p[1]
	v |= uint32(c&0x7f) << 7
	if c < 0x80 {
		if c == 0 {
			return 0, -1 // not the shortest form
		}
		return v, i + 2
	}
	c = p[2]
	v |= uint32(c&0x7f) << 14
	if c < 0x80 {
		if c == 0 {
			return 0, -1
		}
		return v, i + 3
	}
	c = p[3]
	v |= uint32(c&0x7f) << 21
	if c < 0x80 {
		if c == 0 {
			return 0, -1
		}
		return v, i + 4
	}
	c = p[4]
	if c == 0 || c > 0x0f {
		return 0, -1 // not the shortest form, or past 32 bits
	}
	return v | uint32(c)<<28, i + 5
}

// pageValueNearEnd is pageValue within five bytes of the end of b.
func pageValueNearEnd(b []byte, i int) (v uint32, next int) {
	u, next := pageUvarint(b, i)
	if u > 1<<32-1 {
		return 0, -1
	}
	return uint32(u), next
}

// pageHead decodes an item's head at b[i:]: its id, flags and owner, and the
// offset after them, or next < 0 when one does not decode.
func pageHead(b []byte, i int) (id, flags, owner uint64, next int) {
	a, j := pageValue(b, i)
	f, j := pageValue(b, j)
	o, j := pageValue(b, j)
	if j >= 0 {
		return uint64(a), uint64(f), uint64(o), j
	}
	// A value past 32 bits (refused by its item's checks), or one that
	// does not decode at all: the 64-bit rules tell which.
	id, i = pageUvarint(b, i)
	flags, i = pageUvarint(b, i)
	owner, i = pageUvarint(b, i)
	return id, flags, owner, i
}

// pageImage decodes len(q) zig-zag varints at b[i:] into q: the offset after
// them, or -1 when one is truncated, longer than its shortest form or past 32
// bits (a value that does not fit an int32), or i < 0.
func pageImage(b []byte, i int, q []int32) int {
	for k := range q {
		var u uint32
		if uint(i) < uint(len(b)) && b[i] < 0x80 {
			u, i = uint32(b[i]), i+1 // one byte: without a call
		} else if u, i = pageValue(b, i); i < 0 {
			return -1
		}
		q[k] = int32(u>>1) ^ -int32(u&1)
	}
	return i
}

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

// pageHead decodes an item's head at b[i:]: its id, flags and owner, and the
// offset after them, or next < 0 when one does not decode.
func pageHead(b []byte, i int) (id, flags, owner uint64, next int) {
	id, i = pageUvarint(b, i)
	flags, i = pageUvarint(b, i)
	owner, i = pageUvarint(b, i)
	return id, flags, owner, i
}

// pageImage decodes len(q) zig-zag varints at b[i:] into q: the offset after
// them, or -1 when one is truncated, longer than its shortest form or past 32
// bits (a value that does not fit an int32), or i < 0.
func pageImage(b []byte, i int, q []int32) int {
	if i < 0 {
		return -1
	}
	for k := range q {
		var u uint32
		for s := uint(0); ; s += 7 {
			if i >= len(b) {
				return -1 // truncated
			}
			c := b[i]
			i++
			if s == 28 && c > 0x0f {
				return -1 // past 32 bits, or longer than five bytes
			}
			u |= uint32(c&0x7f) << s
			if c < 0x80 {
				if c == 0 && s > 0 {
					return -1 // not the shortest form
				}
				break
			}
		}
		q[k] = int32(u>>1) ^ -int32(u&1)
	}
	return i
}

package replicate

import (
	"math"
	"math/bits"

	"github.com/tandem-go/tandem/net/wire"
)

// A State message's items are bit-packed (PROTOCOL.md §9.3): every number in
// them belongs to a stream, and each stream has its own code, chosen by the
// host once per send tick from what the streams carried the tick before and
// written at the head of every message. A code is an order-k Exp-Golomb
// code, optionally behind a zero flag (one bit: 0 for a zero, 1 before the
// code of the value minus one), for streams where zeros are common.
//
// Streams, in the order their codes are written:
//
//	0            id gaps: network id minus the previous item's, minus one
//	1            ages: host frames from an item's baseline to the message
//	2 … 2+F−1    residuals of field f (F: the registry's fields), zig-zag
//	2+F … 2+2F−1 absolute values of field f, zig-zag
const (
	streamID  = 0
	streamAge = 1
	// streamField is the first residual stream.
	streamField = 2
)

// maxStreams bounds the streams of any registry: two, then two per field.
const maxStreams = 2 + 2*MaxComponents*MaxFields

// maxOrder is the largest Exp-Golomb order a stream's code may have: five
// bits on the wire.
const maxOrder = 31

// code is one stream's code: zero flag and Exp-Golomb order.
type code struct {
	zero bool
	k    uint8
}

// put writes u in code c.
func (c code) put(w *wire.BitWriter, u uint64) {
	if c.zero {
		if u == 0 {
			w.WriteBits(0, 1)
			return
		}
		w.WriteBits(1, 1)
		u--
	}
	w.WriteExpGolomb(u, uint(c.k))
}

// write is put, with the common case (a code of at most 64 bits) in one
// write.
func (c code) write(w *wire.BitWriter, u uint64) {
	var flag uint64
	var fb uint
	if c.zero {
		if u == 0 {
			w.WriteBits(0, 1)
			return
		}
		flag, fb = 1, 1
		u--
	}
	// Every shift below is of less than 64 (the masks say so to the
	// compiler) when the code fits 64 bits, the only case taken here.
	k := uint(c.k) & 63
	v := u + 1<<k
	l := uint(bits.Len64(v)-1) & 63
	q := (l - k) & 63
	if n := 2*q + 1 + k + fb; n <= 64 && v >= u {
		w.WriteBits(((v&(1<<l-1))<<((q+1)&63)|1<<q)<<fb|flag, n)
		return
	}
	c.put(w, u+uint64(fb)) // a long code: the general path
}

// word returns u (below 2^63) in code c as the bits it writes, and their
// count; a count of 0 when the code takes more than 64 bits (a long
// prefix), which put writes.
func (c code) word(u uint64) (uint64, uint) {
	flag := uint64(0)
	if c.zero {
		if u == 0 {
			return 0, 1
		}
		flag = 1
		u--
	}
	// Every shift is of less than 64 (the masks say so to the compiler)
	// when the code fits 64 bits, the only case returned.
	k := uint(c.k) & 63
	y := u + 1<<k
	top := uint(bits.Len64(y)-1) & 63
	q := (top - k) & 63
	if l := 2*q + 1 + k + uint(flag); l <= 64 {
		return ((y&(1<<top-1))<<((q+1)&63)|1<<q)<<flag | flag, l
	}
	return 0, 0
}

// get reads a value in code c.
func (c code) get(r *wire.BitReader) uint64 {
	if c.zero {
		if !r.ReadBool() {
			return 0
		}
		u := r.ReadExpGolomb(uint(c.k))
		if u == 1<<64-1 {
			r.Fail(wire.ErrOverflow)
			return 0
		}
		return u + 1
	}
	return r.ReadExpGolomb(uint(c.k))
}

// codeBook is the code of every stream for one send tick.
type codeBook struct {
	n     int // streams in use by the registry
	codes [maxStreams]code
}

// streamSet is a set of streams, one bit each.
type streamSet [(maxStreams + 63) / 64]uint64

func (s *streamSet) add(i int)      { s[i>>6] |= 1 << (uint(i) & 63) }
func (s *streamSet) has(i int) bool { return s[i>>6]&(1<<(uint(i)&63)) != 0 }

// writeHeader writes the code block: per stream, whether the message uses
// it, and if so its zero flag and order (five bits).
func (b *codeBook) writeHeader(w *wire.BitWriter, used *streamSet) {
	for i := 0; i < b.n; i++ {
		if !used.has(i) {
			w.WriteBits(0, 1)
			continue
		}
		c := b.codes[i]
		v := uint64(1) | uint64(c.k)<<2
		if c.zero {
			v |= 2
		}
		w.WriteBits(v, 7)
	}
}

// readHeader reads a code block; streams the message does not use get an
// invalid code, so an item that uses one anyway fails.
func (b *codeBook) readHeader(r *wire.BitReader, n int, used *streamSet) {
	b.n = n
	*used = streamSet{}
	for i := range n {
		if !r.ReadBool() {
			continue
		}
		used.add(i)
		b.codes[i] = code{zero: r.ReadBool(), k: uint8(r.ReadBits(5))}
	}
}

// statsEvery is how often, in send ticks, the streams' values are counted
// for choosing the codes: the distributions move slowly, counting costs.
const statsEvery = 4

// streamStats gathers, per stream, what one send tick's items carried, so
// the next tick's codes fit it: counts by bit length of the value (for the
// plain code) and of the value minus one (for the zero-flagged code), and the
// zeros.
type streamStats struct {
	plain [maxStreams][65]uint32
	flag  [maxStreams][65]uint32
	zeros [maxStreams]uint32
	count [maxStreams]uint32
	top   [maxStreams]uint8 // the largest bit length counted
}

func (s *streamStats) add(stream int, u uint64) {
	s.count[stream]++
	b := bits.Len64(u)
	s.plain[stream][b]++
	if uint8(b) > s.top[stream] {
		s.top[stream] = uint8(b)
	}
	if u == 0 {
		s.zeros[stream]++
	} else {
		s.flag[stream][bits.Len64(u-1)]++
	}
}

// choose returns the code that would have taken the fewest bits for a
// stream's values, by the expected size of the values in each bit-length
// class (taken as spread evenly over the class), and halves the counts so
// older ticks weigh less. Orders near the median bit length are tried, with
// and without the zero flag. A stream with no values keeps its code.
func (s *streamStats) choose(stream int, old code) code {
	n := s.count[stream]
	if n == 0 {
		return old
	}
	plain, flag := &s.plain[stream], &s.flag[stream]
	med, seen := 0, uint32(0)
	for b, c := range plain {
		seen += c
		if 2*seen >= n {
			med = b
			break
		}
	}
	top := int(s.top[stream])
	best, bestCost := old, costOf(plain[:top+1], uint(old.k), false, 0)
	if old.zero {
		bestCost = costOf(flag[:top+1], uint(old.k), true, s.zeros[stream])
	}
	for k := max(med-3, 0); k <= min(med, maxOrder); k++ {
		if c := costOf(plain[:top+1], uint(k), false, 0); c < bestCost {
			best, bestCost = code{k: uint8(k)}, c
		}
		if c := costOf(flag[:top+1], uint(k), true, s.zeros[stream]); c < bestCost {
			best, bestCost = code{zero: true, k: uint8(k)}, c
		}
	}
	newTop := 0
	for i := range plain[:top+1] {
		plain[i] /= 2
		flag[i] /= 2
		if plain[i] != 0 || flag[i] != 0 {
			newTop = i
		}
	}
	s.top[stream] = uint8(newTop)
	s.zeros[stream] /= 2
	s.count[stream] /= 2
	return best
}

// costOf is the expected bits of the order-k code for values counted by bit
// length in h; flagged adds the zero flag: a bit per value, and the zeros at
// one bit each. A value of bit length b ≤ k takes k+1 bits; above k, 2b−1−k,
// and two more for the part of its class (2^(k−b+1) of it) that carries into
// bit length b+1.
func costOf(h []uint32, k uint, flagged bool, zeros uint32) float64 {
	c, n := 0.0, 0.0
	for b, cnt := range h {
		if cnt == 0 {
			continue
		}
		f := float64(cnt)
		n += f
		if uint(b) <= k {
			c += f * float64(k+1)
			continue
		}
		c += f * (float64(2*uint(b)-1-k) + math.Ldexp(1, int(k)-b+2))
	}
	if flagged {
		c += n + float64(zeros)
	}
	return c
}

// codePrefixes is how many prefixes a code's table holds: the values below
// codePrefixes·2^k of an order-k code.
const codePrefixes = 32

// codeTable is one code's words of its smaller values. The order-k
// Exp-Golomb word of u (PROTOCOL.md §1), as written, is q zero bits, a
// one, the k low bits of u, then the q low bits of m+1, where m = u>>k and
// q is the bit length of m+1 less one; behind a zero flag, a one first.
// An entry keeps, for one m, the word without u's k low bits, where those
// go, and the word's length.
type codeTable struct {
	zero bool
	k    uint8
	low  uint64 // the k low bits
	pre  [codePrefixes]codePrefix
}

type codePrefix struct {
	word uint64
	at   uint8 // where the k low bits of u go
	len  uint8
}

// word returns u in the table's code as the bits it writes and their
// count, or a count of 0 when u is beyond the table.
func (t *codeTable) word(u uint64) (uint64, uint) {
	if t.zero {
		if u == 0 {
			return 0, 1
		}
		u--
	}
	m := u >> (t.k & 63)
	if m >= codePrefixes {
		return 0, 0
	}
	e := &t.pre[m]
	return e.word | (u&t.low)<<(e.at&63), uint(e.len)
}

// codeTables makes each code's table once, when a field first needs it.
type codeTables [2][maxOrder + 1]*codeTable

// of returns code c's table.
func (t *codeTables) of(c code) *codeTable {
	z := 0
	if c.zero {
		z = 1
	}
	tab := t[z][c.k]
	if tab == nil {
		k := uint(c.k)
		tab = &codeTable{zero: c.zero, k: c.k, low: 1<<k - 1}
		for m := range tab.pre {
			v := uint64(m) + 1
			q := uint(bits.Len64(v)) - 1
			word := uint64(1)<<q | (v&(1<<q-1))<<(q+1+k)
			e := codePrefix{word: word, at: uint8(q + 1), len: uint8(2*q + 1 + k)}
			if c.zero {
				e.word, e.at, e.len = e.word<<1|1, e.at+1, e.len+1
			}
			tab.pre[m] = e
		}
		t[z][c.k] = tab
	}
	return tab
}

package conn

import "github.com/tandem-go/tandem/net/wire"

// tokenRing keeps the tokens of the packets sent and not yet passed by the
// floor, back to back in packet order, in one buffer that is reused: packets
// are released oldest first (as the floor advances), so the free space is
// one circular gap. It grows (a rare allocation) only when the packets in
// flight carry more tokens than it ever held.
type tokenRing struct {
	buf     []Token
	head    int  // where the next packet's tokens go
	tail    int  // where the tokens of the packet at the floor start
	wrapped bool // head has wrapped around and lies before tail
}

const initialTokens = 1024

// reserveTokens returns where n tokens of the packet about to be sent go,
// growing the ring if needed.
func (c *Conn) reserveTokens(n int) int {
	r := &c.toks
	if n == 0 {
		return r.head
	}
	if !r.wrapped {
		if r.head+n <= len(r.buf) {
			s := r.head
			r.head += n
			return s
		}
		if n < r.tail {
			r.wrapped = true
			r.head = n
			return 0
		}
	} else if r.head+n < r.tail {
		s := r.head
		r.head += n
		return s
	}
	c.growTokens(n)
	s := r.head
	r.head += n
	return s
}

// growTokens moves the tokens of the packets from the floor on to the start
// of a larger buffer with room for n more.
func (c *Conn) growTokens(n int) {
	r := &c.toks
	nb := make([]Token, max(2*len(r.buf), 2*n, initialTokens))
	pos := 0
	for pn := c.floor; pn != c.next; pn++ {
		s := &c.sent[pn%wire.AckWindow]
		copy(nb[pos:], r.buf[s.tokStart:s.tokStart+s.tokLen])
		s.tokStart = pos
		pos += s.tokLen
	}
	r.buf, r.head, r.tail, r.wrapped = nb, pos, 0, false
}

// releaseTokens frees the tokens of the packets below the floor.
func (c *Conn) releaseTokens() {
	r := &c.toks
	if c.floor == c.next {
		r.head, r.tail, r.wrapped = 0, 0, false
		return
	}
	t := c.sent[c.floor%wire.AckWindow].tokStart
	if r.wrapped && t <= r.head {
		r.wrapped = false
	}
	r.tail = t
}

// tokensOf returns the tokens of a sent packet, capped so that appending to
// the slice cannot overwrite the ring.
func (c *Conn) tokensOf(s *sentPacket) []Token {
	return c.toks.buf[s.tokStart : s.tokStart+s.tokLen : s.tokStart+s.tokLen]
}

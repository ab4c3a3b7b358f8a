package replicate

import "github.com/tandem-go/tandem/net/wire"

// commonBase is the baseline of the common head of a peer's States in one
// send tick (PROTOCOL.md §9.3): the image of each entity the peer holds
// newest (age 0), as the items of a peer that acknowledges a State before
// the next is sent have; or, for a peer whose States are in flight when
// the next goes (a link with latency), the image of the newest State it
// acknowledged, age frames back, against which its moving entities are
// coded: their items then take one bit of head, not an explicit head of
// ten or more (a kind, a baseline's age, a mask). Each send tick takes the
// baseline that the last one's due items with the common mask had more
// often (heads), the acked State's image only for minAgedHeads of them or
// more (its age costs each message a dozen bits of head); a peer with none
// keeps its choice.
type commonBase struct {
	age   uint32 // 0: the newest image; else frame − age, the acked State's
	acked uint32 // the frame of the newest State the peer acknowledged
	aged  bool   // the last send tick's due items favoured the acked State's image
	bits  int    // what the base takes in a message's head, in bits
}

// minAgedHeads is the fewest due items coded against the acked State's
// image in a send tick for the next to take it as its common base.
const minAgedHeads = 4

// chooseBase sets the peer's common base for this send tick from what the
// last one's due items had (pk.heads), and starts counting this one's.
func (p *HostPeer) chooseBase() {
	h := p.h
	ps := &p.pk
	if n := ps.heads; n[0]+n[1] > 0 {
		p.base.aged = n[1] > n[0] && n[1] >= minAgedHeads
	}
	ps.heads = [2]int32{}
	b := &p.base
	b.age, b.bits = 0, 1
	if b.aged && b.acked != 0 && b.acked < h.frame {
		b.age = h.frame - b.acked
		b.bits = 1 + p.ageWordBits(uint64(b.age))
	}
}

// ageWordBits is what age takes in the tick's code of ages.
func (p *HostPeer) ageWordBits(age uint64) int {
	if _, k := p.h.book.codes[streamAge].word(age); k > 0 {
		return int(k)
	}
	return 64 // a long code
}

// common reports whether an item with head hd has the common head of the
// peer's States this send tick: an update with the common mask, no
// teleport, against the common base.
func (p *HostPeer) common(hd *head) bool {
	if hd.kind != 0 || hd.mask != p.h.common || hd.snap != 0 {
		return false
	}
	if p.base.age == 0 {
		return hd.flags == bodyNewest
	}
	return hd.flags&bodyAbsolute == 0 && hd.base == p.h.frame-p.base.age
}

// countHead counts a due item's head toward the next send tick's common
// base: an update with the common mask and no teleport, by its baseline.
func (p *HostPeer) countHead(hd *head) {
	if hd.kind != 0 || hd.mask != p.h.common || hd.snap != 0 || hd.flags&bodyAbsolute != 0 {
		return
	}
	if hd.flags&bodyNewest != 0 {
		p.pk.heads[0]++
	}
	if hd.base == p.base.acked {
		p.pk.heads[1]++
	}
}

// writeBase writes the common base of a State's head: 1 for the newest
// image, else 0 and the age in the tick's code of ages (stream 1, which
// the message then announces).
func (h *HostReplicator) writeBase(w *wire.BitWriter, age uint32) {
	if age == 0 {
		w.WriteBits(1, 1)
		return
	}
	w.WriteBits(0, 1)
	h.book.codes[streamAge].write(w, uint64(age))
}

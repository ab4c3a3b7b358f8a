package replicate

import (
	"encoding/binary"
	"math/bits"

	"github.com/tandem-go/tandem/net/wire"
)

// An item of a State message is its id gap, its head (kind, baseline,
// component mask) and its fields (PROTOCOL.md §9.3). The fields of an
// entity's item depend only on the entity's image, the baseline they are
// coded against and the send tick's codes: where the fields' size must be
// known before the item is chosen (a peer short of budget), they are encoded
// once per send tick and baseline into an arena, and every peer with that
// baseline copies the bits.

// Explicit heads of State items, as written (least significant bit first),
// after the "0" that says an item does not have the message's common head.
const (
	kindUpdate      = 0b0   // "0"
	kindUpdateBits  = 1     //
	kindSpawn       = 0b01  // "1" then "0"; owner, mask, then "0", or "1" and the snap age of a teleport its pose is of
	kindSpawnBits   = 2     //
	kindRemoval     = 0b011 // "1", "1", "0"
	kindRemovalBits = 3
	kindSnap        = 0b111 // "1", "1", "1": an update whose pose is of a teleport, snap-age first
	kindSnapBits    = 3
	snapAgeBits     = 7 // the snap age, 0 … snapWindow−1 (a spawn's, after its mask and a "1")
)

// Head flags of an update.
const (
	bodyNewest   = 1 << iota // coded against the newest image the peer holds (no age)
	bodyAbsolute             // no baseline: every component's image
	bodySpawn                // a spawn: owner, then every component's image
)

// head is what an item says before its fields, decided per peer.
type head struct {
	kind  uint8  // itemSpawn, itemDespawn or 0 (update)
	flags uint8  // bodyNewest, bodyAbsolute, bodySpawn
	mask  uint16 // components it carries
	nd    uint16 // components that are not delta-coded riding in it
	base  uint32 // baseline frame (0: none)
	snap  uint8  // an update or spawn carrying the pose of a teleport: its age + 1; 0: none
}

// encoding is one entity's item fields encoded this send tick.
type encoding struct {
	next int32  // the entity's next encoding this tick + 1; 0: none
	base uint32 // baseline frame (0: absolute or spawn)
	off  uint32 // byte offset in the arena
	bits uint32 // length in bits
	nd   uint16
	flag uint8
}

// encoder is a send tick's shared item fields: bit strings in one arena,
// each starting at a byte, found per entity through its entState.
type encoder struct {
	h     *HostReplicator
	arena []byte
	encs  []encoding
	w     wire.BitWriter
}

func (enc *encoder) reset() {
	enc.arena = enc.arena[:0]
	enc.encs = enc.encs[:0]
}

// find returns the index of the entity's encoding for hd, encoding it if
// this tick has none, and whether another peer's was found.
func (enc *encoder) find(slot int32, hd *head, bimg []int32, bhas uint16) (int32, bool) {
	h := enc.h
	e := &h.ents[slot]
	if e.ctick == h.tick {
		for i := e.cache - 1; i >= 0; i = enc.encs[i].next - 1 {
			x := &enc.encs[i]
			if x.flag == hd.flags && x.base == hd.base && x.nd == hd.nd {
				return i, true
			}
		}
	} else {
		e.ctick = h.tick
		e.cache = 0
	}
	idx := int32(len(enc.encs))
	enc.encs = append(enc.encs, encoding{next: e.cache, base: hd.base, nd: hd.nd, flag: hd.flags})
	e.cache = idx + 1
	x := &enc.encs[idx]
	x.off = uint32(len(enc.arena))
	enc.w.Reset(enc.arena)
	h.writeFields(&enc.w, slot, hd, bimg, bhas)
	x.bits = uint32(enc.w.BitLen() - 8*int(x.off))
	// Eight bytes of slack, so copyBits can always load a word.
	buf := enc.w.Finish()
	n := len(buf)
	enc.arena = append(buf, 0, 0, 0, 0, 0, 0, 0, 0)[:n]
	return idx, false
}

// put writes u in stream s's code of the tick (and on every statsEvery-th
// tick counts it for the next codes).
func (h *HostReplicator) put(w *wire.BitWriter, s int, u uint64) {
	if h.tick%statsEvery == 0 {
		h.stats.add(s, u)
	}
	h.book.codes[s].write(w, u)
}

// absoluteFields writes component c's image absolute.
func (h *HostReplicator) absoluteFields(w *wire.BitWriter, c int, img []int32) {
	reg := h.reg
	s := streamField + reg.fields + reg.offset[c]
	for i, v := range img[reg.offset[c]:][:reg.comps[c].fields] {
		h.put(w, s+i, wire.ZigZag(int64(v)))
	}
}

// writeFields writes an item's fields: for a spawn or an update without a
// baseline every component of the mask absolute; otherwise each delta-coded
// component as residuals against bimg (the change, less the motion the
// velocities predict for a Motion's pose) and the others absolute.
func (h *HostReplicator) writeFields(w *wire.BitWriter, slot int32, hd *head, bimg []int32, bhas uint16) {
	reg := h.reg
	cur := h.image(slot)
	if hd.flags&(bodySpawn|bodyAbsolute) != 0 {
		for _, c := range reg.order {
			if hd.mask&(1<<c) != 0 {
				h.absoluteFields(w, c, cur)
			}
		}
		return
	}
	mp := &h.mplans[h.mlast%maskPlans]
	fields := mp.fields
	if !mp.ok || mp.mask != hd.mask {
		fields = h.fieldsOf(hd.mask)
	}
	pr := &h.pred
	predict := pr.on && bhas&pr.velBit != 0
	count := h.tick%statsEvery == 0
	dc := &h.dc
	if dc.moving = pr.moving(bhas, hd.mask, cur, bimg); dc.moving {
		pr.predict(&dc.mo, cur, bimg, h.frame-hd.base)
	}
	if acc, n, ok := deltaWord(0, 0, fields, h.pairOf(slot, bimg), dc); ok {
		if count {
			h.stats.addFields(fields, h.codes)
		}
		w.WriteBits(acc, n)
		return
	}
	us := h.codes[:len(fields):len(fields)]
	residuals(us, fields, cur, bimg)
	if predict {
		predictResiduals(pr, us, fields, cur, bimg, h.frame-hd.base)
	}
	if count {
		for i, u := range us {
			h.stats.add(int(fields[i].stream), u)
		}
	}
	writeCodes(w, us, fields)
}

// addFields counts the values us of an item's fields for the next codes.
func (s *streamStats) addFields(fields []fieldPlan, us []uint64) {
	us = us[:len(fields)]
	for i := range fields {
		s.add(int(fields[i].stream), us[i])
	}
}

// pairOf returns the current image of the entity in slot with bimg right
// after it, within the slice's capacity, for deltaWord: the shared images
// when bimg is the previous image (kept there), else a copy of both.
func (h *HostReplicator) pairOf(slot int32, bimg []int32) []int32 {
	nf := h.reg.fields
	at := int(slot) * 2 * nf
	pair := h.img[at : at+nf : at+2*nf]
	if &bimg[0] == &h.img[at+nf] {
		return pair
	}
	buf := h.pair[: 2*nf : 2*nf]
	copy(buf, pair)
	copy(buf[nf:], bimg)
	return buf[:nf]
}

// deltaContext is what deltaWord reads besides the images: the motion the
// velocities predict of a Motion's pose (when moving), and where the values
// coded go (for the streams' counts). The host keeps one (h.dc), so that
// nothing of it is made or cleared an item.
type deltaContext struct {
	moving bool
	mo     motions
	us     []uint64
}

// motions is the motion the velocities predict of each field of a Motion's
// pose over an item's delta (predictor.predict); zero where none is. (Its
// fourth is never set: an index masked to two bits needs no check.)
type motions [4]int64

// moving reports whether an update of mask, against a baseline whose
// components are bhas, has a pose whose motion the velocities of cur and
// bimg predict: the pose travels and both velocities are there, and they
// do not cancel each other (a body at rest, or one set moving by a push).
// Small enough to inline before predict.
func (p *predictor) moving(bhas, mask uint16, cur, bimg []int32) bool {
	if bhas&p.velBit == 0 || mask&p.poseBit == 0 { // both 0 when off
		return false
	}
	v := p.vel
	c, b := cur[v:v+3:v+3], bimg[v:v+3:v+3]
	return c[0] != -b[0] || c[1] != -b[1] || c[2] != -b[2]
}

// predict sets mo to the motion of each pose field over age frames.
func (p *predictor) predict(mo *motions, cur, bimg []int32, age uint32) {
	v := p.vel
	c, b := cur[v:v+3:v+3], bimg[v:v+3:v+3]
	for i := range 3 {
		mo[i] = p.motion(i, b[i], c[i], age)
	}
}

// deltaWord appends to the n bits of acc the codes of an update's fields
// against its baseline (less the predicted motion for a Motion's pose), and
// reports whether they fit: not when a field changed by more than a turn of
// its wrap, a change or residual passes 32 bits, or the word 64 bits; writeFields' general path writes those. pair is the current image,
// with the baseline right after it within its capacity (pairOf); the values
// coded go to dc.us, for the streams' counts. Its loop calls nothing.
func deltaWord(acc uint64, n uint, fields []fieldPlan, pair []int32, dc *deltaContext) (uint64, uint, bool) {
	cur, bimg := pair, pair[len(pair):2*len(pair)]
	moving, mo := dc.moving, &dc.mo
	us := dc.us[:len(fields)]
	for i := range fields {
		f := &fields[i]
		v := cur[f.off]
		if f.delta {
			b := bimg[f.off]
			if d := int64(v) - int64(b); d != int64(int32(d)) {
				return acc, n, false // past 32 bits
			}
			v -= b
			if m := f.wrap; m > 0 {
				if v <= -m || v >= m {
					return acc, n, false
				}
				if v >= m/2 {
					v -= m
				} else if v < -m/2 {
					v += m
				}
			}
			if f.vel >= 0 && moving {
				if m := mo[f.field&3]; m != 0 {
					d := int64(v) - m
					if f.wrap > 0 {
						d = int64(wrapDiff(int32(int64(v)-m%int64(f.wrap)), 0, f.wrap))
					}
					if d != int64(int32(d)) {
						return acc, n, false
					}
					v = int32(d)
				}
			}
		}
		u := wire.ZigZag(int64(v))
		us[i] = u
		x, l := f.table.word(u)
		if l == 0 {
			// Beyond the table: the code's word computed (code.word, by
			// hand, so that the loop calls nothing).
			c := f.code
			var flag uint64
			if c.zero {
				flag = 1
				u--
			}
			k := uint(c.k) & 63
			y := u + 1<<k
			top := uint(bits.Len64(y)-1) & 63
			q := (top - k) & 63
			x, l = ((y&(1<<top-1))<<((q+1)&63)|1<<q)<<flag|flag, 2*q+1+k+uint(flag)
		}
		if n+l > 64 {
			return acc, n, false
		}
		acc |= x << (n & 63)
		n += l
	}
	return acc, n, true
}

// residuals sets us[i] to field i of the plan, zig-zagged: its change from
// bimg when it is delta-coded (the short way round when it wraps), else its
// value in cur.
func residuals(us []uint64, fields []fieldPlan, cur, bimg []int32) {
	for i := range us {
		f := &fields[i]
		if f.delta {
			us[i] = wire.ZigZag(fieldDiff(cur[f.off], bimg[f.off], f.wrap))
			continue
		}
		us[i] = wire.ZigZag(int64(cur[f.off]))
	}
}

// predictResiduals takes from the residuals of a Motion's pose fields the
// motion the baseline's and the new velocities predict over age frames.
func predictResiduals(pr *predictor, us []uint64, fields []fieldPlan, cur, bimg []int32, age uint32) {
	for i := range us {
		f := &fields[i]
		if f.vel < 0 || !f.delta {
			continue
		}
		vb, vc := bimg[f.vel], cur[f.vel]
		if vb == -vc {
			continue // no motion predicted
		}
		d := wire.UnZigZag(us[i])
		us[i] = wire.ZigZag(predictedResidual(pr, int(f.field), d, vb, vc, age, f.wrap))
	}
}

// writeCodes writes us[i] in the code of field i of the plan. The codes
// gather in a word, which goes to w when the next code would overflow it:
// one write for most items.
func writeCodes(w *wire.BitWriter, us []uint64, fields []fieldPlan) {
	var acc uint64
	var n uint
	for i, u := range us {
		x, l := fields[i].table.word(u)
		if l == 0 {
			w.WriteBits(acc, n)
			acc, n = 0, 0
			fields[i].code.write(w, u)
			continue
		}
		if n+l > 64 {
			w.WriteBits(acc, n)
			acc, n = 0, 0
		}
		acc |= x << (n & 63)
		n += l
	}
	w.WriteBits(acc, n)
}

// compPlan is one component's fields in the field plan, in item order.
type compPlan struct {
	bit      uint16
	from, to int32
}

// fieldPlan is one field of an item, in item order, with what writing it
// needs.
type fieldPlan struct {
	off    int32 // in the image
	vel    int32 // for a Motion's pose field: the offset of its velocity field; else -1
	wrap   int32
	stream uint16     // its residual stream, or its absolute one when not delta-coded
	code   code       // the stream's code this send tick (setCodes)
	table  *codeTable // code's words for small values
	field  uint8      // its index in its component
	delta  bool
}

// setCodes copies the tick's code of each field's stream into the plan,
// and drops the plans of masks made with other codes.
func (h *HostReplicator) setCodes() {
	changed := false
	for i := range h.plan {
		if c := h.book.codes[h.plan[i].stream]; h.plan[i].code != c || h.plan[i].table == nil {
			h.plan[i].code = c
			h.plan[i].table = h.tables.of(c)
			changed = true
		}
	}
	if changed {
		for i := range h.mplans {
			h.mplans[i].ok = false
		}
		h.cmn.ok = false
	}
}

// maskPlans is how many masks' field plans the encoder keeps.
const maskPlans = 4

// maskPlan is the field plan of the components of one mask, its array
// made to hold every field (makePlan), so it never grows.
type maskPlan struct {
	mask   uint16
	ok     bool // made with this tick's codes
	fields []fieldPlan
}

// fieldsOf returns the plan of the fields of the components in mask, in
// item order. The plans of the last few masks are kept (mlast the one
// returned last, which writeFields looks at first): a tick's items mostly
// share one or two.
func (h *HostReplicator) fieldsOf(mask uint16) []fieldPlan {
	for i := range h.mplans {
		if mp := &h.mplans[i]; mp.ok && mp.mask == mask {
			h.mlast = uint8(i)
			return mp.fields
		}
	}
	h.mlast = h.mnext % maskPlans
	mp := &h.mplans[h.mlast]
	h.mnext++
	h.fill(mp, mask)
	return mp.fields
}

// fill makes mp the plan of the components in mask.
func (h *HostReplicator) fill(mp *maskPlan, mask uint16) {
	mp.mask, mp.ok, mp.fields = mask, true, mp.fields[:0]
	for _, cp := range h.cplan {
		if mask&cp.bit != 0 {
			mp.fields = append(mp.fields, h.plan[cp.from:cp.to]...)
		}
	}
}

// commonPlan returns the plan of the send tick's common mask, kept apart
// from the others (fieldsOf's may be made again while it is in use).
func (h *HostReplicator) commonPlan() []fieldPlan {
	if mp := &h.cmn; !mp.ok || mp.mask != h.common {
		h.fill(mp, h.common)
	}
	return h.cmn.fields
}

// makePlan lists the fields of the registry in item order.
func (h *HostReplicator) makePlan() {
	reg := h.reg
	for _, c := range reg.order {
		comp := &reg.comps[c]
		for i := range comp.fields {
			off := reg.offset[c] + i
			f := fieldPlan{off: int32(off), vel: -1, stream: uint16(streamField + off), wrap: comp.wrap[i], delta: comp.delta, field: uint8(i)}
			if !comp.delta {
				f.stream += uint16(reg.fields)
			}
			if reg.motion != nil && c == int(reg.motion.Pose) {
				f.vel = int32(reg.offset[reg.motion.Velocity] + i)
			}
			h.plan = append(h.plan, f)
		}
		h.cplan = append(h.cplan, compPlan{bit: 1 << c, from: int32(len(h.plan) - comp.fields), to: int32(len(h.plan))})
	}
	for i := range h.mplans {
		h.mplans[i].fields = make([]fieldPlan, 0, len(h.plan))
	}
	h.cmn.fields = make([]fieldPlan, 0, len(h.plan))
}

// deltaMask returns the components an update against bimg (kept at ref)
// carries: the delta-coded ones that differ from it, and nd.
func (h *HostReplicator) deltaMask(slot int32, ref int32, bimg []int32, nd uint16) uint16 {
	reg := h.reg
	e := &h.ents[slot]
	mask := nd & e.has
	switch ref {
	case refCurrent:
		return mask
	case refPrev:
		return mask | e.dprev
	}
	cur := h.image(slot)
	for c := range reg.comps {
		bit := uint16(1) << c
		if reg.delta&bit == 0 || e.has&bit == 0 {
			continue
		}
		off, n := reg.offset[c], reg.comps[c].fields
		if !equalImage(cur[off:off+n], bimg[off:off+n]) {
			mask |= bit
		}
	}
	return mask
}

// predictedResidual returns the change d of pose field i less the motion
// the velocities vb (baseline) and vc (new) predict over age frames, the
// short way round for a wrapping field.
func predictedResidual(pr *predictor, i int, d int64, vb, vc int32, age uint32, wrap int32) int64 {
	m := pr.motion(i, vb, vc, age)
	if m == 0 {
		return d
	}
	if wrap > 0 {
		return int64(wrapDiff(int32(d-m%int64(wrap)), 0, wrap))
	}
	return d - m
}

// copyBits appends n bits of src, from byte off, to w. src must hold eight
// bytes from off on when n is at most 64.
func copyBits(w *wire.BitWriter, src []byte, off uint32, n uint32) {
	p := src[off:]
	if n <= 64 && len(p) >= 8 {
		w.WriteBits(binary.LittleEndian.Uint64(p), uint(n))
		return
	}
	for n >= 64 {
		w.WriteBits(binary.LittleEndian.Uint64(p), 64)
		p = p[8:]
		n -= 64
	}
	if n == 0 {
		return
	}
	var v uint64
	for i := 0; i < int(n+7)/8; i++ {
		v |= uint64(p[i]) << (8 * i)
	}
	w.WriteBits(v, uint(n))
}

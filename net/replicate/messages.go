package replicate

import (
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// Writing a send tick's chosen items into State messages (PROTOCOL.md §9.3)
// and handing them to the peer's connection with the records their
// delivery notices settle.

// write writes the chosen items (in network-id order) into State messages
// and hands them to the connection. A peer whose items are exactly the
// previous peer's this send tick gets the same bytes.
func (p *HostPeer) write() {
	ps := &p.pk
	if len(ps.picks) == 0 {
		return
	}
	h := p.h
	picks := ps.picks
	last := &h.lastMsgs
	reuse := last.tick == h.tick && last.age == p.base.age && samePicks(last.picks, picks)
	if !reuse {
		last.tick, last.age = h.tick, p.base.age
		last.picks = last.picks[:0]
		if h.keepPicks {
			last.picks = append(last.picks, picks...)
		}
		last.bytes = last.bytes[:0]
		last.ends = last.ends[:0]
		last.counts = last.counts[:0]
		p.writeMessages(picks)
	}
	if reuse {
		p.stats.Reused += uint64(len(last.counts))
	}
	spent := 0
	from := 0
	for m, n := range last.counts {
		body := last.bytes[from:last.ends[m]]
		from = last.ends[m]
		spent += p.send(picks[:n], body)
		picks = picks[n:]
	}
	p.tokens -= uint32(min(spent, int(p.tokens)))
}

// sentMessages are the State messages of the last peer written this send
// tick, and the picks they carry (kept only while another peer packs after
// it this tick).
type sentMessages struct {
	tick   uint32
	age    uint32 // their common base (commonBase.age)
	picks  []pick
	bytes  []byte
	ends   []int
	counts []int
}

func samePicks(a, b []pick) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].id != b[i].id || a[i].head != b[i].head {
			return false
		}
	}
	return true
}

// maskTally counts, for a send tick, the component masks that updates of
// the tick's changes against the image each replaced carry, for the common
// mask of every peer's messages: the first four masks met, each with its
// count. Counted once for all peers (prepareTick), it names the mask most
// updates against a peer's newest image carry when the peer acknowledges
// what it is sent; any mask is valid on the wire.
type maskTally struct {
	masks  [4]uint16
	counts [4]int32
}

// add counts mask if it is among the first four met.
func (t *maskTally) add(mask uint16) {
	for k := range t.masks {
		if t.counts[k] == 0 || t.masks[k] == mask {
			t.masks[k] = mask
			t.counts[k]++
			return
		}
	}
}

// common returns the tallied mask with the largest count (the first met on
// a tie; 0 with none): updates against the newest image without a teleport
// that carry it need only one bit of head.
func (t *maskTally) common() uint16 {
	best := 0
	for k := range t.counts {
		if t.counts[k] > t.counts[best] {
			best = k
		}
	}
	return t.masks[best]
}

// writeMessages writes picks into State messages of at most MaxStatePayload
// bytes, into h.lastMsgs.
func (p *HostPeer) writeMessages(picks []pick) {
	h := p.h
	ps := &p.pk
	common := h.common
	limit := 8*MaxStatePayload - messageHeaderBits - 7*h.book.n - len(h.reg.comps) - p.base.bits
	start := 0
	ps.items.Reset(ps.buf[:0])
	idCode := h.book.codes[streamID]
	var prev ecs.NetID
	for i := range picks {
		pk := &picks[i]
		mark := ps.items.BitLen()
		p.writeItem(&ps.items, pk, prev, common, idCode)
		if ps.items.BitLen() > limit && i > start {
			ps.items.Truncate(mark)
			p.finishMessage(picks[start:i], common, mark)
			start = i
			ps.items.Reset(ps.buf)
			p.writeItem(&ps.items, pk, 0, common, idCode)
		}
		prev = pk.id
	}
	p.finishMessage(picks[start:], common, ps.items.BitLen())
}

// writeItem writes one item: its id gap from prev, its head, its fields.
func (p *HostPeer) writeItem(w *wire.BitWriter, pk *pick, prev ecs.NetID, common uint16, idCode code) {
	h := p.h
	if p.writeCommon(w, pk, prev, idCode) {
		return
	}
	gap := uint64(pk.id - prev - 1)
	idCode.write(w, gap)
	if h.tick%statsEvery == 0 {
		h.stats.add(streamID, gap)
	}
	hd := &pk.head
	n := uint(len(h.reg.comps))
	switch {
	case p.common(hd):
		w.WriteBits(1, 1) // the common head
	case hd.kind == itemDespawn:
		w.WriteBits(kindRemoval<<1, kindRemovalBits+1)
		w.WriteExpGolomb(removalAge(h.frame, hd.base), 0)
		return
	case hd.kind == itemSpawn:
		w.WriteBits(kindSpawn<<1, kindSpawnBits+1)
		w.WriteExpGolomb(uint64(h.ents[pk.slot].owner), 0)
		w.WriteBits(uint64(hd.mask), n)
		if hd.snap != 0 {
			w.WriteBits(1|uint64(hd.snap-1)<<1, 1+snapAgeBits) // its pose is of a teleport
		} else {
			w.WriteBits(0, 1)
		}
	default:
		if hd.snap != 0 {
			w.WriteBits(kindSnap<<1, kindSnapBits+1)
			w.WriteBits(uint64(hd.snap-1), snapAgeBits)
		} else {
			w.WriteBits(kindUpdate<<1, kindUpdateBits+1)
		}
		if hd.flags&bodyNewest != 0 {
			w.WriteBits(1, 1)
		} else {
			w.WriteBits(0, 1)
			age := uint64(0)
			if hd.flags&bodyAbsolute == 0 {
				age = uint64(h.frame - hd.base)
			}
			h.put(w, streamAge, age)
		}
		w.WriteBits(uint64(hd.mask), n)
	}
	if pk.enc >= 0 {
		x := &h.enc.encs[pk.enc]
		copyBits(w, h.enc.arena, x.off, x.bits)
		return
	}
	var bimg []int32
	if hd.base != 0 {
		bimg = h.imageOf(pk.slot, pk.bref)
	}
	h.writeFields(w, pk.slot, hd, bimg, pk.bhas)
}

// writeCommon writes, in one word, an item with the common head (an update
// against the peer's common base, with the common mask, not a teleport)
// and reports true; it writes nothing and reports false for another item
// or one longer than a word: writeItem's general path writes those.
func (p *HostPeer) writeCommon(w *wire.BitWriter, pk *pick, prev ecs.NetID, idCode code) bool {
	h := p.h
	hd := &pk.head
	if !p.common(hd) || pk.enc >= 0 {
		return false
	}
	gap := uint64(pk.id - prev - 1)
	acc, n := idCode.word(gap)
	if n == 0 || n == 64 {
		return false
	}
	acc |= 1 << (n & 63) // the common head
	n++
	cur := h.image(pk.slot)
	var bimg []int32
	if pk.bref == refPrev {
		bimg = h.prevImage(pk.slot)
	} else {
		bimg = h.imageOf(pk.slot, pk.bref)
	}
	dc := &h.dc
	pr := &h.pred
	if dc.moving = pr.moving(pk.bhas, hd.mask, cur, bimg); dc.moving {
		pr.predict(&dc.mo, cur, bimg, h.frame-hd.base)
	}
	mp := &h.mplans[h.mlast%maskPlans]
	fields := mp.fields
	if !mp.ok || mp.mask != hd.mask {
		fields = h.fieldsOf(hd.mask)
	}
	acc, n, ok := deltaWord(acc, n, fields, h.pairOf(pk.slot, bimg), dc)
	if !ok {
		return false
	}
	if h.tick%statsEvery == 0 {
		h.stats.add(streamID, gap)
		h.stats.addFields(fields, h.codes)
	}
	w.WriteBits(acc, n)
	return true
}

// finishMessage assembles a State message: the frame, the item count, the
// code block, the common mask, then the first bits of the items writer.
func (p *HostPeer) finishMessage(picks []pick, common uint16, bits int) {
	h := p.h
	ps := &p.pk
	var st itemStreams
	for i := range picks {
		st.add(&picks[i].head, h.reg.delta)
	}
	last := &h.lastMsgs
	items := ps.items.Finish()
	last.bytes = h.assemble(last.bytes, len(picks), &st, common, p.base.age, items, bits)
	ps.buf = items[:0]
	last.ends = append(last.ends, len(last.bytes))
	last.counts = append(last.counts, len(picks))
}

// itemStreams gathers what the items of a message carry, for the streams
// its code block says it uses.
type itemStreams struct {
	abs, res uint16 // components carried absolute, and as residuals
	age      bool   // some item has an age
}

// add counts an item's head; delta is the registry's delta-coded
// components.
func (st *itemStreams) add(hd *head, delta uint16) {
	switch {
	case hd.kind == itemDespawn:
	case hd.flags&(bodySpawn|bodyAbsolute) != 0:
		st.abs |= hd.mask
		if hd.kind == 0 {
			st.age = true
		}
	default:
		st.res |= hd.mask & delta
		st.abs |= hd.mask &^ delta
		if hd.flags&bodyNewest == 0 {
			st.age = true
		}
	}
}

// assemble appends to dst a State message of count items: the frame, the
// item count, the code block of the streams st names, the common mask and
// base (age 0: the newest image), then the first bits of items.
func (h *HostReplicator) assemble(dst []byte, count int, st *itemStreams, common uint16, age uint32, items []byte, bits int) []byte {
	reg := h.reg
	var used streamSet
	used.add(streamID)
	if st.age || age != 0 {
		used.add(streamAge)
	}
	for c := range reg.comps {
		for i := range reg.comps[c].fields {
			if st.res&(1<<c) != 0 {
				used.add(streamField + reg.offset[c] + i)
			}
			if st.abs&(1<<c) != 0 {
				used.add(streamField + reg.fields + reg.offset[c] + i)
			}
		}
	}
	buf := wire.AppendUvarint(dst, uint64(h.frame))
	var w wire.BitWriter
	w.Reset(buf)
	w.WriteExpGolomb(uint64(count), 0)
	h.book.writeHeader(&w, &used)
	w.WriteBits(uint64(common), uint(len(reg.comps)))
	h.writeBase(&w, age)
	for off := 0; bits > 0; off += 8 {
		n := min(bits, 64)
		copyBits(&w, items, uint32(off), uint32(n))
		bits -= n
	}
	return w.Finish()
}

// send queues a State message carrying picks for the peer, with its record,
// and returns the budget it took, in bytes.
func (p *HostPeer) send(picks []pick, body []byte) int {
	h := p.h
	rec, token := p.record(h.frame, false)
	for i := range picks {
		pk := &picks[i]
		it := p.recs.push(rec)
		*it = sentItem{slot: pk.slot, id: pk.id, kind: pk.kind, mask: pk.nd}
		if pk.kind == itemDespawn {
			p.stats.Despawns++
		} else {
			s := &p.slots[pk.slot]
			it.send, it.epoch = s.sends, s.epoch
		}
		if t := &h.tape; t.capture == p {
			t.items = append(t.items, *it)
			if pk.kind == itemDespawn {
				t.despawned++
			}
		}
	}
	return p.queueState(body, token, len(picks))
}

// queueState hands the connection a State message of items items whose
// record has token, counts it, and returns the budget it took, in bytes.
func (p *HostPeer) queueState(body []byte, token uint32, items int) int {
	p.stats.Items += uint64(items)
	if err := p.out.QueueDatagram(wire.KindState, body, token); err != nil {
		// The datagram never left: its items are lost.
		p.notice(token, false)
	}
	p.stats.Messages++
	p.stats.Bytes += uint64(len(body))
	return len(body) + wire.MessageOverhead(len(body)) + p.h.cfg.DatagramOverhead
}

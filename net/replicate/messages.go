package replicate

import (
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// Writing a send tick's chosen items into State messages (PROTOCOL.md §9.3)
// and handing them to the peer's connection with the records their
// delivery notices settle.

// write writes the chosen items (in network-id order) into STATE messages
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
	reuse := last.tick == h.tick && samePicks(last.picks, picks)
	if !reuse {
		last.tick = h.tick
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

// maskTally counts, for one peer's send tick, the component masks of its
// updates against the newest image without a teleport, as they are taken,
// for its messages' common mask: the first four masks met (in id order when
// the picks are taken so), each with its count.
type maskTally struct {
	masks  [4]uint16
	counts [4]int32
}

// tally counts an item's head if it is an update against the newest image
// without a teleport, and its mask is among the first four met.
func (ps *packScratch) tally(hd *head) {
	if hd.kind != 0 || hd.flags != bodyNewest || hd.snap != 0 {
		return
	}
	t := &ps.masks
	for k := range t.masks {
		if t.counts[k] == 0 || t.masks[k] == hd.mask {
			t.masks[k] = hd.mask
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
	common := ps.masks.common()
	limit := 8*MaxStatePayload - messageHeaderBits - 7*h.book.n - len(h.reg.comps)
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
	gap := uint64(pk.id - prev - 1)
	idCode.write(w, gap)
	if h.tick%statsEvery == 0 {
		h.stats.add(streamID, gap)
	}
	hd := &pk.head
	n := uint(len(h.reg.comps))
	switch {
	case hd.kind == 0 && hd.flags == bodyNewest && hd.mask == common && hd.snap == 0:
		w.WriteBits(1, 1) // the common head
	case hd.kind == itemDespawn:
		w.WriteBits(kindRemoval<<1, kindRemovalBits+1)
		return
	case hd.kind == itemSpawn:
		w.WriteBits(kindSpawn<<1, kindSpawnBits+1)
		w.WriteExpGolomb(uint64(h.ents[pk.slot].owner), 0)
		w.WriteBits(uint64(hd.mask), n)
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

// finishMessage assembles a State message: the frame, the item count, the
// code block, the common mask, then the first bits of the items writer.
func (p *HostPeer) finishMessage(picks []pick, common uint16, bits int) {
	h := p.h
	reg := h.reg
	ps := &p.pk
	var used streamSet
	used.add(streamID)
	var abs, res uint16
	for i := range picks {
		hd := &picks[i].head
		switch {
		case hd.kind == itemDespawn:
		case hd.flags&(bodySpawn|bodyAbsolute) != 0:
			abs |= hd.mask
			if hd.kind == 0 {
				used.add(streamAge)
			}
		default:
			res |= hd.mask & reg.delta
			abs |= hd.mask &^ reg.delta
			if hd.flags&bodyNewest == 0 {
				used.add(streamAge)
			}
		}
	}
	for c := range reg.comps {
		for i := range reg.comps[c].fields {
			if res&(1<<c) != 0 {
				used.add(streamField + reg.offset[c] + i)
			}
			if abs&(1<<c) != 0 {
				used.add(streamField + reg.fields + reg.offset[c] + i)
			}
		}
	}
	last := &h.lastMsgs
	buf := wire.AppendUvarint(last.bytes, uint64(h.frame))
	var w wire.BitWriter
	w.Reset(buf)
	w.WriteExpGolomb(uint64(len(picks)), 0)
	h.book.writeHeader(&w, &used)
	w.WriteBits(uint64(common), uint(len(reg.comps)))
	items := ps.items.Finish()
	for off := 0; bits > 0; off += 8 {
		n := min(bits, 64)
		copyBits(&w, items, uint32(off), uint32(n))
		bits -= n
	}
	ps.buf = items[:0]
	last.bytes = w.Finish()
	last.ends = append(last.ends, len(last.bytes))
	last.counts = append(last.counts, len(picks))
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
	p.stats.Items += uint64(len(picks))
	if err := p.out.QueueDatagram(wire.KindState, body, token); err != nil {
		// The datagram never left: its items are lost.
		p.notice(token, false)
	}
	p.stats.Messages++
	p.stats.Bytes += uint64(len(body))
	return len(body) + wire.MessageOverhead(len(body)) + h.cfg.DatagramOverhead
}

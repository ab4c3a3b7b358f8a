package replicate

import "github.com/tandem-go/tandem/ecs"

// sentItem is one entity's part of a sent State message: 16 bytes.
type sentItem struct {
	slot  int32
	id    ecs.NetID
	mask  uint16 // components that are not delta-coded whose values rode
	kind  uint8  // itemSpawn, itemDespawn or 0 (update)
	send  uint8  // the entity's send number (peerSlot.sends after the send)
	epoch uint8  // the peer's record of the entity it belongs to
}

// sentRecord is one sent message whose fate is not known yet.
type sentRecord struct {
	seq   uint32 // its token; 0: free
	frame uint32
	start uint64 // its first item in the item ring
	n     uint32
	auth  bool // an AuthState (frame: the host frame it was built at): a loss makes the owner's state due again
}

// records keeps a peer's messages in flight: a ring of records, named by
// tokens that count up (a record sits at its token's low bits and is checked
// by the whole token), and a ring of their items, oldest first. Both grow to
// what is in flight and shrink back when it falls; a record still unresolved
// after maxRecords newer ones is taken as lost.
type records struct {
	recs   []sentRecord // len is a power of two
	next   uint32       // the next token (from 1)
	oldest uint32       // no token below it is live
	items  []sentItem   // ring, len a power of two
	head   uint64       // items written so far
	tail   uint64       // first item of the oldest live record
	// The most in flight since the last look, and releases until the next:
	// the rings shrink only when they stayed far too big for a while.
	peakRecs, peakItems int
	looks               int
}

// maxRecords bounds the messages in flight a peer's records track.
const maxRecords = 1 << 14

const (
	minRecords = 64
	minItems   = 256
)

// open starts a record for a message of frame, with its items to be added
// by add, and returns its token. A record that must make room is returned
// as evicted, to be resolved as lost by the caller after it is done with r.
func (rs *records) open(frame uint32, auth bool) (r *sentRecord, token uint32, evicted sentRecord) {
	if rs.recs == nil {
		rs.recs = make([]sentRecord, minRecords)
		rs.items = make([]sentItem, minItems)
		rs.next, rs.oldest = 1, 1
	}
	seq := rs.next
	if seq == 0 { // past 2^32 tokens: start again at 1
		seq = 1
	}
	r = &rs.recs[seq&uint32(len(rs.recs)-1)]
	if r.seq != 0 {
		if len(rs.recs) < maxRecords {
			rs.resizeRecords(2 * len(rs.recs))
			r = &rs.recs[seq&uint32(len(rs.recs)-1)]
		} else {
			evicted = *r
			r.seq = 0
		}
	}
	rs.next = seq + 1
	*r = sentRecord{seq: seq, frame: frame, start: rs.head, auth: auth}
	rs.peakRecs = max(rs.peakRecs, int(rs.next-rs.oldest))
	rs.peakItems = max(rs.peakItems, int(rs.head-rs.tail)) // the items pushed since the last open
	return r, seq, evicted
}

// get returns the live record of token, or nil.
func (rs *records) get(token uint32) *sentRecord {
	if token == 0 || rs.recs == nil {
		return nil
	}
	r := &rs.recs[token&uint32(len(rs.recs)-1)]
	if r.seq != token {
		return nil
	}
	return r
}

// add appends an item to r, the record opened last.
func (rs *records) add(r *sentRecord, it sentItem) { *rs.push(r) = it }

// push appends an item to r, the record opened last, and returns it to be
// written in place. (The peak of items in flight is taken at the next open
// or release: between them it only grows.)
func (rs *records) push(r *sentRecord) *sentItem {
	if rs.head-rs.tail == uint64(len(rs.items)) {
		rs.resizeItems(2 * len(rs.items))
	}
	it := &rs.items[rs.head&uint64(len(rs.items)-1)]
	rs.head++
	r.n++
	return it
}

// pushAll appends items to r, the record opened last.
func (rs *records) pushAll(r *sentRecord, items []sentItem) {
	for rs.head-rs.tail+uint64(len(items)) > uint64(len(rs.items)) {
		rs.resizeItems(2 * len(rs.items))
	}
	mask := uint64(len(rs.items) - 1)
	at := rs.head & mask
	n := copy(rs.items[at:], items)
	copy(rs.items, items[n:])
	rs.head += uint64(len(items))
	r.n += uint32(len(items))
	rs.peakItems = max(rs.peakItems, int(rs.head-rs.tail))
}

// item returns r's i-th item.
func (rs *records) item(r *sentRecord, i uint32) *sentItem {
	return &rs.items[(r.start+uint64(i))&uint64(len(rs.items)-1)]
}

// release gives back the room of records and items no longer in flight,
// once a record's seq was cleared. Items of a cleared record stay readable
// until the next release or add.
func (rs *records) release() {
	rs.peakItems = max(rs.peakItems, int(rs.head-rs.tail))
	for rs.oldest != rs.next {
		o := &rs.recs[rs.oldest&uint32(len(rs.recs)-1)]
		if o.seq == rs.oldest && o.seq != 0 {
			break
		}
		rs.oldest++
	}
	if rs.oldest == rs.next {
		rs.tail = rs.head
	} else {
		rs.tail = rs.recs[rs.oldest&uint32(len(rs.recs)-1)].start
	}
	if rs.looks++; rs.looks < 1024 {
		return
	}
	if n := len(rs.recs); n > minRecords && rs.peakRecs < n/4 && int(rs.next-rs.oldest) < n/4 {
		rs.resizeRecords(n / 2)
	}
	if n := len(rs.items); n > minItems && rs.peakItems < n/8 {
		rs.resizeItems(n / 2)
	}
	rs.looks, rs.peakRecs, rs.peakItems = 0, int(rs.next-rs.oldest), int(rs.head-rs.tail)
}

// inFlight returns the records and items not yet resolved (the oldest
// unresolved record and everything after it).
func (rs *records) inFlight() (recs int, items int) {
	return int(rs.next - rs.oldest), int(rs.head - rs.tail)
}

func (rs *records) resizeRecords(n int) {
	old := rs.recs
	rs.recs = make([]sentRecord, n)
	for _, r := range old {
		if r.seq != 0 {
			rs.recs[r.seq&uint32(n-1)] = r
		}
	}
}

func (rs *records) resizeItems(n int) {
	items := make([]sentItem, n)
	for i := rs.tail; i < rs.head; i++ {
		items[i&uint64(n-1)] = rs.items[i&uint64(len(rs.items)-1)]
	}
	rs.items = items
}

package replicate

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// joinQueue holds the join messages received and not yet applied, copied
// into buffers that are reused.
type joinQueue struct {
	msgs  [][]byte
	head  int
	bytes int
	free  [][]byte
}

func (q *joinQueue) push(msg []byte) {
	var b []byte
	if n := len(q.free); n > 0 {
		b = q.free[n-1][:0]
		q.free = q.free[:n-1]
	}
	q.msgs = append(q.msgs, append(b, msg...))
	q.bytes += len(msg)
}

func (q *joinQueue) pop() []byte {
	if q.head == len(q.msgs) {
		return nil
	}
	m := q.msgs[q.head]
	q.msgs[q.head] = nil
	q.head++
	q.bytes -= len(m)
	if q.head == len(q.msgs) {
		q.msgs, q.head = q.msgs[:0], 0
	}
	return m
}

// drop empties the queue, keeping its buffers.
func (q *joinQueue) drop() {
	for m := q.pop(); m != nil; m = q.pop() {
		q.recycle(m)
	}
}

func (q *joinQueue) recycle(b []byte) {
	if cap(b) <= 64<<10 && len(q.free) < 64 {
		q.free = append(q.free, b)
	}
}

// HandleLane takes a join-lane message: a page or FINAL, queued to be
// applied by Pump in bounded slices. Other kinds return ok == false.
func (c *ClientReplicator) HandleLane(msg []byte) (ok bool, err error) {
	k, err := wire.MessageKind(msg)
	if err != nil {
		return false, nil
	}
	if k != wire.KindJoinPage && k != wire.KindJoinFinal {
		return false, nil
	}
	if c.final {
		c.stats.Malformed++
		return true, fmt.Errorf("%w: join message after FINAL", ErrMalformed)
	}
	if c.queue.bytes+len(msg) > c.cfg.MaxJoinQueue {
		c.stats.Malformed++
		return true, ErrJoinQueueFull
	}
	if k == wire.KindJoinFinal {
		c.final = true
	}
	c.stats.JoinBytes += uint64(len(msg))
	c.queue.push(msg)
	return true, nil
}

// Pump applies queued join pages for at most ClientConfig.JoinSlice (and at
// least one page), then FINAL and the state held back while joining once it
// is reached. It stops before a page that would take it past JoinSlice by
// what pages have taken so far (a smoothed time per page), so a Pump ends
// within its slice rather than a page after it. A Pump of a large join may
// instead make room for what the join announced, one step of it and nothing
// else (reserveAnnounced, reserveOwners, growsNext), and one with nothing
// waiting makes room ahead (reserveAhead). Call it once a frame while
// joining; it returns the first error of a message, which was dropped.
func (c *ClientReplicator) Pump() error {
	if c.queue.head == len(c.queue.msgs) {
		c.reserveAhead()
		return nil
	}
	clk := c.cfg.Clock
	start := clk.Now()
	if c.reserveAnnounced() || c.reserveOwners() || c.growsNext() && c.w.ReserveEntities(c.lastPage) {
		// arche's index of entities or its pool of ids is made as large
		// as the join announced, or the next page would have arche
		// reallocate it, or the list of the entities of the peer that
		// owns most of the world is made as long as the world: making
		// that room is this Pump's work, alone.
		c.endSlice(start, clk.Now())
		return nil
	}
	last := start
	var first error
	for applied := 0; ; applied++ {
		if applied > 0 && (c.owning || c.growsNext()) {
			break // the next Pump makes room first
		}
		msg := c.queue.pop()
		if msg == nil {
			break
		}
		var err error
		if wire.Kind(msg[0]) == wire.KindJoinFinal {
			err = c.applyFinal(msg[1:])
		} else {
			c.stats.Pages++
			c.joinPages++
			spawns, despawns := c.stats.Spawns, c.stats.Despawns
			c.paging = true
			err = c.applyPage(msg[1:])
			c.paging = false
			c.lastPage = int(c.stats.Spawns - spawns)
			if c.rejoin == nil {
				// A rejoin counts what its pages brought by marks (Rejoin).
				c.joinHeld += int64(c.stats.Spawns-spawns) - int64(c.stats.Despawns-despawns)
			}
		}
		c.queue.recycle(msg)
		if err != nil {
			c.stats.Malformed++
			if joinErrorRank(err) > joinErrorRank(first) {
				first = err
			}
		}
		now := clk.Now()
		c.pageTime = smoothPageTime(c.pageTime, now.Sub(last))
		last = now
		if now.Sub(start)+c.pageTime > c.cfg.JoinSlice {
			break
		}
	}
	c.endSlice(start, last)
	return first
}

// joinErrorRank orders the errors of one Pump by what the session must hear
// first: a world past the client's bound (the cause of an incomplete join
// that follows it), an incomplete join, then a malformed message.
func joinErrorRank(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrTooManyEntities):
		return 3
	case errors.Is(err, ErrJoinIncomplete):
		return 2
	}
	return 1
}

// endSlice counts a Pump's slice of join work, from start to end.
func (c *ClientReplicator) endSlice(start, end time.Time) {
	c.stats.JoinSlices++
	c.stats.LongestSlice = max(c.stats.LongestSlice, end.Sub(start))
}

// smoothPageTime folds the time one join message took to apply into the
// smoothed time per page (a quarter of the new one; the first is taken
// whole).
func smoothPageTime(avg, d time.Duration) time.Duration {
	if avg == 0 {
		return d
	}
	return avg + (d-avg)/4
}

// growsFrom is the smallest world at which a join makes a frame of its own
// for arche's reallocation of its index of entities: below it the copy is
// short.
const growsFrom = 1 << 14

// splitFrom is the smallest count of entities to come at which each
// allocation a join makes ahead of them gets a Pump of its own
// (reserveAnnounced, ownersWithPage): below it arche's index and pool and
// the tables' first chunk take under 1.1 MB together, made in one Pump,
// and the owner list under 256 KB, made with the first page, which spares
// a mid-size join three frames.
const splitFrom = 1 << 15

// reserveAnnounced makes room in arche's index of entities and its pool of
// ids (World.ReserveEntities), before a join's first page is applied, for
// the entities the page says the world holds (its total, up to maxReserve)
// and the client does not, if those are growsFrom or more, then the first
// chunk of the client's tables and of the world's network index, and
// reports whether it allocated: all of it in one call below splitFrom
// entities to come, else one allocation a call (a Pump each). Made at the
// start, while the world is small, arche's room is one allocation of each
// with little to copy (at 100,000 entities, 1.6 MB for the index and 0.8 MB
// for the pool), where arche would otherwise grow both as the join fills
// them: on the way to 100,000 entities, in pages of about a thousand, six
// reallocations of the index from 128 records (the last three copying
// 16,384, 32,768 and 65,536) and some twenty of the pool. The tables' first
// chunk (some 300 KB) is the first page's otherwise, with the page's first
// archetype: a frame of the join's longest.
func (c *ClientReplicator) reserveAnnounced() bool {
	if c.joinPages != 0 || c.joined {
		return false
	}
	total, ok := c.nextPageTotal()
	if !ok {
		return false
	}
	more := c.toCome(total)
	switch {
	case more < growsFrom:
		return false
	case more >= splitFrom:
		return c.w.ReserveEntities(more) || c.reserveTables(1)
	}
	made := false
	for c.w.ReserveEntities(more) {
		made = true
	}
	return c.reserveTables(1) || made
}

// toCome returns how many entities of a world of total the client does not
// hold, up to maxReserve and ClientConfig.MaxEntities: what a join makes
// room for ahead of them.
func (c *ClientReplicator) toCome(total int) int {
	return min(total, maxReserve, c.cfg.MaxEntities) - c.w.Networked()
}

// ownersWithPage, for the first join page, before its entities are made,
// takes note of the peer that owns most of them (a majority vote; most of a
// world has one owner, the host), whose list of owned entities then gets
// room for the entities the page announced and the client does not hold,
// up to maxReserve: at once if those are fewer than splitFrom, else by the
// next Pump, alone (reserveOwners), as reserveAnnounced made room for them
// before the page, a Pump an allocation.
func (c *ClientReplicator) ownersWithPage(owners []ecs.PeerID) {
	more := c.toCome(c.total)
	if more <= 0 {
		return
	}
	c.majority = mostOwner(owners)
	if more < splitFrom {
		c.w.ReserveOwned(c.majority, more)
		return
	}
	c.owning = true
}

// reserveOwners makes room in the list of owned entities of the first
// page's majority owner (ownersWithPage) for the entities the join
// announced and the client does not hold yet, up to maxReserve, and reports
// whether it did: once, in a Pump of its own after the first page (800 KB
// at 100,000 entities, which with the first page's own allocations made
// that page's frame one of the join's longest).
func (c *ClientReplicator) reserveOwners() bool {
	if !c.owning {
		return false
	}
	c.owning = false
	if more := c.toCome(c.total); more > 0 {
		c.w.ReserveOwned(c.majority, more)
		return true
	}
	return false
}

// nextPageTotal returns the count of the host's entities the next queued
// message announces, and ok == false if that message is not a join page
// or its head is malformed (applying it will say so).
func (c *ClientReplicator) nextPageTotal() (total int, ok bool) {
	if c.queue.head == len(c.queue.msgs) {
		return 0, false
	}
	msg := c.queue.msgs[c.queue.head]
	if wire.Kind(msg[0]) != wire.KindJoinPage {
		return 0, false
	}
	r := wire.NewReader(msg[1:])
	r.Uvarint32() // frame
	total = r.Count(1 << 30)
	return total, r.Err() == nil
}

// growsNext reports whether the next queued message is a page that is
// likely to have arche reallocate its index of entities or its pool of ids
// (World.EntityRoom), in a world of growsFrom entities or more. arche
// doubles the index there, allocating it anew and copying every entity's
// record (a pointer each, a write barrier each while the collector marks):
// a page that does it takes several times as long as others, and longer
// than a slice with the collector at work. Each reallocation (the index,
// then the pool) then gets a Pump of its own (World.ReserveEntities),
// before the page, so it adds to no page's time. A join makes room for what
// it announced first (reserveAnnounced): this is for a world that grows
// past that while it joins, each page announcing more.
func (c *ClientReplicator) growsNext() bool {
	total, ok := c.nextPageTotal()
	return ok && c.outgrows(total)
}

// outgrows reports whether the next page would have arche reallocate its
// index of entities or its pool of ids, in a world of growsFrom entities or
// more, taking the page to bring as many new entities as the one before,
// or what is left of total (the host's count of entities, as the page
// announces it) if that is fewer.
func (c *ClientReplicator) outgrows(total int) bool {
	next := c.lastPage
	if left := total - c.w.Networked(); c.rejoin == nil && left < next {
		next = max(left, 1)
	}
	if c.lastPage == 0 || c.w.Networked()+next < growsFrom {
		return false
	}
	room, ok := c.w.EntityRoom()
	return ok && room < next
}

// Waiting returns the bytes of join messages queued and not yet applied.
func (c *ClientReplicator) Waiting() int { return c.queue.bytes }

// applyFinal ends the join: a FINAL whose counts of pages and entities
// differ from what the pages brought fails the join with a
// *JoinIncompleteError (Joined stays false): the client does not hold the
// host's world. A rejoin's FINAL then removes what the join did not bring.
func (c *ClientReplicator) applyFinal(body []byte) error {
	r := wire.NewReader(body)
	frame := ecs.Frame(r.Uvarint32())
	pages := r.Uvarint()
	total := r.Count(1 << 30)
	entities := r.Uvarint()
	if err := r.Finish(); err != nil {
		return fmt.Errorf("%w: join final: %v", ErrMalformed, err)
	}
	if pages != c.joinPages || c.joinHeld < 0 || entities != uint64(c.joinHeld) {
		return &JoinIncompleteError{PagesSent: pages, PagesReceived: c.joinPages, EntitiesSent: entities, EntitiesHeld: uint64(max(c.joinHeld, 0))}
	}
	c.total = total
	c.joined = true
	if frame > c.frame {
		c.frame = frame
	}
	if c.rejoin != nil {
		c.sweep(frame)
	}
	for i, p := range c.held {
		// A held message that fails is dropped alone.
		_ = c.apply(c.heldKind[i], p)
	}
	c.held, c.heldKind = nil, nil
	return nil
}

// mostOwner returns the owner of more than half of owners if one is,
// else one of those owning many (a majority vote in one pass).
func mostOwner(owners []ecs.PeerID) ecs.PeerID {
	var best ecs.PeerID
	votes := 0
	for _, o := range owners {
		switch {
		case votes == 0:
			best, votes = o, 1
		case o == best:
			votes++
		default:
			votes--
		}
	}
	return best
}

// maxReserve bounds the entities a join makes room for ahead of them on its
// first page's word (toCome: reserveAnnounced, ownersWithPage,
// reserveOwners, reserveAhead), which a host's claim cannot push past: per
// entity arche's 16-byte record and 8-byte id, the owner list's and the
// network index's few words, a 20-byte slot and the anchor image (4 bytes a
// registered field), some 26 MiB for the default components, more for a
// registry of many fields (at most MaxComponents·MaxFields of them).
// (arche's index and pool, if already larger than what is asked, grow to
// twice what they were, as arche grows them.)
const maxReserve = 1 << 18

// reserveAhead makes room, in a Pump with no join message waiting, for the
// entities the join announced and has not brought yet: the owner list's
// room if the Pump after the first page has not made it yet
// (reserveOwners), else the reallocation of arche's index of entities or
// of its pool of ids the next page would make, if it would (one of them a
// call), else one chunk (4,096 entities) of each of the client's tables and
// of the world's network index a call, some 300 KB for the default
// components. A frame that would wait for the host does that allocating and
// zeroing, and the pages that follow are applied with less of it.
func (c *ClientReplicator) reserveAhead() {
	if c.joined || c.joinPages == 0 || c.rejoin != nil || c.reserveOwners() {
		return
	}
	if c.outgrows(c.total) {
		// The next page would have arche reallocate its index of
		// entities or its pool of ids: this frame does one of them
		// instead.
		c.w.ReserveEntities(c.lastPage)
		return
	}
	if more := c.toCome(c.total); more > 0 {
		c.reserveTables(more)
	}
}

// reserveTables allocates the first missing chunk (4,096 entities) of each
// of the client's tables and of the world's network index that more
// networked entities than the world holds would need, and reports whether
// it allocated any.
func (c *ClientReplicator) reserveTables(more int) bool {
	slots := c.w.NetSlots() + more
	made := c.slots.reserve(slots)
	made = c.anchors.reserve(slots) || made
	if len(c.reg.comps) > 0 && c.reg.delta != c.reg.all {
		made = c.nd.reserve(slots) || made
	}
	return c.w.ReserveNetworked(more) || made
}

// joinStage is a page decoded before its entities are made: new ones are
// created together, a batch per archetype.
type joinStage struct {
	seen   map[ecs.NetID]struct{} // the page's ids once they are not ascending, for refusing one twice
	ids    []ecs.NetID
	owners []ecs.PeerID
	masks  []uint16
	imgs   []int32
	made   []arche.Entity
	groups []stageGroup
	comps  []groupComp // the components of the group being made
}

type stageGroup struct {
	mask   uint16
	remote bool
	items  []int32
}

func (c *ClientReplicator) applyPage(body []byte) error {
	r := wire.NewReader(body)
	frame := ecs.Frame(r.Uvarint32())
	c.total = r.Count(1 << 30)
	n := r.Count(r.Len())
	for range n {
		id := ecs.NetID(r.Uvarint32())
		if r.Err() != nil {
			break
		}
		c.despawn(id, frame)
	}
	reg := c.reg
	st := &c.stage
	// The page's items go to local slices, stored back once decoded: a
	// store to st's fields per item would write their pointers, a write
	// barrier each while the collector marks.
	ids, owners, masks, imgs := st.ids[:0], st.owners[:0], st.masks[:0], st.imgs[:0]
	if st.seen == nil {
		st.seen = make(map[ecs.NetID]struct{})
	}
	clear(st.seen)
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: join page: %v", ErrMalformed, err)
	}
	fields := reg.fields
	b := body // the items, from i on (pagedecode.go)
	ascending := true
	for i := r.Offset(); i < len(b); {
		var id, flags, owner uint64
		id, flags, owner, i = pageHead(b, i)
		if i < 0 {
			return fmt.Errorf("%w: join page: an item's head does not decode", ErrMalformed)
		}
		if id == 0 || id > 1<<32-1 {
			return fmt.Errorf("%w: join page: network id %d", ErrMalformed, id)
		}
		if flags&itemSpawn == 0 || flags&itemDespawn != 0 {
			return fmt.Errorf("%w: join page: item is not a spawn", ErrMalformed)
		}
		if flags>>itemShift&^uint64(reg.all) != 0 {
			return ErrUnknownComponent
		}
		if owner > 0xffff {
			return fmt.Errorf("%w: owner %d is not a peer id", ErrMalformed, owner)
		}
		if k := len(ids); ascending && (k == 0 || ecs.NetID(id) > ids[k-1]) {
			// Hosts page in slot order, mostly ascending ids: no id of
			// an ascending run can repeat, so the set is only filled
			// once a page leaves it.
		} else {
			if ascending {
				ascending = false
				for _, seen := range ids {
					st.seen[seen] = struct{}{}
				}
			}
			if _, twice := st.seen[ecs.NetID(id)]; twice {
				return fmt.Errorf("%w: join page: network id %d twice", ErrMalformed, id)
			}
			st.seen[ecs.NetID(id)] = struct{}{}
		}
		mask := uint16(flags >> itemShift)
		at := len(imgs)
		if cap(imgs)-at < fields {
			imgs = append(imgs, make([]int32, fields)...)[:at]
		}
		imgs = imgs[:at+fields]
		q := imgs[at:]
		if mask == reg.all {
			// Every component: their images follow one another, in the
			// order of their offsets.
			i = pageImage(b, i, q)
		} else {
			for ci := range reg.comps {
				cq := q[reg.offset[ci] : reg.offset[ci]+reg.comps[ci].fields]
				if mask&(1<<uint(ci)) == 0 {
					clear(cq)
				} else {
					i = pageImage(b, i, cq)
				}
			}
		}
		if i < 0 {
			return fmt.Errorf("%w: join page: an image does not decode or leaves 32 bits", ErrMalformed)
		}
		ids = append(ids, ecs.NetID(id))
		owners = append(owners, ecs.PeerID(owner))
		masks = append(masks, mask)
	}
	st.ids, st.owners, st.masks, st.imgs = ids, owners, masks, imgs
	if c.w.Networked()+len(ids) > c.cfg.MaxEntities {
		fresh := 0
		for _, id := range ids {
			if _, known := c.w.EntityOf(id); !known {
				fresh++
			}
		}
		if c.w.Networked()+fresh > c.cfg.MaxEntities {
			return ErrTooManyEntities
		}
	}
	if c.joinPages == 1 && len(owners) > 0 {
		// The first page says how large the world is.
		c.ownersWithPage(owners)
	}
	c.makeStaged(frame)
	if frame > c.frame {
		c.frame = frame
	}
	return nil
}

// makeStaged applies a decoded page: entities the client holds are updated
// one by one, new ones are created a batch per archetype. In a rejoin, an
// entity held before it stays where it is, updated to the page and drawn as
// a jump to it (or, if this client predicts it, left for AuthState).
func (c *ClientReplicator) makeStaged(frame ecs.Frame) {
	reg := c.reg
	st := &c.stage
	for i := range st.groups {
		st.groups[i].items = st.groups[i].items[:0]
	}
	groups := st.groups[:0]
	last, items := -1, []int32(nil) // the group being added to, and its items
	for i, id := range st.ids {
		if e, known := c.w.EntityOf(id); known {
			q := st.imgs[i*reg.fields : (i+1)*reg.fields]
			switch {
			case c.rejoin == nil || c.rejoined(e):
				c.spawn(id, st.owners[i], st.masks[i], frame, q, false, 0)
			case c.keep(e, st.owners[i]):
				c.spawn(id, st.owners[i], st.masks[i], frame, q, true, 0)
			default:
				// Predicted, its state left for AuthState; the page's
				// image is kept all the same, as a spawn's is: the host
				// codes its States against it, once the entity goes in
				// them (marked HostMoved, or another's).
				slot, _ := c.w.NetSlot(e)
				c.remember(slot, uint32(frame), st.masks[i]&reg.delta, q)
			}
			continue
		}
		if len(c.tomb) > 0 {
			if removed, dead := c.tomb[id]; dead {
				if frame <= removed {
					c.stats.Ignored++
					continue
				}
				delete(c.tomb, id)
			}
		}
		remote := st.owners[i] != c.cfg.Local
		g := -1
		for k := range groups {
			if groups[k].mask == st.masks[i] && groups[k].remote == remote {
				g = k
				break
			}
		}
		if g < 0 {
			if len(groups) < cap(groups) {
				groups = groups[:len(groups)+1]
				groups[len(groups)-1].mask, groups[len(groups)-1].remote = st.masks[i], remote
				groups[len(groups)-1].items = groups[len(groups)-1].items[:0]
			} else {
				groups = append(groups, stageGroup{mask: st.masks[i], remote: remote})
			}
			g = len(groups) - 1
		}
		if g != last {
			if last >= 0 {
				groups[last].items = items
			}
			last, items = g, groups[g].items
		}
		items = append(items, int32(i)) // local: no pointer written per item
	}
	if last >= 0 {
		groups[last].items = items
	}
	st.groups = groups
	for k := range groups {
		c.makeGroup(&groups[k], frame)
	}
}

// groupComp is one component of a group being made: where its image is in
// a staged entity's, and how it goes into the component.
type groupComp struct {
	id      arche.ID
	off, n  int
	dequant func(q []int32, p unsafe.Pointer)
}

// makeGroup creates the entities of one group in one batch (an arche batch
// the network index takes in as it goes) and sets the client's record of
// each: a new entity's image is its anchor, its pose its drawn pose.
func (c *ClientReplicator) makeGroup(g *stageGroup, frame ecs.Frame) {
	if len(g.items) == 0 {
		return
	}
	reg := c.reg
	st := &c.stage
	w := c.w
	c.ids = append(c.ids[:0], w.IDs.NetworkIdentity)
	if g.remote {
		c.ids = append(c.ids, w.IDs.Interpolated)
	}
	comps := st.comps[:0]
	for ci := range reg.comps {
		if g.mask&(1<<uint(ci)) != 0 {
			comp := &reg.comps[ci]
			c.ids = append(c.ids, comp.id)
			comps = append(comps, groupComp{id: comp.id, off: reg.offset[ci], n: comp.fields, dequant: comp.dequant})
		}
	}
	st.comps = comps
	// A remote entity with a pose starts drawn at it, not blended from
	// the origin (spawned, jump).
	snap := g.remote && c.pose >= 0 && g.mask&(1<<uint(c.pose)) != 0
	delta := g.mask & reg.delta
	nd := g.mask &^ reg.delta
	// Non-delta-coded components keep the frame they were applied at.
	ndRows := len(reg.comps) > 0 && reg.delta != reg.all
	fields := reg.fields
	f32 := uint32(frame)
	made := st.made[:0] // local: no pointer written per entity
	b := w.NewNetworked(len(g.items), c.ids...)
	j := 0
	for b.Next() {
		i := g.items[j]
		j++
		img := st.imgs[int(i)*fields : int(i+1)*fields]
		for k := range comps {
			gc := &comps[k]
			gc.dequant(img[gc.off:gc.off+gc.n], b.Get(gc.id))
		}
		if snap {
			ip := (*ecs.Interpolated)(b.Get(w.IDs.Interpolated))
			ip.Prev = *(*ecs.Transform)(b.Get(w.IDs.Transform))
			ip.Snap = true
		}
		slot := b.Identify(ecs.NetworkIdentity{ID: st.ids[i], Owner: st.owners[i]})
		// What the slot held before (forgetSlot) is replaced here.
		s := c.slots.at(slot)
		if s.hist != 0 {
			c.hist.release(s.hist - 1)
		}
		*s = clientSlot{applied: f32}
		if delta != 0 {
			s.anchor, s.ahas = f32, delta
			copy(c.anchors.at(slot), img)
		}
		if ndRows {
			row := c.nd.at(slot)
			for ci := range row {
				if nd&(1<<ci) != 0 {
					row[ci] = int32(frame)
				} else {
					row[ci] = 0
				}
			}
		}
		made = append(made, b.Entity())
	}
	st.made = made
	c.stats.Spawns += uint64(len(made))
	// What the game and the Observer do runs with the batch ended: OnSpawn
	// may add components.
	if c.rejoin == nil && c.cfg.OnSpawn == nil && c.cfg.Observer == nil {
		return
	}
	for k, e := range made {
		if c.rejoin != nil {
			c.rejoined(e)
		}
		if c.cfg.OnSpawn != nil {
			c.cfg.OnSpawn(e, st.owners[g.items[k]], frame)
		}
		if c.cfg.Observer != nil {
			c.cfg.Observer.Applied(e, frame)
		}
	}
}

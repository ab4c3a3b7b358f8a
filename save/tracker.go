package save

import (
	"bytes"
	"fmt"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/ecs/event"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/store"
)

// Tracker follows one world's changes and fills each save's batch with what
// changed since the last save, never with the world: it is the save's side of
// the change journal, as the replicator is the network's. As a system at the
// end of the schedule it reads each frame's journal (spawns, removals, new
// owners, and the reported writes of saved components) and an arche listener
// catches saved components added to or removed from networked entities; it
// keeps the entities so marked, once each, until the next Fill. The layer
// above keeps records of its own in the same save with Put and Delete.
//
// Fill runs on the simulation goroutine and costs what changed; the batch it
// fills is committed elsewhere (a Committer), and the outcome is reported
// back with Committed or Failed: a failed save's changes go into the next.
// Steady-state fills allocate nothing.
//
// Not safe for concurrent use: it belongs to the world's simulation
// goroutine.
type Tracker struct {
	s     *Schema
	w     *ecs.World
	armed bool
	full  bool // the next Start marks every entity

	marks      []ecs.NetID // by network slot: the id queued in dirty, 0 if none
	dirty      []mark      // entities to write at the next fill
	gone       []ecs.NetID // entities to delete at the next fill
	filled     []mark      // the entities of the batch being committed
	filledGone []ecs.NetID
	// pre are the entities Prefill put in the batch the next Fill ends;
	// prefilled says that batch was begun. backlog counts the entries at
	// the front of dirty that MarkAll queued and Prefill may take.
	pre       []mark
	prefilled bool
	backlog   int
	// wholeFilled says the batch being committed is a save of the whole
	// world (it had a backlog): one that fails is sliced again.
	wholeFilled bool

	user       map[string]userOp   // the layer above's records, queued
	userFilled map[string]userOp   // in the batch being committed
	userKeys   map[string]struct{} // the records the store holds
	// retiredKeys are the records of retired states a restore found
	// (Retire), deleted by the next fill; retiredFilled says that fill's
	// batch holds the deletes.
	retiredKeys   [][]byte
	retiredFilled bool

	schemaSaved, schemaFilled bool

	// The journal's epoch and despawns at the last Update: a second Update
	// in the same frame (a save between steps, then the step) queues only
	// the deletes that came after.
	readEpoch uint32
	readGone  int

	listener listener
	check    *reportCheck // CheckReports; nil: off
	rec      []byte
	runs     []ecs.RunStart // the head's lineage, kept between saves
	comp     []byte
	key      []byte
}

// mark is an entity queued for the next save.
type mark struct {
	slot int32
	id   ecs.NetID
}

// userOp is a record of the layer above, put (value) or deleted.
type userOp struct {
	value []byte
	del   bool
}

// FillStats says what one Fill put in its batch.
type FillStats struct {
	Entities int // entity records written
	Deleted  int // entity records deleted
	States   int // state records written
	User     int // the layer above's records put or deleted
	Retired  int // records of retired states deleted (Retire)
	Bytes    int // keys and values in the batch
}

// Empty reports whether the batch holds nothing but the head record (and,
// the first time, the schema): the world changed in nothing a save holds
// but its frame.
func (f FillStats) Empty() bool { return f.Entities+f.Deleted+f.States+f.User+f.Retired == 0 }

// NewTracker returns the tracker of s's world. Add it to the world's schedule
// as the last system (ecs.StageOutput) and Start it once the world holds what
// the save it continues holds (after Load, or at once for a world never
// saved): until then it tracks nothing.
func NewTracker(s *Schema) *Tracker {
	t := &Tracker{
		s:          s,
		w:          s.w,
		user:       map[string]userOp{},
		userFilled: map[string]userOp{},
		userKeys:   map[string]struct{}{},
		full:       true,
	}
	t.listener.t = t
	t.listener.subs = event.ComponentAdded | event.ComponentRemoved
	for _, c := range s.comps {
		t.listener.mask.Set(c.id, true)
	}
	for _, id := range s.leftIDs {
		t.listener.mask.Set(id, true)
	}
	s.tracked = true
	s.w.AddListener(&t.listener)
	return t
}

// Start begins tracking. A tracker that did not Load a save first (a new
// world), or loaded one written with other components, queues every
// networked entity, so the first save writes the whole world; after a Load
// of the same schema the first save writes only what changed since.
func (t *Tracker) Start() {
	t.armed = true
	if t.full {
		t.MarkAll()
		t.full = false
	}
}

// MarkAll queues every networked entity for the next save: a save of the
// whole world, which Prefill may write a slice at a time (Backlog).
func (t *Tracker) MarkAll() {
	for slot := range int32(t.w.NetSlots()) {
		if _, id, ok := t.w.SlotEntity(slot); ok {
			t.mark(slot, id)
		}
	}
	t.backlog = len(t.dirty)
	for i := range t.s.states {
		t.s.states[i].fresh = false
	}
	t.schemaSaved = false
}

// Update implements ecs.System: it reads the frame's journal. Cost: the
// journal's entries. A save taken between steps calls UpdateBetweenSteps
// before its Fill, to take what changed since the last step (the step's
// Update reads those writes again, and writes those entities again; deletes
// are queued once).
func (t *Tracker) Update(w *ecs.World) { t.update(w, true) }

// UpdateBetweenSteps is Update for a save taken between steps: the same,
// but for the report check (CheckReports), which the next step's Update
// makes of the same journal.
func (t *Tracker) UpdateBetweenSteps(w *ecs.World) { t.update(w, false) }

func (t *Tracker) update(w *ecs.World, check bool) {
	if !t.armed {
		return
	}
	j := w.Journal()
	for _, e := range j.Spawned(w) {
		t.markEntity(e)
	}
	for _, e := range j.Reowned(w) {
		t.markEntity(e)
	}
	for _, ch := range j.Changes(w) {
		if t.s.byBit[ch.Bit] >= 0 {
			t.mark(ch.Slot, ch.ID)
		}
	}
	despawned := j.Despawned()
	from := 0
	if j.Epoch() == t.readEpoch {
		from = min(t.readGone, len(despawned))
	}
	t.readEpoch, t.readGone = j.Epoch(), len(despawned)
	for _, d := range despawned[from:] {
		t.gone = append(t.gone, d.ID)
	}
	if check && t.check != nil {
		t.checkReports(w, j)
	}
}

func (t *Tracker) markEntity(e arche.Entity) {
	if slot, ok := t.w.NetSlot(e); ok {
		_, id, _ := t.w.SlotEntity(slot)
		t.mark(slot, id)
	}
}

func (t *Tracker) mark(slot int32, id ecs.NetID) {
	for int(slot) >= len(t.marks) {
		t.marks = append(t.marks, 0)
	}
	if t.marks[slot] == id {
		return
	}
	t.marks[slot] = id
	t.dirty = append(t.dirty, mark{slot, id})
}

// Put queues the layer above's record at key (its first byte at least
// FirstUserPrefix) with value, for the next save. Both are copied.
func (t *Tracker) Put(key, value []byte) {
	t.checkKey(key)
	op := t.user[string(key)]
	op.value = append(op.value[:0], value...)
	op.del = false
	t.user[string(key)] = op
}

// Delete queues the removal of the layer above's record at key.
func (t *Tracker) Delete(key []byte) {
	t.checkKey(key)
	t.user[string(key)] = userOp{del: true}
}

func (t *Tracker) checkKey(key []byte) {
	if len(key) == 0 || key[0] < FirstUserPrefix || len(key) > store.MaxKeySize {
		panic(fmt.Sprintf("save: key %x is not the layer above's: its first byte must be at least %#x, and it at most %d bytes", key, FirstUserPrefix, store.MaxKeySize))
	}
}

// Queued returns how many entities wait to be written by the next save (an
// entity queued twice, removed since, counts until that save).
func (t *Tracker) Queued() int { return len(t.dirty) }

// Backlog returns how many of the entities a save of the whole world
// queued (MarkAll: a new world's first save, the first after the schema
// changed) wait for Prefill or the Fill.
func (t *Tracker) Backlog() int { return t.backlog }

// Prefill writes up to n of the entities a save of the whole world queued
// (Backlog), as they are now, oldest first, into b, ahead of the Fill that
// ends that save, and returns how many it took: the save spread over steps,
// a slice a step, instead of costing one step all of it. Entities queued
// since by their changes are left to the Fill, and so is one written after
// Prefill took it: queued again by the tracker's Update, it is written
// again by the Fill, and the store keeps that later record, so the save is
// of the frame of the Fill, as one without Prefill. The first Prefill after
// a Fill empties b; the Fill after it adds the rest to b rather than
// emptying it, so b must be left to them in between. An error (an
// *UnsavedError) leaves everything queued again, as Fill's does, and b is
// begun anew.
func (t *Tracker) Prefill(b *store.Batch, n int) (int, error) {
	if !t.prefilled {
		b.Reset()
		t.prefilled = true
	}
	k := min(n, t.backlog)
	take := t.dirty[:k]
	a := t.w.Arche()
	for i, m := range take {
		put, err := t.write(a, b, m)
		if err != nil {
			// Every entity taken stays queued (and is marked so once).
			for _, m := range take[:i+1] {
				if _, id, ok := t.w.SlotEntity(m.slot); ok && id == m.id {
					t.marks[m.slot] = m.id
				}
			}
			t.Failed()
			return 0, err
		}
		if put {
			t.pre = append(t.pre, m)
		}
	}
	t.dirty = t.dirty[k:]
	t.backlog -= k
	return k, nil
}

// write takes queued entity m off the queue and puts its record in b, and
// reports whether it did: not for an entity removed since (its removal is
// queued) nor one the schema leaves out. An error (an *UnsavedError) is
// the caller's to undo.
func (t *Tracker) write(a *arche.World, b *store.Batch, m mark) (bool, error) {
	if t.marks[m.slot] == m.id {
		t.marks[m.slot] = 0
	}
	e, id, ok := t.w.SlotEntity(m.slot)
	if !ok || id != m.id {
		return false, nil
	}
	rec, err := t.entity(a, e, id)
	if err != nil || rec == nil {
		return false, err
	}
	t.key = entityKey(t.key[:0], id)
	b.Put(t.key, rec)
	return true, nil
}

// Fill empties b (unless Prefill began it) and fills it with the next save:
// every entity queued since the last fill as it is now, the removals, the states whose encoding changed,
// the layer above's records, and the head. An error (an *UnsavedError) leaves
// everything queued for the next fill; b is then not to be committed.
func (t *Tracker) Fill(b *store.Batch) (FillStats, error) {
	if !t.prefilled {
		b.Reset()
	}
	t.wholeFilled = t.backlog > 0 || t.prefilled
	t.backlog = 0
	t.filled, t.dirty = t.dirty, t.filled[:0]
	t.filledGone, t.gone = t.gone, t.filledGone[:0]
	var st FillStats
	a := t.w.Arche()
	for i, m := range t.filled {
		put, err := t.write(a, b, m)
		if err != nil {
			for _, m := range t.filled[i+1:] {
				if t.marks[m.slot] == m.id {
					t.marks[m.slot] = 0
				}
			}
			t.Failed()
			return FillStats{}, err
		}
		if put {
			st.Entities++
		}
	}
	// What Prefill put in the batch is the save's too: an entity of it
	// written since is queued again, and put again above, the later put
	// the one the store keeps.
	for _, m := range t.pre {
		if _, id, ok := t.w.SlotEntity(m.slot); ok && id == m.id {
			st.Entities++
		}
	}
	t.filled = append(t.filled, t.pre...)
	t.pre, t.prefilled = t.pre[:0], false
	for _, id := range t.filledGone {
		if e, ok := t.w.EntityOf(id); ok {
			if m := a.Mask(e); !t.s.excluded(&m) {
				continue // excluded and back since: written above
			}
		}
		t.key = entityKey(t.key[:0], id)
		b.Delete(t.key)
		st.Deleted++
	}
	states := 0
	for i := range t.s.states {
		s := &t.s.states[i]
		s.filled = false
		if p := s.get(); p != nil {
			t.comp = s.append(t.comp[:0], p)
			if !s.fresh || !bytes.Equal(s.last, t.comp) {
				s.last = append(s.last[:0], t.comp...)
				s.fresh, s.filled = true, true
				b.Put(s.key, t.comp)
				st.States++
			}
		}
		if s.stored || s.filled {
			states++
		}
	}
	users := len(t.userKeys)
	for k, op := range t.user {
		_, had := t.userKeys[k]
		switch {
		case op.del && had:
			users--
		case !op.del && !had:
			users++
		}
		t.key = append(t.key[:0], k...)
		if op.del {
			b.Delete(t.key)
		} else {
			b.Put(t.key, op.value)
		}
		t.userFilled[k] = op
		delete(t.user, k)
		st.User++
	}
	for _, k := range t.retiredKeys {
		b.Delete(k)
		t.retiredFilled = true
		st.Retired++
	}
	if !t.schemaSaved {
		b.Put([]byte{keySchema}, t.schemaRecord())
		t.schemaFilled = true
	}
	t.runs = t.w.Lineage(t.runs[:0])
	h := head{frame: t.w.Frame(), nextID: t.w.NextNetID(), entities: t.w.Networked() - t.s.excludedCount(), states: states, user: users, runs: t.runs}
	t.rec = h.append(t.rec[:0])
	b.Put([]byte{keyHead}, t.rec)
	st.Bytes = b.Size()
	return st, nil
}

// entity encodes networked entity e's record into t.rec; nil for an entity
// the schema leaves out.
func (t *Tracker) entity(a *arche.World, e arche.Entity, id ecs.NetID) ([]byte, error) {
	m := a.Mask(e)
	if t.s.excluded(&m) {
		return nil, nil
	}
	if cid, bad := t.s.unknown(&m); bad {
		name := "?"
		if info, ok := arche.ComponentInfo(a, cid); ok {
			name = info.Type.String()
		}
		return nil, &UnsavedError{Entity: id, Component: name}
	}
	ni := (*ecs.NetworkIdentity)(a.Get(e, t.w.IDs.NetworkIdentity))
	var bits uint64
	for i := range t.s.comps {
		if m.Get(t.s.comps[i].id) {
			bits |= 1 << uint(i)
		}
	}
	w := wire.NewWriter(t.rec[:0])
	w.Uvarint(uint64(ni.Owner))
	w.Uvarint(bits)
	for i := range t.s.comps {
		if bits&(1<<uint(i)) == 0 {
			continue
		}
		c := &t.s.comps[i]
		t.comp = c.append(t.comp[:0], a.Get(e, c.id))
		w.LenBytes(t.comp)
	}
	t.rec = w.Bytes()
	return t.rec, nil
}

func (t *Tracker) schemaRecord() []byte {
	w := wire.NewWriter(nil)
	w.Uvarint(uint64(len(t.s.comps)))
	for _, c := range t.s.comps {
		w.String(c.name)
	}
	for _, c := range t.s.comps {
		w.String(c.layout)
	}
	w.Uvarint(uint64(len(t.s.states)))
	for _, s := range t.s.states {
		w.String(s.name)
		w.String(s.layout)
	}
	return w.Bytes()
}

// Committed reports that the batch of the last Fill is durable.
func (t *Tracker) Committed() {
	t.filled = t.filled[:0]
	t.filledGone = t.filledGone[:0]
	for k, op := range t.userFilled {
		if op.del {
			delete(t.userKeys, k)
		} else {
			t.userKeys[k] = struct{}{}
		}
		delete(t.userFilled, k)
	}
	if t.schemaFilled {
		t.schemaSaved, t.schemaFilled = true, false
	}
	if t.retiredFilled {
		t.retiredKeys, t.retiredFilled = nil, false
	}
	t.wholeFilled = false
	for i := range t.s.states {
		if s := &t.s.states[i]; s.filled {
			s.stored, s.filled = true, false
		}
	}
}

// Failed reports that the batch of the last Fill may not have been saved:
// what it held is queued again, to be written as it is at the next fill.
func (t *Tracker) Failed() {
	whole := t.wholeFilled || t.prefilled
	t.wholeFilled = false
	for _, m := range t.filled {
		if _, id, ok := t.w.SlotEntity(m.slot); ok && id == m.id {
			t.mark(m.slot, m.id)
		}
	}
	for _, m := range t.pre {
		if _, id, ok := t.w.SlotEntity(m.slot); ok && id == m.id {
			t.mark(m.slot, m.id)
		}
	}
	t.pre, t.prefilled = t.pre[:0], false
	t.filled = t.filled[:0]
	t.gone = append(t.gone, t.filledGone...)
	t.filledGone = t.filledGone[:0]
	for k, op := range t.userFilled {
		if _, newer := t.user[k]; !newer {
			t.user[k] = op
		}
		delete(t.userFilled, k)
	}
	for i := range t.s.states {
		t.s.states[i].fresh, t.s.states[i].filled = false, false
	}
	t.schemaFilled = false
	t.retiredFilled = false
	if whole {
		// A save of the whole world that failed, or whose slices did: the
		// next is one again, every entity queued its backlog.
		t.backlog = len(t.dirty)
	}
}

// listener marks the networked entities that gain or lose a saved component
// or an excluded one; one that gains an excluded component has its record
// deleted (the save may hold it from before).
type listener struct {
	t    *Tracker
	subs event.Subscription
	mask arche.Mask
}

// Notify implements arche.Listener.
func (l *listener) Notify(_ *arche.World, evt arche.EntityEvent) {
	t := l.t
	if !t.armed {
		return
	}
	if t.check != nil {
		t.check.reshaped(t.w, evt.Entity)
	}
	if evt.Contains(event.ComponentAdded) && !evt.Contains(event.EntityCreated) && evt.Added.ContainsAny(&t.s.left) {
		if slot, ok := t.w.NetSlot(evt.Entity); ok {
			_, id, _ := t.w.SlotEntity(slot)
			t.gone = append(t.gone, id)
		}
		return
	}
	t.markEntity(evt.Entity)
}

// Subscriptions implements arche.Listener.
func (l *listener) Subscriptions() event.Subscription { return l.subs }

// Components implements arche.Listener.
func (l *listener) Components() *arche.Mask { return &l.mask }

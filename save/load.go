package save

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/store"
)

// Restored says what Load found.
type Restored struct {
	// Seq is the store's sequence number of the save restored; 0 when the
	// store held no save (the world is as its set-up built it).
	Seq uint64
	// Frame and NextID are the saved frame and network-id counter, now the
	// world's.
	Frame  ecs.Frame
	NextID ecs.NetID
	// Entities counts the networked entities restored, States the states.
	Entities, States int
	// Rewrite is set when the save was written with other components than
	// the schema's (a game that registers a new one): the first save after
	// the restore writes every entity again.
	Rewrite bool
	// Missing names the schema's components the save does not hold (it was
	// written before the game saved them): no restored entity has them, so
	// the game gives them where it expects them (Load's entity callback).
	Missing []string
	// Retired names the components and states the save held that the
	// schema retired (Retire): the restore left them out.
	Retired []string
}

// Load restores the newest save in st into the tracker's world, which must
// hold no networked entity: every saved entity is created with its network
// id, owner and saved components, in network-id order (each passed to
// entity, which may add what a save leaves out, once every record is read),
// every saved state is read into the world's resource, and the world's frame
// and network-id counter are set from the save. Records of the layer above
// (keys from FirstUserPrefix) go to user, in key order; key and value are
// valid only during the call. Load ends the world's frame (ecs.World.EndFrame)
// so the restore itself is journaled to nobody, and leaves the tracker ready
// to Start: the next save writes only what changes from here.
//
// An error leaves the world half-restored: discard it. A record that fails
// its checksum is store.ErrCorrupt, a save of another layout store.ErrFormat,
// one that does not fit this schema (an unknown component or state, counts
// that differ from the head's, a value its codec refuses) ErrMismatch; user's
// errors are returned as they are.
func (t *Tracker) Load(ctx context.Context, st store.World, user func(key, value []byte) error, entity func(e arche.Entity)) (Restored, error) {
	if t.armed {
		return Restored{}, errors.New("save: Load after Start; restore a world before tracking it")
	}
	if n := t.w.Networked(); n > 0 {
		return Restored{}, fmt.Errorf("save: Load into a world that holds %d networked entities; restore into a world whose set-up spawned none", n)
	}
	l := loader{t: t, user: user}
	seq, err := st.Load(ctx, l.record)
	switch {
	case err == nil && seq > 0:
		err = l.finish()
	case err == nil && l.records > 0:
		// Never committed, yet holding records: the store's sequence and
		// its records disagree, and nothing here may be trusted.
		err = &store.CorruptError{World: st.Name(), Reason: fmt.Sprintf("its sequence says it was never saved and it holds %d records", l.records)}
	}
	if err != nil {
		return Restored{}, err
	}
	t.w.EndFrame()
	if seq == 0 {
		return Restored{}, nil
	}
	t.full = l.rewrite
	t.schemaSaved = !l.rewrite && l.described && len(l.retiredKeys) == 0
	t.retiredKeys = l.retiredKeys
	for slot := range int32(t.w.NetSlots()) {
		if e, _, ok := t.w.SlotEntity(slot); ok && entity != nil {
			entity(e)
		}
	}
	return Restored{Seq: seq, Frame: l.head.frame, NextID: l.head.nextID, Entities: l.entities, States: l.states, Rewrite: l.rewrite, Missing: l.missing, Retired: l.retired}, nil
}

// retiredComp marks, in loader.schema, a component of the save the schema
// retired: its bytes are skipped.
const retiredComp = -2

// loader reads one save's records in key order.
type loader struct {
	t       *Tracker
	user    func(key, value []byte) error
	head    head
	hasHead bool
	schema  []int // the save's component index → the schema's, or retiredComp
	rewrite bool
	// stateLayouts holds the layouts the schema record gives its states;
	// described says it gives every layout the schema has (a save written
	// before layouts were recorded, or before a state was added, gets its
	// schema record written again by the next save).
	stateLayouts map[string]string
	described    bool
	missing      []string // the schema's components the save's schema lacks
	retired      []string // the save's components and states the schema retired
	retiredKeys  [][]byte // the records of the retired states, to delete
	entities     int
	states       int
	users        int
	maxID        ecs.NetID
	records      int // every record read
	ids          []arche.ID
	parts        [][]byte
	bad          error
}

func (l *loader) record(key, value []byte) (err error) {
	l.records++
	if len(key) == 0 {
		return mismatchf(key, "a record with an empty key")
	}
	switch key[0] {
	case keyHead:
		if len(key) != 1 {
			return mismatchf(key, "a head record with a longer key")
		}
		if err := l.head.read(value); err != nil {
			var fe *store.FormatError
			if errors.As(err, &fe) {
				return err
			}
			return mismatchf(key, "the head record does not read: %v", err)
		}
		l.hasHead = true
	case keySchema:
		if !l.hasHead || len(key) != 1 {
			return mismatchf(key, "a schema record before the head, or with a longer key")
		}
		return l.readSchema(key, value)
	case keyEntity:
		if l.schema == nil || len(key) != 5 {
			return mismatchf(key, "an entity record before the schema, or with a key that is no network id")
		}
		return l.entity(key, value)
	case keyState:
		if !l.hasHead {
			return mismatchf(key, "a state record before the head")
		}
		return l.state(key, value)
	default:
		if key[0] < FirstUserPrefix {
			return mismatchf(key, "a record of a kind this version does not know (key prefix %#x)", key[0])
		}
		if !l.hasHead {
			return mismatchf(key, "a record before the head")
		}
		l.users++
		l.t.userKeys[string(key)] = struct{}{}
		if l.user != nil {
			return l.user(key, value)
		}
	}
	return nil
}

func (l *loader) readSchema(key, value []byte) error {
	r := wire.NewReader(value)
	n := r.Count(MaxComponents)
	names := make([]string, 0, n)
	for range n {
		names = append(names, r.String(maxName))
	}
	// The layouts, in a save written since they are recorded.
	var layouts []string
	if r.Err() == nil && r.Len() > 0 {
		layouts = make([]string, 0, n)
		for range n {
			layouts = append(layouts, r.String(MaxLayout))
		}
		states := r.Count(maxStates)
		l.stateLayouts = make(map[string]string, states)
		for range states {
			name := r.String(maxName)
			l.stateLayouts[name] = r.String(MaxLayout)
		}
	}
	if err := r.Finish(); err != nil {
		return mismatchf(key, "the schema record does not read: %v", err)
	}
	l.described = layouts != nil
	l.schema = make([]int, len(names))
	for i, name := range names {
		l.schema[i] = -1
		for j, c := range l.t.s.comps {
			if c.name == name {
				l.schema[i] = j
			}
		}
		if l.schema[i] < 0 && l.t.s.retired[name] {
			if slices.Contains(l.retired, name) {
				return mismatchf(key, "the schema record lists component %q twice", name)
			}
			// Left out of every entity, which the next save writes
			// again without it.
			l.schema[i] = retiredComp
			l.retired = append(l.retired, name)
			l.rewrite = true
			continue
		}
		if l.schema[i] < 0 {
			return mismatchf(key, "the save holds component %q, which this game does not save: register it (with the codec it was saved with, under the same name), retire it to restore the world without it (save.Retire; tandem.Retired), or restore with the game that wrote the save", name)
		}
		if slices.Contains(l.schema[:i], l.schema[i]) {
			return mismatchf(key, "the schema record lists component %q twice", name)
		}
		if l.schema[i] != i {
			l.rewrite = true
		}
		if layouts != nil {
			if err := l.sameLayout(key, "component", name, layouts[i], l.t.s.comps[l.schema[i]].layout); err != nil {
				return err
			}
		}
	}
	for _, s := range l.t.s.states {
		if saved, ok := l.stateLayouts[s.name]; ok {
			if err := l.sameLayout(key, "state", s.name, saved, s.layout); err != nil {
				return err
			}
		} else if s.layout != "" {
			l.described = false
		}
	}
	if len(names) != len(l.t.s.comps) {
		l.rewrite = true
	}
	for _, c := range l.t.s.comps {
		if !slices.Contains(names, c.name) {
			l.missing = append(l.missing, c.name)
		}
	}
	return nil
}

// sameLayout checks that a component or state is read with the layout it
// was saved with; an empty layout on either side is not checked.
func (l *loader) sameLayout(key []byte, what, name, saved, now string) error {
	switch {
	case saved == now:
	case saved == "" || now == "":
		if now != "" {
			l.described = false // recorded afresh by the next save
		}
	default:
		return mismatchf(key, "%s %q was saved with layout %s, and this game's codec has layout %s: reading one as the other would read its fields wrong. Restore with the game that wrote the save, or give %q a codec that reads the saved encoding, with its Layout", what, name, saved, now, name)
	}
	return nil
}

func (l *loader) entity(key, value []byte) error {
	id := ecs.NetID(binary.BigEndian.Uint32(key[1:]))
	if id == 0 || id >= l.head.nextID {
		return mismatchf(key, "an entity record of network id %d, not below the head's network-id counter %d (nor 0)", id, l.head.nextID)
	}
	r := wire.NewReader(value)
	owner := r.Uvarint()
	bits := r.Uvarint()
	if r.Err() == nil && owner > 0xffff {
		return mismatchf(key, "entity %d is owned by peer %d, past the largest peer id", id, owner)
	}
	if bits>>uint(len(l.schema)) != 0 {
		return mismatchf(key, "entity %d has components the schema record does not list", id)
	}
	s := l.t.s
	w := l.t.w
	a := w.Arche()
	l.ids = append(l.ids[:0], w.IDs.NetworkIdentity)
	l.parts = l.parts[:0]
	for i := range l.schema {
		if bits&(1<<uint(i)) == 0 {
			continue
		}
		part := r.LenBytes(store.MaxValueSize)
		if l.schema[i] == retiredComp {
			continue
		}
		l.ids = append(l.ids, s.comps[l.schema[i]].id)
		l.parts = append(l.parts, part)
	}
	if err := r.Finish(); err != nil {
		return mismatchf(key, "entity %d does not read: %v", id, err)
	}
	l.bad = nil
	comps := l.ids[1:]
	a.NewEntityFn(func(e arche.Entity) {
		*(*ecs.NetworkIdentity)(a.Get(e, w.IDs.NetworkIdentity)) = ecs.NetworkIdentity{ID: id, Owner: ecs.PeerID(owner)}
		for k, cid := range comps {
			c := &s.comps[s.byID[index(cid)]]
			p := a.Get(e, cid)
			clear(unsafe.Slice((*byte)(p), c.size))
			cr := wire.NewReader(l.parts[k])
			c.read(&cr, p)
			if err := cr.Finish(); err != nil && l.bad == nil {
				l.bad = mismatchf(key, "component %s of entity %d does not read with this game's codec (%s): the save was written with another encoding of it; restore with the game that wrote the save, or give the component a codec that reads the saved encoding (with a Layout, which names such a change)", c.name, id, readFailure(err))
			}
		}
	}, l.ids...)
	if l.bad != nil {
		return l.bad
	}
	l.entities++
	l.maxID = max(l.maxID, id)
	return nil
}

func (l *loader) state(key, value []byte) error {
	name := string(key[1:])
	i := slices.IndexFunc(l.t.s.states, func(s state) bool { return s.name == name })
	if i < 0 && l.t.s.retired[name] {
		// Not read; the next save deletes its record.
		l.retired = append(l.retired, name)
		l.retiredKeys = append(l.retiredKeys, slices.Clone(key))
		return nil
	}
	if i < 0 {
		return mismatchf(key, "the save holds state %q, which this game does not save: register it (under the same name), retire it to restore the world without it (save.Retire; tandem.Retired), or restore with the game that wrote the save", name)
	}
	s := &l.t.s.states[i]
	p := s.get()
	if p == nil {
		return mismatchf(key, "the save holds state %q, but this world has no such resource: the world's set-up must add it (ecs.AddResource)", name)
	}
	clear(unsafe.Slice((*byte)(p), s.size))
	r := wire.NewReader(value)
	s.read(&r, p)
	if err := r.Finish(); err != nil {
		return mismatchf(key, "state %q does not read with this game's codec (%s): the save was written with another encoding of it; restore with the game that wrote the save, or give the state a codec that reads the saved encoding (with a Layout, which names such a change)", name, readFailure(err))
	}
	s.last = append(s.last[:0], value...)
	s.fresh, s.stored = true, true
	l.states++
	return nil
}

// finish checks the records against the head and sets the world's counters.
func (l *loader) finish() error {
	h := &l.head
	switch {
	case !l.hasHead:
		return mismatchf(nil, "the store holds records but no head: it is not a save, or not one of this version")
	case l.schema == nil:
		return mismatchf(nil, "the save has no schema record")
	case l.entities != h.entities || l.states+len(l.retiredKeys) != h.states || l.users != h.user:
		return mismatchf(nil, "the head counts %d entities, %d states and %d other records, the save holds %d, %d (%d of them retired) and %d",
			h.entities, h.states, h.user, l.entities, l.states+len(l.retiredKeys), len(l.retiredKeys), l.users)
	case h.nextID <= l.maxID:
		return mismatchf(nil, "the network-id counter %d is not above the highest id saved, %d", h.nextID, l.maxID)
	}
	l.t.w.SetFrame(h.frame)
	l.t.w.SetNextNetID(h.nextID)
	l.t.w.SetAncestors(h.runs)
	return nil
}

// readFailure says in a save's terms why a record did not read: the wire's
// errors speak of messages.
func readFailure(err error) string {
	switch {
	case errors.Is(err, wire.ErrTruncated):
		return "its record is shorter than the codec reads"
	case errors.Is(err, wire.ErrTrailing):
		return "its record is longer than the codec reads"
	}
	return err.Error()
}

package save

import (
	"fmt"
	"reflect"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// MaxComponents is how many component types one schema saves: an entity's
// record carries a mask of them.
const MaxComponents = 64

// maxStates is how many states one schema saves.
const maxStates = 4096

// Schema says what a save of one world holds: the components saved with every
// networked entity (each with its exact codec), the game's state (resources)
// saved beside them, and the components a save leaves out because they are
// rebuilt after a restore (a physics body). Build it once, before the world's
// first step, with Component, State and Skip.
//
// Not safe for concurrent use: it belongs to the world's simulation goroutine.
type Schema struct {
	w       *ecs.World
	comps   []component
	byID    [256]int8 // arche id → index in comps, -1 if not saved
	byBit   [ecs.MaxReplicated]int8
	states  []state
	names   map[string]bool
	retired map[string]bool // Retire's names
	known   arche.Mask      // saved, skipped, and NetworkIdentity
	others  arche.Mask      // the complement of known
	left    arche.Mask      // entities holding one of these are left out
	leftIDs []arche.ID
	// leftFilter finds them; tracked says a tracker was made (Exclude is
	// too late then).
	leftFilter leftFilter
	tracked    bool
}

// component is a saved component, type-erased.
type component struct {
	name   string
	layout string // Codec.Layout
	id     arche.ID
	typ    reflect.Type
	size   uintptr
	append func(dst []byte, p unsafe.Pointer) []byte
	read   func(r *wire.Reader, p unsafe.Pointer)
}

// state is a saved resource, type-erased.
type state struct {
	name   string
	layout string // Codec.Layout
	key    []byte
	get    func() unsafe.Pointer // nil when the world has no such resource
	size   uintptr
	append func(dst []byte, p unsafe.Pointer) []byte
	read   func(r *wire.Reader, p unsafe.Pointer)
	last   []byte // the encoding in the last batch filled
	fresh  bool   // last is what the store holds, or will once that batch lands
	filled bool   // the batch being committed puts it
	stored bool   // the store holds a record of it
}

// NewSchema returns an empty schema for w.
func NewSchema(w *ecs.World) *Schema {
	s := &Schema{w: w, names: map[string]bool{}, retired: map[string]bool{}}
	s.leftFilter.s = s
	for i := range s.byID {
		s.byID[i] = -1
	}
	for i := range s.byBit {
		s.byBit[i] = -1
	}
	s.know(w.IDs.NetworkIdentity)
	for _, id := range w.Bookkeeping() {
		s.know(id) // tags without state, not saved
	}
	return s
}

// know adds id to what an entity may hold.
func (s *Schema) know(id arche.ID) {
	s.known.Set(id, true)
	s.others = s.known.Not()
}

// Component makes T saved with every networked entity that has it, by codec
// c. Its writes must be reported (ecs.MutateComponent) like a replicated
// component's, whether it is replicated or host-only: Component marks it
// journaled (ecs.World.SetJournaled) so the journal hears of them, and a save
// writes only the entities whose saved components were reported written,
// added or removed since the last save. It panics on a codec without Append or
// Read, a name or type given twice, or past MaxComponents.
func Component[T any](s *Schema, c Codec[T]) {
	if c.Append == nil || c.Read == nil {
		panic(fmt.Sprintf("save: component %s has no exact codec (Append and Read): it cannot be saved; give one (save.Plain for a plain struct)", nameOf[T](c.Name)))
	}
	if len(s.comps) == MaxComponents {
		panic(fmt.Sprintf("save: more than %d saved component types; merge small ones", MaxComponents))
	}
	name := nameOf[T](c.Name)
	a := s.w.Arche()
	id := arche.ComponentID[T](a)
	if s.byID[index(id)] >= 0 || s.names[name] {
		panic(fmt.Sprintf("save: component %s is saved twice; register each once", name))
	}
	s.checkRetired(name)
	checkLayout(name, c.Layout)
	s.names[name] = true
	ap, rd := c.Append, c.Read
	s.byID[index(id)] = int8(len(s.comps))
	s.byBit[s.w.SetJournaled(id)] = int8(len(s.comps))
	s.comps = append(s.comps, component{
		name:   name,
		layout: c.Layout,
		id:     id,
		typ:    reflect.TypeFor[T](),
		size:   reflect.TypeFor[T]().Size(),
		append: func(dst []byte, p unsafe.Pointer) []byte { return ap(dst, (*T)(p)) },
		read:   func(r *wire.Reader, p unsafe.Pointer) { rd(r, (*T)(p)) },
	})
	s.know(id)
}

// State makes the world's resource of type T (ecs.AddResource) saved by codec
// c. A save writes it when its encoding differs from the one saved last (it
// costs its encoding at every save, so keep states small: a score, a match
// clock, a table of teams); a restore reads it into the resource the world's
// set-up added. A world without the resource saves nothing for it. It panics
// on a codec without Append or Read, or a name given twice.
func State[T any](s *Schema, c Codec[T]) {
	name := nameOf[T](c.Name)
	if c.Append == nil || c.Read == nil {
		panic(fmt.Sprintf("save: state %s has no exact codec (Append and Read); give one (save.Plain for a plain struct)", name))
	}
	if s.names[name] {
		panic(fmt.Sprintf("save: state %s is saved twice; register each once", name))
	}
	s.checkRetired(name)
	if len(s.states) == maxStates {
		panic(fmt.Sprintf("save: more than %d saved states; merge small ones", maxStates))
	}
	checkLayout(name, c.Layout)
	s.names[name] = true
	ap, rd := c.Append, c.Read
	w := s.w
	s.states = append(s.states, state{
		name:   name,
		layout: c.Layout,
		key:    append([]byte{keyState}, name...),
		get: func() unsafe.Pointer {
			if r := ecs.Resource[T](w); r != nil {
				return unsafe.Pointer(r)
			}
			return nil
		},
		size:   reflect.TypeFor[T]().Size(),
		append: func(dst []byte, p unsafe.Pointer) []byte { return ap(dst, (*T)(p)) },
		read:   func(r *wire.Reader, p unsafe.Pointer) { rd(r, (*T)(p)) },
	})
}

// checkLayout panics on a Codec.Layout longer than MaxLayout.
func checkLayout(name, layout string) {
	if len(layout) > MaxLayout {
		panic(fmt.Sprintf("save: %s's codec has a Layout of %d bytes, past MaxLayout (%d); describe it shorter (a version, a digest)", name, len(layout), MaxLayout))
	}
}

// Retire says that a save may hold a component or a state called name
// (its codec's Name, or its Go type's name by default) that an earlier
// version of the game saved and this one no longer has: a restore leaves it
// out (every entity comes back without it, the state is not read), and the
// first save after the restore writes every entity again without it and
// deletes the state's record (Restored.Rewrite, Restored.Retired). Keep
// retiring it while a save from before may be restored; once every save was
// written since, the name may go. A save's component or state of a name
// neither saved nor retired fails the restore with ErrMismatch, so nothing
// is dropped unasked. It panics on a name the schema saves.
func Retire(s *Schema, name string) {
	if s.names[name] {
		panic(fmt.Sprintf("save: %s is saved and retired; retire only what this game no longer saves", name))
	}
	s.retired[name] = true
}

// checkRetired panics if name was retired: it cannot be saved too.
func (s *Schema) checkRetired(name string) {
	if s.retired[name] {
		panic(fmt.Sprintf("save: %s is retired and saved; retire only what this game no longer saves", name))
	}
}

// Skip says that a save leaves component T out of every entity: the world
// rebuilds it after a restore (a physics body from the saved pose, a sprite).
// A networked entity with a component that is neither saved nor skipped
// cannot be saved: the save that meets it fails with an *UnsavedError.
func Skip[T any](s *Schema) {
	s.know(arche.ComponentID[T](s.w.Arche()))
}

// Exclude leaves every networked entity that holds component T out of the
// save: state the layer above keeps for the session only and makes again
// after a restore (a roster of who is connected). Such an entity is never
// written (give it T when it is made), and nothing else of it is checked; an
// entity saved before it gains T has its record deleted by the next save.
// Call it before NewTracker: it panics after.
func Exclude[T any](s *Schema) {
	if s.tracked {
		panic("save: Exclude after NewTracker; exclude every component before the tracker is made")
	}
	id := arche.ComponentID[T](s.w.Arche())
	s.left.Set(id, true)
	s.leftIDs = append(s.leftIDs, id)
}

// excluded reports whether an entity of mask m is left out.
func (s *Schema) excluded(m *arche.Mask) bool { return len(s.leftIDs) > 0 && m.ContainsAny(&s.left) }

// excludedCount returns how many networked entities are left out, each once
// whatever number of excluded components it holds: one query, over the
// archetypes that match.
func (s *Schema) excludedCount() int {
	if len(s.leftIDs) == 0 {
		return 0
	}
	q := s.w.Arche().Query(&s.leftFilter)
	n := q.Count()
	q.Close()
	return n
}

// leftFilter matches the networked entities a save leaves out: those with
// NetworkIdentity and any excluded component.
type leftFilter struct{ s *Schema }

// Matches implements arche.Filter.
func (f *leftFilter) Matches(m *arche.Mask) bool {
	return m.Get(f.s.w.IDs.NetworkIdentity) && m.ContainsAny(&f.s.left)
}

func nameOf[T any](name string) string {
	if name != "" {
		return name
	}
	return reflect.TypeFor[T]().String()
}

// unknown returns a component in m that is neither saved nor skipped, if
// any. The common answer, none, costs a mask operation.
func (s *Schema) unknown(m *arche.Mask) (arche.ID, bool) {
	if x := m.And(&s.others); x.IsZero() {
		return arche.ID{}, false
	}
	a := s.w.Arche()
	for _, id := range arche.ComponentIDs(a) {
		if m.Get(id) && !s.known.Get(id) {
			return id, true
		}
	}
	return arche.ID{}, false
}

// index returns the number arche gives component id (0..255), for table
// lookups: arche keeps it unexported in an ID of that single byte, which the
// assertion below pins down at compile time.
func index(id arche.ID) uint8 { return *(*uint8)(unsafe.Pointer(&id)) }

var _ [1]struct{} = [unsafe.Sizeof(arche.ID{})]struct{}{}

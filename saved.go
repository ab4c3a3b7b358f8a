package tandem

import (
	"fmt"
	"reflect"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/save"
)

// ExactCodec is how a value is written in a save: at full precision, read
// back bit for bit (see save.Codec). Plain makes one for a plain struct.
type ExactCodec[T any] = save.Codec[T]

// Plain returns the exact codec of a plain type T: numbers, booleans, and
// arrays and structs of them (see save.Plain). It panics for anything else:
// maps and slices too, so state kept by player (a respawn's timer by peer
// id) goes in a fixed array of structs that name the peer, or in a
// component of the player's entity (SaveComponent), or in a codec of the
// game's own (save.Codec).
func Plain[T any]() ExactCodec[T] { return save.Plain[T]() }

// Exact returns c with its exact encoding (replicate.Codec's AppendExact and
// ReadExact, what a save writes) set to Plain's when c has none: a
// replicated component of a game that saves needs one. It panics if T is not
// plain; write AppendExact and ReadExact by hand then.
func Exact[T any](c replicate.Codec[T]) replicate.Codec[T] {
	if c.AppendExact == nil || c.ReadExact == nil {
		p := save.Plain[T]()
		c.AppendExact, c.ReadExact, c.ExactLayout = p.Append, p.Read, p.Layout
	}
	return c
}

// Saved is something a host's save holds beside the replicated components
// (which it holds through their exact codecs): a host-only component, the
// game's state, or a component a restore rebuilds; or something saves of an
// earlier version held that this one drops. Make it with SaveComponent,
// SaveState, Rebuilt or Retired and list it in Game.Saved.
type Saved struct {
	name string
	typ  reflect.Type
	kind savedKind
	add  func(s *save.Schema)
	// present, for a state, reports whether the world holds its resource.
	present func(w *ecs.World) bool
}

type savedKind uint8

const (
	savedComponent savedKind = iota
	savedState
	savedRebuilt
	savedRetired
)

// SaveComponent makes T, a component of networked entities that does not
// travel (host-only: a bot's memory, a spawner's timer), part of the host's
// save, written by codec c. Report its writes like a replicated component's,
// with ecs.MutateComponent: a save writes the entities reported written,
// and an unreported change is lost at a restart (a host with
// HostConfig.Replication.CheckReports, as in a tandemtest rig, panics with a
// *save.UnreportedError where one happens).
func SaveComponent[T any](c ExactCodec[T]) Saved {
	return Saved{name: nameOr[T](c.Name), typ: reflect.TypeFor[T](), kind: savedComponent, add: func(s *save.Schema) { save.Component(s, c) }}
}

// SaveState makes the world's resource of type T (added with
// ecs.AddResource in Game.Setup) part of the host's save, written by codec
// c: the game's own state beside its entities (a match clock, a table of
// teams). A save compares its encoding with the one saved last, so keep it
// small; a restore reads it into the resource Setup added. A host whose
// Setup added no such resource fails to start (NewHost): its saves would
// hold nothing of it.
func SaveState[T any](c ExactCodec[T]) Saved {
	return Saved{name: nameOr[T](c.Name), typ: reflect.TypeFor[T](), kind: savedState, add: func(s *save.Schema) { save.State(s, c) },
		present: func(w *ecs.World) bool { return ecs.Resource[T](w) != nil }}
}

// Rebuilt says that component T is not saved: after a restore the game adds
// it again (Game.Restored), from what was saved (a sprite, a cache). The
// physics body (physics.Body) is rebuilt already, and the engine's own
// components are handled: Input (its Bot flag is saved; the value is each
// frame's) and Interpolated (rebuilt from the pose). Every other component
// of a networked entity must be replicated, saved or rebuilt, or the save
// that meets it fails with a save.UnsavedError naming it.
func Rebuilt[T any]() Saved {
	return Saved{name: reflect.TypeFor[T]().String(), typ: reflect.TypeFor[T](), kind: savedRebuilt, add: func(s *save.Schema) { save.Skip[T](s) }}
}

// Retired says that saves written by an earlier version of the game may
// hold a component or a state called name (its codec's Name, by default its
// Go type's name, as "game.Health") that this version neither replicates
// nor saves: a restore leaves it out (the entities come back without it,
// the state is not read; RestoreReport.Retired names what it met), and the
// first save after it writes every entity again without it. Without it
// such a save is refused (NewHost fails with save.ErrMismatch naming it),
// so nothing is dropped unasked. List it while a save from before may be
// restored.
func Retired(name string) Saved {
	return Saved{name: name, kind: savedRetired, add: func(s *save.Schema) { save.Retire(s, name) }}
}

// The names the engine registers in a host's save schema for itself.
const (
	inputSaveName        = "tandem.Input"
	interpolatedSaveName = "tandem.Interpolated"
	hostMovedSaveName    = "tandem.HostMoved"
	memberInfoSaveName   = "tandem.MemberInfo"
	memberNameSaveName   = "tandem.MemberName"
)

// engineSaved lists them: a game cannot retire them (nor need to).
var engineSaved = []string{inputSaveName, interpolatedSaveName, hostMovedSaveName, memberInfoSaveName, memberNameSaveName}

func nameOr[T any](name string) string {
	if name != "" {
		return name
	}
	return reflect.TypeFor[T]().String()
}

// checkSaved reports what stops g's world from being saved: a replicated
// component without an exact codec, a Saved given twice.
func (g *Game[I]) checkSaved() error {
	for _, c := range g.Components {
		if !c.exact {
			return fmt.Errorf("tandem: component %s has no exact codec (replicate.Codec.AppendExact and ReadExact), so a host cannot save it: give one, or wrap the codec in tandem.Exact for a plain struct", c.name)
		}
	}
	seen := map[reflect.Type]bool{}
	retired := map[string]bool{}
	for i, s := range g.Saved {
		switch {
		case s.add == nil:
			return fmt.Errorf("tandem: Game.Saved[%d] is empty; make it with SaveComponent, SaveState, Rebuilt or Retired", i)
		case s.kind == savedRetired && retired[s.name]:
			return fmt.Errorf("tandem: %s is retired twice in Game.Saved; list each once", s.name)
		case s.kind == savedRetired:
			retired[s.name] = true
			continue
		case seen[s.typ]:
			return fmt.Errorf("tandem: %s is listed twice in Game.Saved; list each once", s.name)
		}
		seen[s.typ] = true
		for _, c := range g.Components {
			if c.rtype == s.typ && s.kind != savedState {
				return fmt.Errorf("tandem: %s is replicated (Game.Components) and listed in Game.Saved; a replicated component is saved through its codec already", s.name)
			}
		}
	}
	for _, name := range engineSaved {
		if retired[name] {
			return fmt.Errorf("tandem: %s is the engine's name in a host's save; retire only a component or state of the game", name)
		}
	}
	for _, c := range g.Components {
		if retired[c.name] {
			return fmt.Errorf("tandem: %s is replicated (Game.Components) and retired (Game.Saved); retire only what the game no longer saves", c.name)
		}
	}
	for _, s := range g.Saved {
		if s.kind != savedRetired && s.kind != savedRebuilt && retired[s.name] {
			return fmt.Errorf("tandem: %s is saved and retired (Game.Saved); retire only what the game no longer saves", s.name)
		}
	}
	return nil
}

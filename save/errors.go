package save

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tandem-go/tandem/ecs"
)

// ErrMismatch matches (errors.Is) a *MismatchError: the save does not fit the
// world it is restored into.
var ErrMismatch = errors.New("save: the save does not fit this world")

// MismatchError is the error of a save that reads but does not fit the world
// restoring it: a component or state this game does not register, counts
// that differ from the head record's, an entity owned by nobody the save
// knows. Restoring it would lose or invent state, so a host refuses to start
// on it; it matches ErrMismatch. Corrupt bytes are store.ErrCorrupt, a save
// of another layout store.ErrFormat.
type MismatchError struct {
	Key    []byte // the record at fault, if one is
	Reason string
}

// Error names the record that does not fit the world, and why.
func (e *MismatchError) Error() string {
	if e.Key != nil {
		return fmt.Sprintf("save: %s: %s", recordName(e.Key), e.Reason)
	}
	return "save: " + e.Reason
}

// recordName names the record at key for a person: the head, the schema,
// an entity by network id, a state by name, or a record of the layer above
// by its key in hex.
func recordName(key []byte) string {
	switch {
	case len(key) == 1 && key[0] == keyHead:
		return "the head record"
	case len(key) == 1 && key[0] == keySchema:
		return "the schema record"
	case len(key) == 5 && key[0] == keyEntity:
		return fmt.Sprintf("the record of entity %d", binary.BigEndian.Uint32(key[1:]))
	case len(key) > 1 && key[0] == keyState:
		return fmt.Sprintf("the record of state %q", key[1:])
	}
	return fmt.Sprintf("record %x", key)
}

// Is reports whether target is ErrMismatch.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

func mismatchf(key []byte, format string, args ...any) error {
	return &MismatchError{Key: append([]byte(nil), key...), Reason: fmt.Sprintf(format, args...)}
}

// ErrUnsaved matches (errors.Is) an *UnsavedError.
var ErrUnsaved = errors.New("save: an entity holds a component the save cannot hold")

// UnsavedError is the error of a save that met a networked entity with a
// component the schema neither saves nor skips: saving the entity without it
// would lose it silently, so the save fails until the game says what to do
// with it (save it with its exact codec, or skip it and rebuild it after a
// restore). It matches ErrUnsaved.
type UnsavedError struct {
	Entity    ecs.NetID
	Component string // the component's Go type
}

// Error names what could not be saved, and what to do.
func (e *UnsavedError) Error() string {
	return fmt.Sprintf("save: entity %d has component %s, which the save neither saves nor skips: register it with its exact codec (save.Component), or skip it (save.Skip) and rebuild it after a restore", e.Entity, e.Component)
}

// Is reports whether target is ErrUnsaved.
func (e *UnsavedError) Is(target error) bool { return target == ErrUnsaved }

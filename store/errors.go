package store

import (
	"errors"
	"fmt"
	"strconv"
)

// The errors a store returns, for errors.Is. The typed errors below say more.
var (
	// ErrFenced: the world's lease was taken by a newer holder; the commit
	// wrote nothing. Stop writing the world and close it.
	ErrFenced = errors.New("store: world taken over by a newer lease holder")
	// ErrCorrupt: stored data failed its checksum or could not be read.
	ErrCorrupt = errors.New("store: corrupt data")
	// ErrFormat: the store or a record was written in a format this version
	// does not read (a newer version, or not a Tandem store).
	ErrFormat = errors.New("store: unknown format")
	// ErrInvalid: the call was refused before anything was written (a key
	// or value out of bounds, an empty world name).
	ErrInvalid = errors.New("store: invalid argument")
	// ErrClosed: the World or DB was closed.
	ErrClosed = errors.New("store: closed")
	// ErrLocked: another holder, in this process or another, has the bbolt
	// file open.
	ErrLocked = errors.New("store: file in use")
)

// FencedError is the error of a write refused because the world's lease was
// taken over. It matches ErrFenced.
type FencedError struct {
	World  string // the world's name
	Epoch  uint64 // this World's lease epoch
	Now    uint64 // the epoch of the lease that holds the world now
	Holder string // who holds it now (Options.Holder of the taker), if known
}

// Error says which host took the world, and what to do.
func (e *FencedError) Error() string {
	by := ""
	if e.Holder != "" {
		by = " by " + strconv.Quote(e.Holder)
	}
	return fmt.Sprintf("store: world %q was taken%s (lease epoch %d) after this host's lease (epoch %d): nothing was written; stop writing this world and close it, its state belongs to the new holder",
		e.World, by, e.Now, e.Epoch)
}

// Is reports whether target is ErrFenced.
func (e *FencedError) Is(target error) bool { return target == ErrFenced }

// CorruptError is the error of stored data that failed its checksum or could
// not be read. It matches ErrCorrupt.
type CorruptError struct {
	World  string // the world's name ("" for the store as a whole)
	Key    []byte // the record's key, when one record is at fault
	Reason string // what failed
	Err    error  // the underlying error or recovered panic, if any
}

// Error says what is corrupt, and what to do.
func (e *CorruptError) Error() string {
	where := "the store"
	if e.World != "" {
		where = fmt.Sprintf("world %q", e.World)
	}
	if e.Key != nil {
		where += fmt.Sprintf(" record %q", e.Key)
	}
	msg := fmt.Sprintf("store: %s is corrupt: %s", where, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + "; do not start on an empty world in its place: restore the store from a backup, or move it aside to start the world anew"
}

// Is reports whether target is ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Unwrap returns the underlying error.
func (e *CorruptError) Unwrap() error { return e.Err }

// FormatError is the error of a store or record in a format this version
// does not read. It matches ErrFormat.
type FormatError struct {
	Where string // what was read: a file, a database, a world's record
	Found string // the format found
	Want  string // the format this version reads
}

// Error says what was found and what to do: a save of another version is
// opened with that version; a file that is no save at all is moved aside.
func (e *FormatError) Error() string {
	return fmt.Sprintf("store: %s has format %s, this version reads %s: if it is a save of another version of Tandem, open it with that version; if it is no save, give another path or move the file aside",
		e.Where, e.Found, e.Want)
}

// Is reports whether target is ErrFormat.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

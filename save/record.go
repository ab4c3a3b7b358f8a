package save

import (
	"encoding/binary"
	"fmt"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/store"
)

// Key prefixes: the first byte of every record's key says what it holds.
// The save's own records come first in key order, so a restore reads the
// head and the schema before the entities. Format-affecting: never renumber.
const (
	keyHead   byte = 0x01 // the head: format, frame, id counter, counts
	keySchema byte = 0x02 // the saved components' names, in mask order
	keyEntity byte = 0x03 // + network id (u32, big-endian): one networked entity
	keyState  byte = 0x04 // + name: one state (resource)

	// FirstUserPrefix is the first key prefix left to the layer above: the
	// records it keeps with Tracker.Put (players, receipts) start with a byte
	// from here to 0xff.
	FirstUserPrefix byte = 0x10
)

// Format is the version of the save's layout this package writes. It
// reads saves of format 1 too, whose head has no lineage: a world restored
// from one knows no run before its own.
const Format = 2

// maxName is the longest name of a component or state in a save.
const maxName = 255

// head is the save's head record: what a restore checks the rest against.
type head struct {
	frame    ecs.Frame
	nextID   ecs.NetID
	entities int // entity records
	states   int // state records
	user     int // records of the layer above
	// runs is the saved world's lineage, oldest first, its own run last
	// (ecs.World.Lineage): none in a save of format 1.
	runs []ecs.RunStart
}

func (h *head) append(dst []byte) []byte {
	w := wire.NewWriter(dst)
	w.U8(Format)
	w.U32(uint32(h.frame))
	w.U32(uint32(h.nextID))
	w.Uvarint(uint64(h.entities))
	w.Uvarint(uint64(h.states))
	w.Uvarint(uint64(h.user))
	w.U8(uint8(len(h.runs)))
	for _, run := range h.runs {
		w.U64(run.Run)
		w.U32(uint32(run.Fresh))
	}
	return w.Bytes()
}

func (h *head) read(v []byte) error {
	r := wire.NewReader(v)
	f := r.U8()
	if r.Err() == nil && f != 1 && f != Format {
		return &store.FormatError{Where: "the save's head record", Found: fmt.Sprintf("save format %d", f), Want: fmt.Sprintf("save format %d (or 1)", Format)}
	}
	h.frame = ecs.Frame(r.U32())
	h.nextID = ecs.NetID(r.U32())
	h.entities = r.Count(1 << 31)
	h.states = r.Count(1 << 31)
	h.user = r.Count(1 << 31)
	h.runs = h.runs[:0]
	if f == 1 {
		return r.Finish()
	}
	n := int(r.U8())
	if r.Err() == nil && (n == 0 || n > ecs.MaxLineage) {
		return fmt.Errorf("the save's head names %d runs of its world (1 to %d)", n, ecs.MaxLineage)
	}
	for range n {
		run := ecs.RunStart{Run: r.U64(), Fresh: ecs.NetID(r.U32())}
		if r.Err() != nil {
			break
		}
		if k := len(h.runs); run.Run == 0 || run.Fresh == 0 || run.Fresh > h.nextID || k > 0 && run.Fresh < h.runs[k-1].Fresh {
			return fmt.Errorf("the save's head names run %d with first fresh id %d: a run is named, and its fresh ids start at 1, never go down and are not past the id counter %d", run.Run, run.Fresh, h.nextID)
		}
		h.runs = append(h.runs, run)
	}
	return r.Finish()
}

// entityKey appends the key of entity id's record to dst.
func entityKey(dst []byte, id ecs.NetID) []byte {
	return binary.BigEndian.AppendUint32(append(dst, keyEntity), uint32(id))
}

package save_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"sort"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save"
	"github.com/tandem-go/tandem/store"
)

// servedRecords is a store world that holds one save of the given records
// (in key order, as every store gives them): only Load is served.
type servedRecords struct {
	store.World
	keys   []string
	values map[string][]byte
}

func (s *servedRecords) Load(_ context.Context, fn func(key, value []byte) error) (uint64, error) {
	if len(s.keys) == 0 {
		return 0, nil
	}
	for _, k := range s.keys {
		if err := fn([]byte(k), s.values[k]); err != nil {
			return 0, err
		}
	}
	return 1, nil
}

// parseRecords reads the fuzzer's bytes as records: a key length (one byte),
// the key, a value length (a varint), the value; what does not read ends
// the list. The last record of a key wins, as in a store.
func parseRecords(b []byte) *servedRecords {
	s := &servedRecords{values: map[string][]byte{}}
	r := wire.NewReader(b)
	for r.Len() > 0 {
		key := r.LenBytes(store.MaxKeySize)
		value := r.LenBytes(store.MaxValueSize)
		if r.Err() != nil {
			break
		}
		if _, ok := s.values[string(key)]; !ok {
			s.keys = append(s.keys, string(key))
		}
		s.values[string(key)] = bytes.Clone(value)
	}
	sort.Strings(s.keys)
	return s
}

// appendRecord appends one record as parseRecords reads it.
func appendRecord(dst, key, value []byte) []byte {
	w := wire.NewWriter(dst)
	w.LenBytes(key)
	w.LenBytes(value)
	return w.Bytes()
}

// fuzzSave is the seed of FuzzLoad: a save of a populated rig (entities with
// and without health, owned by the host and by peer 2, the score) and two
// records of the layer above, as parseRecords reads them.
func fuzzSave(f *testing.F) []byte {
	r := newRig()
	r.populate(7)
	r.score.Left = 3
	r.t.Start()
	r.t.Put([]byte{save.FirstUserPrefix, 1}, []byte("player"))
	r.t.Put([]byte{save.FirstUserPrefix + 1, 1, 0, 0, 0, 0, 0, 0, 0, 7}, []byte("receipt"))
	r.sched.Step()
	var b store.Batch
	if _, err := r.t.Fill(&b); err != nil {
		f.Fatal(err)
	}
	var out []byte
	_ = b.Range(func(k, v []byte, del bool) error {
		if !del {
			out = appendRecord(out, k, v)
		}
		return nil
	})
	// The seed restores: the fuzzer starts from a save that reads.
	check := newRig()
	if res, err := check.t.Load(context.Background(), parseRecords(out), nil, nil); err != nil || res.Entities != 7 || res.States != 1 {
		f.Fatalf("the seed save does not restore: %+v, %v", res, err)
	}
	return out
}

// FuzzLoad: whatever records a store holds (a save written by another
// version, bytes damaged past the store's checksums), a restore is a restored
// world or a typed error (save.ErrMismatch, store.ErrFormat), never a panic,
// and a restored world holds what the head counts and saves again.
func FuzzLoad(f *testing.F) {
	seed := fuzzSave(f)
	f.Add(seed)
	f.Add([]byte{})
	f.Add(appendRecord(nil, []byte{1}, []byte{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}))
	f.Add(appendRecord(seed, []byte{3, 0, 0, 0, 0}, []byte{0, 0}))
	f.Add(appendRecord(seed, []byte{3, 0xff, 0xff, 0xff, 0xff}, []byte{0, 1, 0}))
	twice := wire.NewWriter(nil)
	twice.Uvarint(3)
	for _, name := range []string{"ecs.Transform", "ecs.Velocity", "ecs.Velocity"} {
		twice.String(name)
	}
	f.Add(appendRecord(seed, []byte{2}, twice.Bytes()))
	f.Add(appendRecord(seed, []byte{4, 's'}, []byte{1}))
	f.Add(appendRecord(seed, []byte{}, []byte{1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		st := parseRecords(b)
		r := newRig()
		users := 0
		var restored []arche.Entity
		res, err := r.t.Load(context.Background(), st, func(key, value []byte) error {
			users++
			return nil
		}, func(e arche.Entity) { restored = append(restored, e) })
		if err != nil {
			if !errors.Is(err, save.ErrMismatch) && !errors.Is(err, store.ErrFormat) {
				t.Fatalf("Load: an untyped error %v", err)
			}
			return
		}
		if res.Seq == 0 {
			return
		}
		if n := r.w.Networked(); n != res.Entities || len(restored) != n {
			t.Fatalf("restored %d entities (%d passed on), the world holds %d", res.Entities, len(restored), n)
		}
		if r.w.Frame() != res.Frame || r.w.NextNetID() != res.NextID {
			t.Fatalf("the world is at frame %d, next id %d; the save said %d, %d", r.w.Frame(), r.w.NextNetID(), res.Frame, res.NextID)
		}
		r.t.Start()
		r.sched.Step()
		var batch store.Batch
		if _, err := r.t.Fill(&batch); err != nil && !errors.Is(err, save.ErrUnsaved) {
			t.Fatalf("a restored world does not save: %v", err)
		}
	})
}

// plainAll is a plain type with every kind Plain encodes, padding between
// fields and a run of adjacent ones.
type plainAll struct {
	On    bool
	I8    int8
	U16   uint16
	F32   float32
	I     int
	U     uint
	P     uintptr
	F64   float64
	Flags [3]bool
	Pair  [2]struct {
		A int16
		B uint8
	}
	Z int64
}

// FuzzPlain: a Plain codec reads any bytes into a value or fails on the
// reader (never writing past the value: it writes through unsafe), and what
// it reads it writes back bit for bit.
func FuzzPlain(f *testing.F) {
	c := save.Plain[plainAll]()
	v := plainAll{On: true, I8: -3, U16: 7, F32: float32(math.Inf(-1)), I: -1, U: math.MaxUint64, P: 9, F64: math.NaN(), Z: math.MinInt64}
	v.Flags[1] = true
	v.Pair[1].A = -300
	good := c.Append(nil, &v)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(append(bytes.Clone(good), 0))
	bad := bytes.Clone(good)
	bad[0] = 2 // a bool that is neither 0 nor 1
	f.Add(bad)
	f.Fuzz(func(t *testing.T, b []byte) {
		// The value sits between two guards: a write past it shows.
		var box struct {
			before [16]byte
			v      plainAll
			after  [16]byte
		}
		r := wire.NewReader(b)
		c.Read(&r, &box.v)
		if box.before != [16]byte{} || box.after != [16]byte{} {
			t.Fatalf("Read wrote outside the value: % x / % x", box.before, box.after)
		}
		if err := r.Finish(); err != nil {
			return
		}
		if out := c.Append(nil, &box.v); !bytes.Equal(out, b) {
			t.Fatalf("read % x, wrote back % x", b, out)
		}
	})
}

// unsaved serves a save's records with sequence 0, which says the world was
// never committed: its sequence and its records disagree.
type unsaved struct{ *servedRecords }

func (s unsaved) Name() string { return "arena" }

func (s unsaved) Load(ctx context.Context, fn func(key, value []byte) error) (uint64, error) {
	_, err := s.servedRecords.Load(ctx, fn)
	return 0, err
}

// A store whose sequence says "never saved" while it holds records is
// corrupt: Load refuses it rather than restore its entities unchecked and
// report no save.
func TestRecordsWithoutASaveAreCorrupt(t *testing.T) {
	src := newRig()
	src.populate(7)
	src.t.Start()
	src.sched.Step()
	var b store.Batch
	if _, err := src.t.Fill(&b); err != nil {
		t.Fatal(err)
	}
	var out []byte
	b.Range(func(k, v []byte, del bool) error {
		if !del {
			out = appendRecord(out, k, v)
		}
		return nil
	})
	r := newRig()
	res, err := r.t.Load(context.Background(), unsaved{parseRecords(out)}, nil, nil)
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("records under sequence 0: %+v, %v; want store.ErrCorrupt", res, err)
	}
}

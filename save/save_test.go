package save_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save"
	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

// health is a host-only component: saved, never replicated.
type health struct {
	HP    int32
	Armor float64
}

// score is a saved state (a resource).
type score struct{ Left, Right int }

// sprite is what a restore rebuilds: skipped.
type sprite struct{ Frame int }

// rig is a world with its schema, tracker and schedule.
type rig struct {
	w     *ecs.World
	sched *ecs.Schedule
	s     *save.Schema
	t     *save.Tracker
	score *score
}

// newRig makes the rig; each of more adds to the schema before the tracker
// is made.
func newRig(more ...func(*save.Schema)) *rig {
	r := &rig{w: ecs.NewWorld(), score: &score{}}
	r.sched = ecs.NewSchedule(r.w, clock.Real{}, 0)
	ecs.AddResource(r.w, r.score)
	r.s = save.NewSchema(r.w)
	save.Component(r.s, save.Plain[ecs.Transform]())
	save.Component(r.s, save.Plain[ecs.Velocity]())
	save.Component(r.s, save.Plain[health]())
	save.State(r.s, save.Plain[score]())
	save.Skip[sprite](r.s)
	// Replication marks Transform replicated; health is journaled by the
	// schema only.
	r.w.SetReplicated(r.w.IDs.Transform)
	for _, f := range more {
		f(r.s)
	}
	r.t = save.NewTracker(r.s)
	r.sched.AddTo(ecs.StageOutput, "save", r.t)
	return r
}

// populate spawns n entities: every third with health, every fifth owned by
// peer 2, each with a sprite.
func (r *rig) populate(n int) {
	a := r.w.Arche()
	m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, sprite](a)
	hm := generic.NewMap1[health](a)
	for i := range n {
		owner := ecs.HostPeer
		if i%5 == 0 {
			owner = 2
		}
		e := m.NewWith(&ecs.Transform{X: float64(i) + 1.0/3, Y: -float64(i) * math.Pi, Angle: 0.1 * float64(i)},
			&ecs.Velocity{X: 1e-300 * float64(i), Angular: math.Copysign(0, -1)},
			&ecs.NetworkIdentity{Owner: owner}, &sprite{Frame: i})
		if i%3 == 0 {
			hm.Assign(e, &health{HP: int32(100 - i), Armor: math.NaN()})
		}
	}
}

func openWorld(t testing.TB, path string) store.World {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{Holder: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w, err := db.OpenWorld(context.Background(), "w")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// commit fills and commits the tracker's next save.
func commit(t *testing.T, r *rig, st store.World) save.FillStats {
	t.Helper()
	var b store.Batch
	fs, err := r.t.Fill(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(context.Background(), &b); err != nil {
		r.t.Failed()
		t.Fatal(err)
	}
	r.t.Committed()
	return fs
}

// records loads every record of st.
func records(t *testing.T, st store.World) storetest.Model {
	t.Helper()
	m := storetest.Model{}
	if _, err := st.Load(context.Background(), func(k, v []byte) error {
		m[string(k)] = bytes.Clone(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

// entities returns every networked entity's owner and saved components,
// as their plain encodings (bits, not values: NaN and -0 must survive too),
// by network id.
func entities(r *rig) map[ecs.NetID]string {
	out := map[ecs.NetID]string{}
	a := r.w.Arche()
	tr, vl, hp := save.Plain[ecs.Transform](), save.Plain[ecs.Velocity](), save.Plain[health]()
	hm, sm := generic.NewMap[health](a), generic.NewMap[sprite](a)
	for slot := range int32(r.w.NetSlots()) {
		e, id, ok := r.w.SlotEntity(slot)
		if !ok {
			continue
		}
		ni, _ := r.w.Identity(e)
		s := fmt.Sprintf("owner %d %x %x", ni.Owner,
			tr.Append(nil, (*ecs.Transform)(a.Get(e, r.w.IDs.Transform))),
			vl.Append(nil, (*ecs.Velocity)(a.Get(e, r.w.IDs.Velocity))))
		if hm.Has(e) {
			s += fmt.Sprintf(" health %x", hp.Append(nil, hm.Get(e)))
		}
		_ = sm
		out[id] = s
	}
	return out
}

// TestSaveRestoreSave: a world saved, restored into a fresh world and saved
// again gives byte-identical records; every component bit for bit, the
// frame, the id counter and the state are the saved ones, and skipped
// components are left to the restore.
func TestSaveRestoreSave(t *testing.T) {
	dir := t.TempDir()
	st := openWorld(t, filepath.Join(dir, "a.db"))
	r := newRig()
	r.populate(50)
	r.score.Left, r.score.Right = 3, 4
	r.w.Arche().RemoveEntity(mustEntity(t, r, 50)) // the counter stays above it
	r.w.SetFrame(1234)
	r.t.Start()
	fs := commit(t, r, st)
	if fs.Entities != 49 || fs.States != 1 {
		t.Fatalf("first save: %+v, want 49 entities and the state", fs)
	}
	saved := records(t, st)

	r2 := newRig()
	var rebuilt int
	res, err := r2.t.Load(context.Background(), st, nil, func(e arche.Entity) {
		if r2.w.Arche().Has(e, arche.ComponentID[sprite](r2.w.Arche())) {
			t.Errorf("a skipped component came back from the save")
		}
		rebuilt++
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Entities != 49 || rebuilt != 49 || res.Frame != 1234 || res.NextID != 51 || res.Rewrite {
		t.Fatalf("restored %+v (%d passed on), want 49 entities at frame 1234, next id 51", res, rebuilt)
	}
	if r2.w.Frame() != 1234 || r2.w.NextNetID() != 51 || *r2.score != *r.score {
		t.Fatalf("world after restore: frame %d, next id %d, score %+v", r2.w.Frame(), r2.w.NextNetID(), *r2.score)
	}
	if got, want := entities(r2), entities(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored entities differ:\n got %v\nwant %v", got, want)
	}

	// Saved again, in full, into a second store: the same bytes.
	st2 := openWorld(t, filepath.Join(dir, "b.db"))
	r2.t.Start()
	r2.t.MarkAll()
	commit(t, r2, st2)
	// Its head names one run more: the restored world's own.
	again := records(t, st2)
	head := string([]byte{0x01})
	if runs := r2.w.Lineage(nil); len(runs) != 2 || runs[0] != r.w.Lineage(nil)[0] {
		t.Fatalf("the restored world's lineage is %v, want the saved world's run %v, then its own", runs, r.w.Lineage(nil)[0])
	}
	if want := headWithRuns(saved[head], r2.w.Lineage(nil)); !bytes.Equal(again[head], want) {
		t.Fatalf("the head saved again is % x, want % x: the saved head with the restored run after the saved one", again[head], want)
	}
	delete(again, head)
	delete(saved, head)
	if !reflect.DeepEqual(again, saved) {
		t.Fatalf("save → restore → save: %d records, %d before; they differ", len(again), len(saved))
	}
	// And the restored world's next save, with nothing changed, is the head
	// alone.
	if fs := commit(t, r2, st); !fs.Empty() {
		t.Fatalf("a save right after a restore wrote %+v", fs)
	}
}

// headWithRuns returns head record h, of a save of a world never restored
// (its lineage its own run alone), with lineage runs in its place.
func headWithRuns(h []byte, runs []ecs.RunStart) []byte {
	return headOf(h[:len(h)-13], len(runs), runs)
}

// headOf returns a head record of format 2: counts (the head up to its
// lineage), then a count of n runs and runs.
func headOf(counts []byte, n int, runs []ecs.RunStart) []byte {
	w := wire.NewWriter(bytes.Clone(counts))
	w.U8(uint8(n))
	for _, run := range runs {
		w.U64(run.Run)
		w.U32(uint32(run.Fresh))
	}
	return w.Bytes()
}

func mustEntity(t *testing.T, r *rig, id ecs.NetID) arche.Entity {
	t.Helper()
	e, ok := r.w.EntityOf(id)
	if !ok {
		t.Fatalf("no entity %d", id)
	}
	return e
}

// TestSaveCostsWhatChanged: a save holds the entities reported written,
// spawned, removed, re-owned, or given or stripped of a saved component, and
// nothing else; a host-only component's reported write counts.
func TestSaveCostsWhatChanged(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(100)
	r.t.Start()
	r.sched.Step() // the spawns' frame
	commit(t, r, st)
	a := r.w.Arche()
	hid := arche.ComponentID[health](a)

	step := func(fn func()) save.FillStats {
		fn()
		r.sched.Step()
		return commit(t, r, st)
	}
	fs := step(func() {
		e := mustEntity(t, r, 7)
		(*ecs.Transform)(a.Get(e, r.w.IDs.Transform)).X = 99
		ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
		e = mustEntity(t, r, 4) // has health: i = 3
		(*health)(a.Get(e, hid)).HP = 1
		ecs.MutateComponent(r.w, e, hid)
		ecs.MutateComponent(r.w, e, hid)
		// A write of a skipped component is nobody's business.
		(*sprite)(a.Get(mustEntity(t, r, 9), arche.ComponentID[sprite](a))).Frame = -1
	})
	if fs.Entities != 2 || fs.Deleted != 0 {
		t.Fatalf("two entities written: the save holds %+v", fs)
	}
	fs = step(func() {
		a.RemoveEntity(mustEntity(t, r, 10))
		ecs.SetOwner(r.w, mustEntity(t, r, 11), 3)
		a.Remove(mustEntity(t, r, 13), hid) // i = 12 had health
		a.Add(mustEntity(t, r, 14), hid)
		m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](a)
		m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	})
	if fs.Entities != 4 || fs.Deleted != 1 {
		t.Fatalf("one removed, one re-owned, two changed in shape, one spawned: the save holds %+v", fs)
	}
	if fs := step(func() {}); !fs.Empty() {
		t.Fatalf("a save with nothing changed holds %+v", fs)
	}
	r.score.Left++
	if fs := step(func() {}); fs.States != 1 || fs.Entities != 0 {
		t.Fatalf("a changed state: the save holds %+v", fs)
	}

	r2 := newRig()
	if _, err := r2.t.Load(context.Background(), st, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := entities(r2), entities(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("the incremental saves restore another world:\n got %v\nwant %v", got, want)
	}
}

// TestSaveBetweenSteps: a save taken between steps (Update, then Fill)
// holds what changed since the last step; the step after it reads the same
// frame's journal again and queues no delete twice, while a write made after
// that save, in the same frame, is still saved.
func TestSaveBetweenSteps(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(20)
	r.t.Start()
	r.sched.Step()
	commit(t, r, st)
	a := r.w.Arche()

	a.RemoveEntity(mustEntity(t, r, 5))
	e := mustEntity(t, r, 7)
	(*ecs.Transform)(a.Get(e, r.w.IDs.Transform)).X = 41
	ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	r.t.Update(r.w) // the save between steps
	if fs := commit(t, r, st); fs.Deleted != 1 || fs.Entities != 1 {
		t.Fatalf("the save between steps holds %+v, want one delete, one entity", fs)
	}
	(*ecs.Transform)(a.Get(e, r.w.IDs.Transform)).X = 42 // the same pair, this frame
	ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	r.sched.Step()
	if fs := commit(t, r, st); fs.Deleted != 0 || fs.Entities != 1 {
		t.Fatalf("the save after the step holds %+v, want the entity written again and no delete", fs)
	}
	r2 := newRig()
	if _, err := r2.t.Load(context.Background(), st, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := entities(r2), entities(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("the saves restore another world:\n got %v\nwant %v", got, want)
	}
}

// TestFailedSaveIsRetried: what a failed commit held goes into the next
// fill, as it is then.
func TestFailedSaveIsRetried(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	faulty := storetest.NewFaulty(st)
	r := newRig()
	r.populate(10)
	r.t.Start()
	r.sched.Step() // the spawns' frame
	commit(t, r, st)
	a := r.w.Arche()
	e := mustEntity(t, r, 3)
	write := func(x float64) {
		(*ecs.Transform)(a.Get(e, r.w.IDs.Transform)).X = x
		ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
		r.sched.Step()
	}
	write(1)
	a.RemoveEntity(mustEntity(t, r, 5))
	r.sched.Step()
	r.t.Put([]byte{0x10, 1}, []byte("player"))
	faulty.Fail(errors.New("disk full"))
	var b store.Batch
	if _, err := r.t.Fill(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := faulty.Commit(context.Background(), &b); err == nil {
		t.Fatal("the faulty store committed")
	}
	r.t.Failed()
	write(2)
	faulty.Fail(nil)
	fs, err := r.t.Fill(&b)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Entities != 1 || fs.Deleted != 1 || fs.User != 1 {
		t.Fatalf("the retry holds %+v, want the entity, the removal and the record", fs)
	}
	if _, err := faulty.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	r.t.Committed()
	r2 := newRig()
	var user []string
	if _, err := r2.t.Load(context.Background(), st, func(k, v []byte) error {
		user = append(user, fmt.Sprintf("%x=%s", k, v))
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	if x := (*ecs.Transform)(r2.w.Arche().Get(mustEntity(t, r2, 3), r2.w.IDs.Transform)).X; x != 2 {
		t.Errorf("restored X %v, want 2, the value at the retry", x)
	}
	if _, ok := r2.w.EntityOf(5); ok || len(user) != 1 || user[0] != "1001=player" {
		t.Errorf("entity 5 restored: %v; user records %v", ok, user)
	}
}

// TestUnsavedComponent: an entity with a component the schema neither saves
// nor skips fails the save, naming both; nothing is lost from the queue.
func TestUnsavedComponent(t *testing.T) {
	type secret struct{ X int }
	r := newRig()
	r.populate(3)
	r.t.Start()
	a := r.w.Arche()
	a.Add(mustEntity(t, r, 2), arche.ComponentID[secret](a))
	var b store.Batch
	_, err := r.t.Fill(&b)
	var ue *save.UnsavedError
	if !errors.As(err, &ue) || !errors.Is(err, save.ErrUnsaved) || ue.Entity != 2 || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("Fill: %v, want an UnsavedError for entity 2's secret", err)
	}
	a.Remove(mustEntity(t, r, 2), arche.ComponentID[secret](a))
	if fs, err := r.t.Fill(&b); err != nil || fs.Entities != 3 {
		t.Fatalf("after the component left: %+v, %v; want all three entities", fs, err)
	}
}

// TestBatchedEntitiesSave: entities made by ecs.World.NewNetworked carry
// the ecs's shard tags, which hold nothing and are not saved: they do not
// fail the save.
func TestBatchedEntitiesSave(t *testing.T) {
	r := newRig()
	r.t.Start()
	w := r.w
	sp := arche.ComponentID[sprite](w.Arche())
	const n = 1<<14 + 4 // past the first shards (of 2,048); the first has no tag
	b := w.NewNetworked(n, w.IDs.Transform, w.IDs.Velocity, w.IDs.NetworkIdentity, sp)
	for b.Next() {
	}
	var batch store.Batch
	if fs, err := r.t.Fill(&batch); err != nil || fs.Entities != n {
		t.Fatalf("Fill of %d batched entities: %+v, %v; want all saved", n, fs, err)
	}
}

// TestRestoreMismatch: saves that do not fit the world are typed errors.
func TestRestoreMismatch(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(5)
	r.t.Start()
	commit(t, r, st)

	// A game without the health component.
	other := func() *save.Tracker {
		w := ecs.NewWorld()
		ecs.AddResource(w, &score{})
		s := save.NewSchema(w)
		save.Component(s, save.Plain[ecs.Transform]())
		save.Component(s, save.Plain[ecs.Velocity]())
		save.State(s, save.Plain[score]())
		return save.NewTracker(s)
	}
	if _, err := other().Load(context.Background(), st, nil, nil); !errors.Is(err, save.ErrMismatch) || !strings.Contains(err.Error(), "health") {
		t.Errorf("restore without a saved component: %v, want ErrMismatch naming it", err)
	}
	// A stray record the head does not count.
	var b store.Batch
	b.Put([]byte{0x03, 0, 0, 0, 99}, []byte{0, 0})
	if _, err := st.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if _, err := newRig().t.Load(context.Background(), st, nil, nil); !errors.Is(err, save.ErrMismatch) {
		t.Errorf("restore with an uncounted entity: %v, want ErrMismatch", err)
	}
	// A head of another format.
	b.Reset()
	b.Delete([]byte{0x03, 0, 0, 0, 99})
	b.Put([]byte{0x01}, []byte{9})
	if _, err := st.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if _, err := newRig().t.Load(context.Background(), st, nil, nil); !errors.Is(err, store.ErrFormat) {
		t.Errorf("restore of another format: %v, want store.ErrFormat", err)
	}
}

// TestSchemaGrown: a game that saves a new component reads its old saves,
// says which component they lack, and rewrites every entity at its first
// save.
func TestSchemaGrown(t *testing.T) {
	type extra struct{ N uint8 }
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(4)
	r.t.Start()
	commit(t, r, st)
	w := ecs.NewWorld()
	ecs.AddResource(w, &score{})
	s := save.NewSchema(w)
	save.Component(s, save.Plain[extra]())
	save.Component(s, save.Plain[ecs.Transform]())
	save.Component(s, save.Plain[ecs.Velocity]())
	save.Component(s, save.Plain[health]())
	save.State(s, save.Plain[score]())
	save.Skip[sprite](s)
	tr := save.NewTracker(s)
	res, err := tr.Load(context.Background(), st, nil, nil)
	if err != nil || !res.Rewrite || res.Entities != 4 {
		t.Fatalf("restore into a grown schema: %+v, %v", res, err)
	}
	if want := save.Plain[extra]().Name; len(res.Missing) != 1 || res.Missing[0] != want {
		t.Fatalf("the restore says the save lacks %q, want [%q]", res.Missing, want)
	}
	tr.Start()
	var b store.Batch
	if fs, err := tr.Fill(&b); err != nil || fs.Entities != 4 {
		t.Fatalf("the first save after it: %+v, %v; want every entity", fs, err)
	}
}

// TestPlain: the plain codec keeps every bit, refuses what it cannot read,
// and refuses types it cannot encode.
func TestPlain(t *testing.T) {
	type inner struct {
		On  bool
		Arr [3]int16
	}
	type all struct {
		A   int8
		B   uint16
		C   int32
		D   uint64
		E   int
		F   float32
		G   float64
		H   uintptr
		In  inner
		Ins [2]inner
	}
	c := save.Plain[all]()
	v := all{A: -1, B: 0xfffe, C: math.MinInt32, D: math.MaxUint64, E: -5, F: float32(math.Inf(-1)), G: math.Float64frombits(0x7ff8000000000123),
		H: 7, In: inner{true, [3]int16{-1, 2, -3}}, Ins: [2]inner{{false, [3]int16{4}}, {true, [3]int16{0, 0, math.MaxInt16}}}}
	enc := c.Append(nil, &v)
	if len(enc) != 1+2+4+8+8+4+8+8+7*3 {
		t.Fatalf("encoded %d bytes", len(enc))
	}
	var got all
	r := wire.NewReader(enc)
	c.Read(&r, &got)
	if err := r.Finish(); err != nil || math.Float64bits(got.G) != math.Float64bits(v.G) || got.In != v.In || got.Ins != v.Ins || got.E != v.E || got.D != v.D {
		t.Fatalf("read back %+v (%v), want %+v", got, err, v)
	}
	bad := bytes.Clone(enc)
	bad[1+2+4+8+8+4+8+8] = 2 // In.On
	r = wire.NewReader(bad)
	c.Read(&r, &got)
	if !errors.Is(r.Err(), wire.ErrInvalid) {
		t.Errorf("a bool of 2: %v, want ErrInvalid", r.Err())
	}
	r = wire.NewReader(enc[:5])
	c.Read(&r, &got)
	if !errors.Is(r.Err(), wire.ErrTruncated) {
		t.Errorf("truncated: %v", r.Err())
	}
	if testing.AllocsPerRun(100, func() { enc = c.Append(enc[:0], &v) }) != 0 {
		t.Error("Append allocates")
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "Name") {
			t.Errorf("Plain of a struct with a string: panic %v, want one naming the field", p)
		}
	}()
	type named struct{ Name string }
	save.Plain[named]()
}

// TestCommitter: batches commit off the caller's goroutine, one at a time,
// and a blocked store blocks nobody but the committer.
func TestCommitter(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	faulty := storetest.NewFaulty(st)
	c := save.NewCommitter(faulty, time.Minute)
	defer c.Close()
	release := faulty.Block()
	var b store.Batch
	b.Put([]byte{0x10}, []byte("x"))
	c.Submit(&b, 1)
	if err := faulty.WaitBlocked(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Poll(); ok || !c.Busy() {
		t.Fatal("a blocked commit reported a result")
	}
	release()
	res, ok := c.Wait(context.Background())
	if !ok || res.Err != nil || res.Gen != 1 || res.Seq != 1 || c.Busy() {
		t.Fatalf("after the release: %+v, %v", res, ok)
	}
	faulty.Fail(errors.New("broken"))
	c.Submit(&b, 2)
	if res, _ := c.Wait(context.Background()); res.Err == nil || res.Gen != 2 {
		t.Fatalf("a failing store: %+v", res)
	}
}

// member and role are excluded components: the session's, never saved.
type member struct{ Name [8]byte }
type role struct{ Admin bool }

func excludeBoth(s *save.Schema) {
	save.Exclude[member](s)
	save.Exclude[role](s)
}

// TestExclude: entities holding an excluded component are left out of the
// save, whatever else they hold, once each however many excluded components
// they hold, and the save restores without them.
func TestExclude(t *testing.T) {
	type unsaved struct{ X int }
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig(excludeBoth)
	r.populate(3)
	a := r.w.Arche()
	m := generic.NewMap3[member, unsaved, ecs.NetworkIdentity](a)
	m.NewWith(&member{}, &unsaved{}, &ecs.NetworkIdentity{})
	both := generic.NewMap3[member, role, ecs.NetworkIdentity](a)
	both.NewWith(&member{}, &role{}, &ecs.NetworkIdentity{})
	r.t.Start()
	r.sched.Step()
	if fs := commit(t, r, st); fs.Entities != 3 {
		t.Fatalf("saved %+v, want the 3 entities without the members", fs)
	}
	r2 := newRig(excludeBoth)
	if res, err := r2.t.Load(context.Background(), st, nil, nil); err != nil || res.Entities != 3 {
		t.Fatalf("restore: %+v, %v", res, err)
	}
}

// TestExcludedAfterSaved: an entity saved, then given an excluded component,
// has its record deleted by the next save; one given it and rid of it again
// between two saves keeps its record. Both saves restore.
func TestExcludedAfterSaved(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig(excludeBoth)
	r.populate(4)
	r.t.Start()
	r.sched.Step()
	commit(t, r, st)
	a := r.w.Arche()
	mid := arche.ComponentID[member](a)
	a.Add(mustEntity(t, r, 1), mid)
	back := mustEntity(t, r, 2)
	a.Add(back, mid)
	a.Remove(back, mid)
	r.sched.Step()
	if fs := commit(t, r, st); fs.Deleted != 1 {
		t.Fatalf("the save after: %+v, want entity 1's record deleted", fs)
	}
	recs := records(t, st)
	if _, ok := recs[string([]byte{3, 0, 0, 0, 1})]; ok {
		t.Fatal("entity 1, excluded since, is still in the save")
	}
	if _, ok := recs[string([]byte{3, 0, 0, 0, 2})]; !ok {
		t.Fatal("entity 2, excluded and back, is gone from the save")
	}
	r2 := newRig(excludeBoth)
	if res, err := r2.t.Load(context.Background(), st, nil, nil); err != nil || res.Entities != 3 {
		t.Fatalf("restore: %+v, %v; want the 3 entities not excluded", res, err)
	}
}

// TestPlainLayout: Plain's Layout names every field in order with the kind
// it is saved as.
func TestPlainLayout(t *testing.T) {
	type inner struct {
		On  bool
		Arr [3]int16
	}
	type all struct {
		A   int8
		E   int
		H   uintptr
		In  inner
		Ins [2]inner
	}
	want := "{A int8; E int64; H uint64; In {On bool; Arr [3]int16}; Ins [2]{On bool; Arr [3]int16}}"
	if got := save.Plain[all]().Layout; got != want {
		t.Fatalf("Layout %q, want %q", got, want)
	}
}

// healthSwapped is health with its fields the other way round: the same
// bytes in all, read with the fields swapped.
type healthSwapped struct {
	Armor float64
	HP    int32
}

// scoreSwapped is score with its fields the other way round.
type scoreSwapped struct{ Right, Left int }

// TestLayoutChangedIsRefused: a save read by a game whose component or
// state of the same name has another layout (its fields reordered) is
// refused, naming both layouts, rather than read with its fields swapped.
func TestLayoutChangedIsRefused(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(6)
	r.score.Left = 3
	r.t.Start()
	commit(t, r, st)

	game := func(swapHealth, swapScore bool) *save.Tracker {
		w := ecs.NewWorld()
		s := save.NewSchema(w)
		save.Component(s, save.Plain[ecs.Transform]())
		save.Component(s, save.Plain[ecs.Velocity]())
		if swapHealth {
			c := save.Plain[healthSwapped]()
			c.Name = save.Plain[health]().Name
			save.Component(s, c)
		} else {
			save.Component(s, save.Plain[health]())
		}
		if swapScore {
			ecs.AddResource(w, &scoreSwapped{})
			c := save.Plain[scoreSwapped]()
			c.Name = save.Plain[score]().Name
			save.State(s, c)
		} else {
			ecs.AddResource(w, &score{})
			save.State(s, save.Plain[score]())
		}
		save.Skip[sprite](s)
		return save.NewTracker(s)
	}
	for _, tc := range []struct {
		name                  string
		swapHealth, swapScore bool
		says                  string
	}{
		{"component", true, false, "{Armor float64; HP int32}"},
		{"state", false, true, "{Right int64; Left int64}"},
	} {
		_, err := game(tc.swapHealth, tc.swapScore).Load(context.Background(), st, nil, nil)
		if !errors.Is(err, save.ErrMismatch) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s with its fields reordered: %v; want ErrMismatch naming layout %s", tc.name, err, tc.says)
		}
	}
	if _, err := game(false, false).Load(context.Background(), st, nil, nil); err != nil {
		t.Fatalf("the same game: %v", err)
	}
}

// TestSaveWithoutLayouts: a save whose schema record gives no layouts (one
// written before they were recorded) restores unchecked, and the next save
// writes the schema record again, with them; a codec without a Layout is not
// checked either.
func TestSaveWithoutLayouts(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(4)
	r.t.Start()
	commit(t, r, st)
	full := records(t, st)[string([]byte{0x02})]
	// The names alone: count, then each name.
	rd := wire.NewReader(full)
	n := rd.Count(save.MaxComponents)
	for range n {
		rd.String(255)
	}
	old := full[:rd.Offset()]
	var b store.Batch
	b.Put([]byte{0x02}, old)
	if _, err := st.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}

	r2 := newRig()
	if _, err := r2.t.Load(context.Background(), st, nil, nil); err != nil {
		t.Fatalf("restore of a save without layouts: %v", err)
	}
	r2.t.Start()
	commit(t, r2, st)
	if got := records(t, st)[string([]byte{0x02})]; !bytes.Equal(got, full) {
		t.Fatalf("the schema record after the next save is %q, want %q (with the layouts)", got, full)
	}

	// health read by a hand-written codec of no Layout: not checked.
	w := ecs.NewWorld()
	ecs.AddResource(w, &score{})
	s := save.NewSchema(w)
	save.Component(s, save.Plain[ecs.Transform]())
	save.Component(s, save.Plain[ecs.Velocity]())
	hand := save.Plain[health]()
	hand.Layout = ""
	save.Component(s, hand)
	save.State(s, save.Plain[score]())
	save.Skip[sprite](s)
	if _, err := save.NewTracker(s).Load(context.Background(), st, nil, nil); err != nil {
		t.Fatalf("restore with a codec of no Layout: %v", err)
	}
}

// TestEncodingChangedSaysWhatToDo: a save read by a game whose unchecked
// codec (no Layout) reads more, or less, than was written is refused in a
// save's terms (the record shorter or longer than the codec reads), saying
// what to do, not in a network message's.
func TestEncodingChangedSaysWhatToDo(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(2)
	r.t.Start()
	commit(t, r, st)
	plain := save.Plain[health]().Read
	for _, tc := range []struct {
		name string
		read func(rd *wire.Reader, v *health)
		says string
	}{
		{"reads more", func(rd *wire.Reader, v *health) { plain(rd, v); rd.U32() }, "shorter than the codec reads"},
		{"reads less", func(rd *wire.Reader, v *health) {}, "longer than the codec reads"},
	} {
		w := ecs.NewWorld()
		s := save.NewSchema(w)
		save.Component(s, save.Plain[ecs.Transform]())
		save.Component(s, save.Plain[ecs.Velocity]())
		c := save.Plain[health]()
		c.Layout, c.Read = "", tc.read
		save.Component(s, c)
		ecs.AddResource(w, &score{})
		save.State(s, save.Plain[score]())
		save.Skip[sprite](s)
		_, err := save.NewTracker(s).Load(context.Background(), st, nil, nil)
		if !errors.Is(err, save.ErrMismatch) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "restore with the game that wrote the save") ||
			strings.Contains(err.Error(), "drop it") || strings.Contains(err.Error(), "protocol") {
			t.Errorf("a codec that %s: %v; want ErrMismatch saying %q and what to do", tc.name, err, tc.says)
		}
	}
}

// TestRetiredComponentAndState: a game that no longer has a component or a
// state its saves hold restores them once it retires their names: every
// entity comes back with the rest of its components bit for bit and
// without the retired one, the first save writes every entity again and
// deletes the retired state's record, and from then on the game restores
// without retiring anything. Without the retirement the restore is refused,
// saying what to do.
func TestRetiredComponentAndState(t *testing.T) {
	type round struct{ N uint32 }
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	v1 := newRig(func(s *save.Schema) { save.State(s, save.Plain[round]()) })
	ecs.AddResource(v1.w, &round{N: 7})
	v1.populate(9)
	v1.t.Start()
	commit(t, v1, st)
	want := entities(v1)
	healthName, roundName := save.Plain[health]().Name, save.Plain[round]().Name

	// Version 2 saves neither health nor round.
	v2 := func(retire bool) (*save.Tracker, *ecs.World) {
		w := ecs.NewWorld()
		ecs.AddResource(w, &score{})
		s := save.NewSchema(w)
		save.Component(s, save.Plain[ecs.Transform]())
		save.Component(s, save.Plain[ecs.Velocity]())
		save.State(s, save.Plain[score]())
		save.Skip[sprite](s)
		if retire {
			save.Retire(s, healthName)
			save.Retire(s, roundName)
		}
		return save.NewTracker(s), w
	}
	tr, _ := v2(false)
	_, err := tr.Load(context.Background(), st, nil, nil)
	if !errors.Is(err, save.ErrMismatch) || !strings.Contains(err.Error(), "the schema record") || !strings.Contains(err.Error(), "save.Retire") {
		t.Fatalf("restore without the retirement: %v, want ErrMismatch naming the schema record and save.Retire", err)
	}
	tr, w := v2(true)
	res, err := tr.Load(context.Background(), st, nil, nil)
	if err != nil || !res.Rewrite || res.Entities != 9 || res.States != 1 {
		t.Fatalf("restore with health and round retired: %+v, %v", res, err)
	}
	if !slices.Equal(res.Retired, []string{healthName, roundName}) {
		t.Fatalf("the restore says it left out %q, want health and round", res.Retired)
	}
	got := entities(&rig{w: w})
	for id, s := range want {
		if i := strings.Index(s, " health"); i >= 0 {
			s = s[:i] // the retired component is left out
		}
		if got[id] != s {
			t.Fatalf("entity %d restored as %q, want %q", id, got[id], s)
		}
	}
	q := w.Arche().Query(arche.All(arche.ComponentID[health](w.Arche())))
	if n := q.Count(); n != 0 {
		t.Fatalf("%d restored entities hold the retired component", n)
	}
	q.Close()
	tr.Start()
	var b store.Batch
	fs, err := tr.Fill(&b)
	if err != nil || fs.Entities != 9 || fs.Retired != 1 {
		t.Fatalf("the first save after it: %+v, %v; want every entity and the state's record deleted", fs, err)
	}
	if _, err := st.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	tr.Committed()
	if _, ok := records(t, st)[string(append([]byte{0x04}, roundName...))]; ok {
		t.Fatal("the retired state's record is still saved")
	}
	// Version 3 retires nothing: the save holds neither any more.
	tr3, w3 := v2(false)
	if res, err := tr3.Load(context.Background(), st, nil, nil); err != nil || res.Entities != 9 || len(res.Retired) != 0 {
		t.Fatalf("restore of the save written since: %+v, %v", res, err)
	}
	if got := entities(&rig{w: w3}); !maps.Equal(got, entities(&rig{w: w})) {
		t.Fatalf("version 3 restored %v, version 2 held %v", got, entities(&rig{w: w}))
	}
}

// TestPrefillSpreadsASave: a new world's first save taken a slice at a
// time over steps in which entities already taken change, go and come is
// the world as the Fill that ends it finds it: restored, every entity bit
// for bit, none of those removed, every one spawned; and the commit holds
// each entity once in the head's count.
func TestPrefillSpreadsASave(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(5000)
	r.t.Start()
	a := r.w.Arche()
	tm := generic.NewMap[ecs.Transform](a)
	var b store.Batch
	for step := 1; r.t.Backlog() > 1000; step++ {
		n, err := r.t.Prefill(&b, 1000)
		if err != nil || n != 1000 {
			t.Fatalf("step %d: prefill took %d, %v", step, n, err)
		}
		// What the slices took changes, goes and comes back as new
		// entities.
		for i := range 40 {
			id := ecs.NetID(1 + (step*97+i*31)%5000)
			e, ok := r.w.EntityOf(id)
			if !ok {
				continue
			}
			switch i % 4 {
			case 0:
				a.RemoveEntity(e)
			default:
				tm.Get(e).X += float64(step)
				ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
			}
		}
		r.populate(3)
		r.score.Left = step
		r.t.Update(r.w)
		r.w.EndFrame()
	}
	fs, err := r.t.Fill(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	r.t.Committed()
	if fs.Entities < r.w.Networked() {
		t.Fatalf("the save wrote %d entities, the world holds %d", fs.Entities, r.w.Networked())
	}
	r2 := newRig()
	res, err := r2.t.Load(context.Background(), st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Entities != r.w.Networked() || *r2.score != *r.score {
		t.Fatalf("restored %d entities and score %+v; the world holds %d, score %+v", res.Entities, *r2.score, r.w.Networked(), *r.score)
	}
	if got, want := entities(r2), entities(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("the restored world differs from the one saved: %d entities, %d", len(got), len(want))
	}
	// The next save, nothing changed, is the head alone: nothing stayed
	// queued, and the prefilled entities were taken as saved.
	if fs := commit(t, r, st); !fs.Empty() {
		t.Fatalf("a save after it wrote %+v", fs)
	}
}

// TestPrefillThatFailsKeepsEverythingQueued: an entity no save can hold,
// met by a Prefill, fails it with an UnsavedError and leaves every entity
// queued, those already taken too: once the entity is fixed, the save
// holds the whole world.
func TestPrefillThatFailsKeepsEverythingQueued(t *testing.T) {
	type stray struct{ N int }
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(3000)
	r.t.Start()
	var b store.Batch
	if n, err := r.t.Prefill(&b, 1000); err != nil || n != 1000 {
		t.Fatalf("prefill: %d, %v", n, err)
	}
	bad := mustEntity(t, r, 2500) // in the backlog the next slices take
	r.w.Arche().Add(bad, arche.ComponentID[stray](r.w.Arche()))
	r.t.Update(r.w)
	r.w.EndFrame()
	var err error
	for err == nil && r.t.Backlog() > 0 {
		_, err = r.t.Prefill(&b, 1000)
	}
	if !errors.Is(err, save.ErrUnsaved) {
		t.Fatalf("prefill with an entity the save cannot hold: %v, want ErrUnsaved", err)
	}
	if q, b := r.t.Queued(), r.t.Backlog(); q < 3000 || b != q {
		t.Fatalf("%d entities queued after the failure, a backlog of %d; want all 3000, a whole-world save's backlog again", q, b)
	}
	r.w.Arche().Remove(bad, arche.ComponentID[stray](r.w.Arche()))
	r.t.Update(r.w)
	r.w.EndFrame()
	if fs := commit(t, r, st); fs.Entities != 3000 {
		t.Fatalf("the save after it wrote %d entities, want 3000", fs.Entities)
	}
	r2 := newRig()
	if res, err := r2.t.Load(context.Background(), st, nil, nil); err != nil || res.Entities != 3000 {
		t.Fatalf("restored %+v, %v", res, err)
	}
}

// TestPrefillWorksThroughTheBacklog: in a world where a fifth of the
// entities move every step, a whole-world save's slices take the backlog
// oldest first and leave the entities queued by their changes to the Fill:
// three slices bring a backlog of 20,000 under 8,192, and the save writes
// each entity about once, the movers again. (Slices taken from the newest
// end took the movers step after step and the backlog hardly shrank.)
func TestPrefillWorksThroughTheBacklog(t *testing.T) {
	const n, movers = 20_000, 4_000
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(n)
	r.t.Start()
	if r.t.Backlog() != n {
		t.Fatalf("a new world's first save has a backlog of %d, want %d", r.t.Backlog(), n)
	}
	a := r.w.Arche()
	tm := generic.NewMap[ecs.Transform](a)
	move := func() {
		for id := ecs.NetID(1); id <= movers; id++ {
			e := mustEntity(t, r, id)
			tm.Get(e).X++
			ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
		}
		r.t.Update(r.w)
		r.w.EndFrame()
	}
	var b store.Batch
	slices := 0
	for r.t.Backlog() > 8192 {
		if _, err := r.t.Prefill(&b, 4096); err != nil {
			t.Fatal(err)
		}
		slices++
		move()
	}
	fs, err := r.t.Fill(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	r.t.Committed()
	if slices != 3 || fs.Entities > n+movers*(slices+1) || b.Len() > n+movers*(slices+1)+4 {
		t.Fatalf("%d slices, %d entity records in a batch of %d; want 3 slices and each entity about once", slices, fs.Entities, b.Len())
	}
	r2 := newRig()
	if _, err := r2.t.Load(context.Background(), st, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := entities(r2), entities(r); !reflect.DeepEqual(got, want) {
		t.Fatal("the restored world differs from the one saved")
	}
	// A save of what changed since has no backlog to slice.
	move()
	if r.t.Backlog() != 0 || r.t.Queued() != movers {
		t.Fatalf("after a save, a backlog of %d and %d queued; want none, and the movers", r.t.Backlog(), r.t.Queued())
	}
}

// TestFailedWholeSaveIsSlicedAgain: a whole-world save whose commit failed
// leaves the whole world its backlog again, for the next save's slices
// (with none, the retry wrote the world in one step).
func TestFailedWholeSaveIsSlicedAgain(t *testing.T) {
	r := newRig()
	r.populate(5000)
	r.t.Start()
	r.w.EndFrame() // the spawns are queued, as the whole world
	var b store.Batch
	if _, err := r.t.Prefill(&b, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := r.t.Fill(&b); err != nil {
		t.Fatal(err)
	}
	r.t.Failed() // the commit did not land
	if q, bl := r.t.Queued(), r.t.Backlog(); q != 5000 || bl != 5000 {
		t.Fatalf("after the failed commit: %d queued, a backlog of %d; want the world, 5000, both", q, bl)
	}
	// A save of what changed that fails is not whole.
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	commit(t, r, st)
	e := mustEntity(t, r, 7)
	tm := generic.NewMap[ecs.Transform](r.w.Arche())
	tm.Get(e).X++
	ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	r.t.Update(r.w)
	r.w.EndFrame()
	if _, err := r.t.Fill(&b); err != nil {
		t.Fatal(err)
	}
	r.t.Failed()
	if q, bl := r.t.Queued(), r.t.Backlog(); q != 1 || bl != 0 {
		t.Fatalf("after a failed save of one change: %d queued, a backlog of %d; want 1 and none", q, bl)
	}
}

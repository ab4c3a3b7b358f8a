package ecs

import (
	"fmt"
	"slices"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
)

type health struct{ HP int }

// newNetworked creates an entity with Transform and a NetworkIdentity owned by p.
func newNetworked(w *World, p PeerID) arche.Entity {
	m := generic.NewMap2[Transform, NetworkIdentity](w.Arche())
	return m.NewWith(&Transform{}, &NetworkIdentity{Owner: p})
}

func TestComponentIndexMatchesArche(t *testing.T) {
	w := NewWorld()
	arche.ComponentID[health](w.Arche())
	for i, id := range arche.ComponentIDs(w.Arche()) {
		if got := componentIndex(id); int(got) != i {
			t.Fatalf("component %d: index %d", i, got)
		}
	}
}

func TestMutateComponentDedupsWithinFrame(t *testing.T) {
	w := NewWorld()
	w.SetReplicated(w.IDs.Transform)
	w.SetReplicated(w.IDs.Velocity)
	e := newNetworked(w, HostPeer)
	w.Arche().Add(e, w.IDs.Velocity)
	for range 3 {
		MutateComponent(w, e, w.IDs.Transform)
	}
	MutateComponent(w, e, w.IDs.Velocity)
	MutateComponent(w, e, w.IDs.Transform)
	ch := w.Journal().Changes(w)
	if len(ch) != 2 {
		t.Fatalf("got %d changes, want 2 (one per component): %+v", len(ch), ch)
	}
	id, _ := w.Identity(e)
	if ch[0].Component != w.IDs.Transform || ch[1].Component != w.IDs.Velocity || ch[0].ID != id.ID || ch[0].Entity != e {
		t.Fatalf("changes in wrong order or wrong ids: %+v", ch)
	}
}

func TestJournalClearedBetweenFrames(t *testing.T) {
	w := NewWorld()
	w.SetReplicated(w.IDs.Transform)
	e := newNetworked(w, HostPeer)
	s := NewSchedule(w, clock.Real{}, 0)
	var seen []int
	s.Add("mutate", SystemFunc(func(w *World) {
		if w.Frame()%2 == 1 {
			MutateComponent(w, e, w.IDs.Transform)
		}
	}))
	s.Add("observe", SystemFunc(func(w *World) { seen = append(seen, len(w.Journal().Changes(w))) }))
	for range 4 {
		s.Step()
	}
	want := []int{1, 0, 1, 0}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("frame %d: %d changes, want %d (all: %v)", i+1, seen[i], want[i], seen)
		}
	}
	if w.Journal().Len() != 0 {
		t.Fatal("journal not cleared after the step")
	}
}

func TestMutateIgnoresLocalEntitiesAndUnreplicated(t *testing.T) {
	w := NewWorld()
	w.SetReplicated(w.IDs.Transform)
	lm := generic.NewMap1[Transform](w.Arche())
	local := lm.New()
	MutateComponent(w, local, w.IDs.Transform)
	net := newNetworked(w, HostPeer)
	MutateComponent(w, net, w.IDs.Velocity) // not replicated
	if n := len(w.Journal().Changes(w)); n != 0 {
		t.Fatalf("got %d changes, want none", n)
	}
}

func TestMutateDeadEntityPanics(t *testing.T) {
	w := NewWorld()
	w.SetReplicated(w.IDs.Transform)
	e := newNetworked(w, HostPeer)
	w.Arche().RemoveEntity(e)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a dead entity")
		}
	}()
	MutateComponent(w, e, w.IDs.Transform)
}

func TestEntityRemovedMidFrame(t *testing.T) {
	w := NewWorld()
	w.SetReplicated(w.IDs.Transform)
	a := newNetworked(w, HostPeer)
	b := newNetworked(w, HostPeer)
	w.EndFrame()
	MutateComponent(w, a, w.IDs.Transform)
	MutateComponent(w, b, w.IDs.Transform)
	ida, _ := w.Identity(a)
	w.Arche().RemoveEntity(a)
	// arche recycles a's id at once: the new entity must start clean.
	c := newNetworked(w, HostPeer)
	if c.ID() != a.ID() {
		t.Fatalf("test premise: arche did not recycle the id (%v, %v)", a, c)
	}
	MutateComponent(w, c, w.IDs.Transform)
	ch := w.Journal().Changes(w)
	if len(ch) != 2 || ch[0].Entity != b || ch[1].Entity != c {
		t.Fatalf("changes after removal: %+v", ch)
	}
	if d := w.Journal().Despawned(); len(d) != 1 || d[0].ID != ida.ID {
		t.Fatalf("despawned %v, want [%d]", d, ida.ID)
	}
	if slot, ok := w.NetSlot(c); !ok || slot != w.Journal().Despawned()[0].Slot || ch[1].Slot != slot {
		t.Fatalf("slot of the recycled entity: %d %v, journal %+v", slot, ok, ch[1])
	}
	if e, id, ok := w.SlotEntity(ch[1].Slot); !ok || e != c || id != ch[1].ID {
		t.Fatalf("SlotEntity = %v %d %v", e, id, ok)
	}
	if sp := w.Journal().Spawned(w); len(sp) != 1 || sp[0] != c {
		t.Fatalf("spawned %v, want [%v]", sp, c)
	}
}

func TestIndexByIDAndOwner(t *testing.T) {
	w := NewWorld()
	a := newNetworked(w, 1)
	b := newNetworked(w, 1)
	c := newNetworked(w, 2)
	ia, _ := w.Identity(a)
	ib, _ := w.Identity(b)
	if ia.ID == 0 || ib.ID != ia.ID+1 {
		t.Fatalf("ids not assigned in order: %d %d", ia.ID, ib.ID)
	}
	if got, ok := w.EntityOf(ib.ID); !ok || got != b {
		t.Fatalf("EntityOf(%d) = %v %v", ib.ID, got, ok)
	}
	if len(w.Owned(1)) != 2 || len(w.Owned(2)) != 1 || len(w.Owned(7)) != 0 {
		t.Fatalf("owned: %v %v", w.Owned(1), w.Owned(2))
	}
	// Removing the component, then the entity, keeps both indexes exact.
	w.Arche().Remove(a, w.IDs.NetworkIdentity)
	if _, ok := w.EntityOf(ia.ID); ok {
		t.Fatal("id still indexed after NetworkIdentity was removed")
	}
	if o := w.Owned(1); len(o) != 1 || o[0] != b {
		t.Fatalf("owned(1) = %v, want [%v]", o, b)
	}
	SetOwner(w, c, 1)
	if ro := w.Journal().Reowned(w); len(ro) != 1 || ro[0] != c {
		t.Fatalf("reowned %v, want [%v]", ro, c)
	}
	if len(w.Owned(2)) != 0 || len(w.Owned(1)) != 2 {
		t.Fatalf("SetOwner did not re-index: %v %v", w.Owned(1), w.Owned(2))
	}
	if id, _ := w.Identity(c); id.Owner != 1 {
		t.Fatalf("component owner %d, want 1", id.Owner)
	}
	nm := generic.NewMap[NetworkIdentity](w.Arche())
	if ni := nm.Get(c); ni.Owner != 1 {
		t.Fatalf("stored component owner %d, want 1", ni.Owner)
	}
	w.Arche().RemoveEntity(b)
	if o := w.Owned(1); len(o) != 1 || o[0] != c {
		t.Fatalf("owned(1) after removing b = %v", o)
	}
	if w.Networked() != 1 {
		t.Fatalf("networked = %d, want 1", w.Networked())
	}
}

func TestIndexSurvivesRecycling(t *testing.T) {
	w := NewWorld()
	ids := map[NetID]bool{}
	for round := range 50 {
		var es []arche.Entity
		for range 10 {
			es = append(es, newNetworked(w, PeerID(round%3)))
		}
		for _, e := range es[:7] {
			ni, _ := w.Identity(e)
			if ids[ni.ID] {
				t.Fatalf("network id %d reused", ni.ID)
			}
			ids[ni.ID] = true
			w.Arche().RemoveEntity(e)
		}
	}
	if w.Networked() != 150 {
		t.Fatalf("networked = %d, want 150", w.Networked())
	}
	total := 0
	for p := range PeerID(3) {
		for _, e := range w.Owned(p) {
			ni, ok := w.Identity(e)
			if !ok || ni.Owner != p || !w.Alive(e) {
				t.Fatalf("owned(%d) holds %v (%v, %v)", p, e, ni, ok)
			}
			if got, _ := w.EntityOf(ni.ID); got != e {
				t.Fatalf("EntityOf(%d) = %v, want %v", ni.ID, got, e)
			}
		}
		total += len(w.Owned(p))
	}
	if total != 150 {
		t.Fatalf("owner index holds %d, want 150", total)
	}
}

func TestAdoptedIDAndDuplicate(t *testing.T) {
	w := NewWorld()
	m := generic.NewMap1[NetworkIdentity](w.Arche())
	e := m.NewWith(&NetworkIdentity{ID: 42, Owner: 3})
	if got, ok := w.EntityOf(42); !ok || got != e {
		t.Fatal("adopted id not indexed")
	}
	if w.NextNetID() != 43 {
		t.Fatalf("next id %d, want 43", w.NextNetID())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("duplicate network id did not panic")
		}
	}()
	m.NewWith(&NetworkIdentity{ID: 42})
}

func TestBatchCreationIsIndexed(t *testing.T) {
	w := NewWorld()
	bm := generic.NewMap2[Transform, NetworkIdentity](w.Arche())
	bm.NewBatch(1000)
	if w.Networked() != 1000 || len(w.Owned(HostPeer)) != 1000 {
		t.Fatalf("batch: %d networked, %d owned", w.Networked(), len(w.Owned(HostPeer)))
	}
}

func TestScheduleAdvanceFixedStep(t *testing.T) {
	w := NewWorld()
	clk := clock.NewFake(time.Unix(0, 0))
	s := NewSchedule(w, clk, 0)
	var order []string
	s.Add("a", SystemFunc(func(*World) { order = append(order, "a") }))
	s.Add("b", SystemFunc(func(*World) { order = append(order, "b") }))
	if s.Advance() != 0 {
		t.Fatal("first Advance must only start the clock")
	}
	clk.Advance(DefaultStep*2 + DefaultStep/2)
	if n := s.Advance(); n != 2 {
		t.Fatalf("ran %d steps, want 2", n)
	}
	if a := s.Alpha(); a < 0.49 || a > 0.51 {
		t.Fatalf("alpha %.3f, want 0.5", a)
	}
	if len(order) != 4 || order[0] != "a" || order[1] != "b" {
		t.Fatalf("order %v", order)
	}
	if w.Frame() != 2 {
		t.Fatalf("frame %d, want 2", w.Frame())
	}
	clk.Advance(time.Hour)
	if n := s.Advance(); n != s.MaxCatchUp {
		t.Fatalf("after a stall ran %d steps, want MaxCatchUp=%d", n, s.MaxCatchUp)
	}
	s.SetDilation(1.1)
	clk.Advance(10 * DefaultStep)
	if n := s.Advance(); n != 11 && n != 8 {
		t.Fatalf("dilated: %d steps", n)
	}
}

// Skip lets time go by unsimulated: the next Advance counts from it.
func TestScheduleSkip(t *testing.T) {
	w := NewWorld()
	clk := clock.NewFake(time.Unix(0, 0))
	s := NewSchedule(w, clk, 0)
	s.Advance()
	clk.Advance(DefaultStep + DefaultStep/2)
	s.Advance()
	clk.Advance(5 * DefaultStep)
	s.Skip()
	if w.Frame() != 1 || s.Alpha() != 0 {
		t.Fatalf("after Skip: frame %d, alpha %v; want 1 and 0", w.Frame(), s.Alpha())
	}
	clk.Advance(DefaultStep)
	if n := s.Advance(); n != 1 || w.Frame() != 2 {
		t.Fatalf("the Advance after Skip ran %d steps to frame %d, want 1 to frame 2", n, w.Frame())
	}
}

func TestScheduleStagesOrder(t *testing.T) {
	s := NewSchedule(NewWorld(), clock.Real{}, 0)
	var order []string
	sys := func(name string) System { return SystemFunc(func(*World) { order = append(order, name) }) }
	s.AddTo(StageOutput, "send", sys("send"))
	s.Add("game1", sys("game1"))
	s.AddTo(StageInput, "recv", sys("recv"))
	s.Add("game2", sys("game2"))
	s.Step()
	want := "recv game1 game2 send"
	if got := fmt.Sprint(order); got != "["+want+"]" {
		t.Fatalf("order %v, want %s", order, want)
	}
}

func TestScheduleDilationRunsFaster(t *testing.T) {
	w := NewWorld()
	clk := clock.NewFake(time.Unix(0, 0))
	s := NewSchedule(w, clk, 0)
	s.Advance()
	s.SetDilation(1.1)
	for range 600 {
		clk.Advance(DefaultStep)
		s.Advance()
	}
	if w.Frame() < 659 || w.Frame() > 661 {
		t.Fatalf("600 real steps at 1.1x ran %d frames, want 660", w.Frame())
	}
}

func TestBlendAngleShortWay(t *testing.T) {
	a := Transform{Angle: 3.0}
	b := Transform{Angle: -3.0, X: 10}
	m := Blend(a, b, 0.5)
	if m.X != 5 {
		t.Fatalf("x %.3f", m.X)
	}
	// From 3.0 to -3.0 the short way crosses π.
	if d := AngleDiff(3.0, m.Angle); d < 0.1 || d > 0.2 {
		t.Fatalf("blended angle %.3f went the long way", m.Angle)
	}
}

func BenchmarkMutateComponent(b *testing.B) {
	w := NewWorld()
	w.SetReplicated(w.IDs.Transform)
	const n = 1024
	es := make([]arche.Entity, n)
	for i := range es {
		es[i] = newNetworked(w, HostPeer)
	}
	// Warm the journal to its steady-state capacity.
	for _, e := range es {
		MutateComponent(w, e, w.IDs.Transform)
	}
	w.EndFrame()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		MutateComponent(w, es[i%n], w.IDs.Transform)
		if i%n == n-1 {
			w.EndFrame()
		}
	}
}

func TestResourceAbsentIsNil(t *testing.T) {
	w := NewWorld()
	if Resource[health](w) != nil {
		t.Fatal("absent resource not nil")
	}
	AddResource(w, &health{HP: 3})
	if r := Resource[health](w); r == nil || r.HP != 3 {
		t.Fatalf("resource %v", r)
	}
}

// A watched schedule calls its Watch at each step's start and after each
// system, by name, in the order they run, but not after a system marked
// Reporting (which still runs); World.Reported says which writes were
// reported this frame.
func TestScheduleWatch(t *testing.T) {
	w := NewWorld()
	w.SetReplicated(w.IDs.Transform)
	e := w.Arche().NewEntity(w.IDs.Transform, w.IDs.NetworkIdentity)
	s := NewSchedule(w, nil, 0)
	var seen []string
	var reported []bool
	keeps := 0
	s.AddTo(StageOutput, "send", SystemFunc(func(*World) {}))
	s.Add("move", SystemFunc(func(w *World) { MutateComponent(w, e, w.IDs.Transform) }))
	s.Add("keep", Reporting(SystemFunc(func(*World) { keeps++ })))
	s.Watch = func(name string) {
		seen = append(seen, name)
		reported = append(reported, w.Reported(e, w.IDs.Transform))
	}
	s.Step()
	if want := []string{"", "move", "send"}; !slices.Equal(seen, want) {
		t.Fatalf("watched %q, want %q", seen, want)
	}
	if want := []bool{false, true, true}; !slices.Equal(reported, want) {
		t.Fatalf("reported %v at each watch, want %v", reported, want)
	}
	if keeps != 1 || !slices.Contains(s.Systems(), "keep") {
		t.Fatalf("the system marked Reporting ran %d times in a step, scheduled as %q; want once", keeps, s.Systems())
	}
	if w.Reported(e, w.IDs.Velocity) {
		t.Fatal("a component that is not replicated reads as reported")
	}
}

// A system counted (WatchCounted) is watched at the steps in which its
// count moved during its Update, and only then.
func TestScheduleWatchCounted(t *testing.T) {
	w := NewWorld()
	s := NewSchedule(w, nil, 0)
	var calls uint64
	hook := false // the "hooks" system runs a hook at this step
	s.Add("hooks", SystemFunc(func(*World) {
		if hook {
			calls++
		}
	}))
	s.Add("game", SystemFunc(func(*World) {}))
	if s.WatchCounted("nothing", func() uint64 { return calls }) || !s.WatchCounted("hooks", func() uint64 { return calls }) {
		t.Fatal("WatchCounted found a system it does not hold, or not one it does")
	}
	var seen []string
	s.Watch = func(name string) { seen = append(seen, name) }
	for _, h := range []bool{false, true, false} {
		hook = h
		s.Step()
	}
	if want := []string{"", "game", "", "hooks", "game", "", "game"}; !slices.Equal(seen, want) {
		t.Fatalf("watched %q, want %q: the counted system at the step its count moved alone", seen, want)
	}
}

// AlphaAt counts the time since the last Advance, at the schedule's
// dilation, up to the next step; a time before the last Advance counts as
// it, and before the first Advance nothing counts.
func TestAlphaAtCountsTheTimeSinceTheLastAdvance(t *testing.T) {
	w := NewWorld()
	clk := clock.NewFake(time.Unix(0, 0))
	s := NewSchedule(w, clk, 100*time.Millisecond)
	if a := s.AlphaAt(clk.Now().Add(time.Hour)); a != 0 {
		t.Fatalf("before the first Advance: alpha %v, want 0", a)
	}
	s.Advance()
	clk.Advance(130 * time.Millisecond)
	s.Advance() // one step, 30 ms over
	at := clk.Now()
	for _, c := range []struct {
		after time.Duration
		scale float64
		want  float64
	}{
		{0, 1, 0.3}, {20 * time.Millisecond, 1, 0.5}, {-time.Second, 1, 0.3}, {time.Second, 1, 1},
		{20 * time.Millisecond, 1.5, 0.6},
	} {
		s.SetDilation(c.scale)
		if a := s.AlphaAt(at.Add(c.after)); a < c.want-1e-9 || a > c.want+1e-9 {
			t.Fatalf("%v after the last Advance, dilation %v: alpha %v, want %v", c.after, c.scale, a, c.want)
		}
	}
	if a := s.Alpha(); a < 0.3-1e-9 || a > 0.3+1e-9 {
		t.Fatalf("Alpha %v, want the last Advance's 0.3", a)
	}
	// Held still (Skip, a step's time at a time): nothing counts until an
	// Advance runs again.
	s.SetDilation(1)
	for range 3 {
		clk.Advance(100 * time.Millisecond)
		s.Skip()
		if a := s.AlphaAt(clk.Now().Add(70 * time.Millisecond)); a != 0 {
			t.Fatalf("70 ms after a Skip: alpha %v, want 0", a)
		}
	}
	clk.Advance(50 * time.Millisecond)
	s.Advance()
	if a := s.AlphaAt(clk.Now().Add(20 * time.Millisecond)); a < 0.7-1e-9 || a > 0.7+1e-9 {
		t.Fatalf("20 ms after the Advance that ended the hold (50 ms after it): alpha %v, want 0.7", a)
	}
}

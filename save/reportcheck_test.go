package save_test

import (
	"errors"
	"strings"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/save"
)

// checkedRig is a rig of n entities whose tracker checks reports, started
// and stepped once (the spawns' frame).
func checkedRig(n int, more ...func(*save.Schema)) *rig {
	r := newRig(more...)
	r.populate(n)
	r.t.CheckReports()
	r.t.Start()
	r.sched.Step()
	return r
}

// A tracker that checks reports takes reported writes, spawns, removals,
// components added and taken away, new owners and writes of skipped
// components without a word, and panics, naming the component and the
// entity, at the step where a saved component changed without a report,
// once.
func TestCheckReports(t *testing.T) {
	r := checkedRig(30)
	a := r.w.Arche()
	hid := arche.ComponentID[health](a)
	for _, fn := range []func(){
		func() {
			e := mustEntity(t, r, 4) // has health
			(*health)(a.Get(e, hid)).HP = 1
			ecs.MutateComponent(r.w, e, hid)
			(*ecs.Transform)(a.Get(e, r.w.IDs.Transform)).X = 5
			ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
		},
		func() {
			a.RemoveEntity(mustEntity(t, r, 10))
			ecs.SetOwner(r.w, mustEntity(t, r, 11), 3)
			a.Remove(mustEntity(t, r, 13), hid)
			a.Add(mustEntity(t, r, 14), hid)
			(*sprite)(a.Get(mustEntity(t, r, 9), arche.ComponentID[sprite](a))).Frame = -1
		},
		func() {
			m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](a)
			m.NewWith(&ecs.Transform{X: 3}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		},
		func() {}, // nothing
	} {
		fn()
		r.sched.Step()
	}

	e := mustEntity(t, r, 7) // has health
	(*health)(a.Get(e, hid)).HP = 77
	(*ecs.Transform)(a.Get(e, r.w.IDs.Transform)).Y = 1
	ecs.MutateComponent(r.w, e, r.w.IDs.Transform) // another component's report does not cover it
	got := func() (p any) {
		defer func() { p = recover() }()
		r.sched.Step()
		return nil
	}()
	err, ok := got.(error)
	var ue *save.UnreportedError
	if !ok || !errors.As(err, &ue) || !strings.Contains(ue.Component, "health") || ue.ID != 7 || ue.Entity != e {
		t.Fatalf("an unreported write of health on entity 7: %v, want an *UnreportedError naming them", got)
	}
	if !strings.Contains(ue.Error(), "MutateComponent") {
		t.Fatalf("the error does not say what to do: %v", ue)
	}
	// Each is found once: a save after it (a host's last, at its close)
	// goes on.
	r.sched.Step()
}

// What the save writes whole is no unreported change: an entity whose saved
// component was taken away and given back in one frame, and one that comes
// back from exclusion with a value written while it was left out. A save
// between steps (UpdateBetweenSteps) leaves an unreported write to the next
// step's check.
func TestCheckReportsSavedWhole(t *testing.T) {
	r := checkedRig(10, excludeBoth)
	a := r.w.Arche()
	hid := arche.ComponentID[health](a)
	mid := arche.ComponentID[member](a)

	e := mustEntity(t, r, 4) // has health
	a.Remove(e, hid)
	a.Add(e, hid) // health{} now: a new value, saved whole
	r.sched.Step()

	e = mustEntity(t, r, 7) // has health
	a.Add(e, mid)           // left out of the save
	r.sched.Step()
	(*health)(a.Get(e, hid)).HP = 55
	ecs.MutateComponent(r.w, e, hid)
	r.sched.Step()
	a.Remove(e, mid) // saved again, whole
	r.sched.Step()

	e = mustEntity(t, r, 10)        // has health
	(*health)(a.Get(e, hid)).HP = 3 // not reported
	r.t.UpdateBetweenSteps(r.w)     // a save between steps: no panic here
	got := func() (p any) {
		defer func() { p = recover() }()
		r.sched.Step()
		return nil
	}()
	if ue, ok := got.(*save.UnreportedError); !ok || ue.ID != 10 {
		t.Fatalf("an unreported write before a save between steps: the step after it found %v, want entity 10's", got)
	}
}

// A step with several unreported changes is told of all of them at once:
// the first named, the others counted, and their components named once
// each (not the first's again), so that a system that forgot two
// components is not found out one component a run.
func TestCheckReportsCountsTheStepsOthers(t *testing.T) {
	r := checkedRig(30)
	a := r.w.Arche()
	hid := arche.ComponentID[health](a)
	for _, id := range []ecs.NetID{4, 7, 10} { // each has health
		(*health)(a.Get(mustEntity(t, r, id), hid)).HP = 5
	}
	(*ecs.Velocity)(a.Get(mustEntity(t, r, 5), r.w.IDs.Velocity)).X = 9
	got := func() (p any) {
		defer func() { p = recover() }()
		r.sched.Step()
		return nil
	}()
	ue, ok := got.(*save.UnreportedError)
	if !ok {
		t.Fatalf("four unreported writes: the step found %v, want an *UnreportedError", got)
	}
	if ue.ID != 4 || !strings.Contains(ue.Component, "health") || ue.More != 3 {
		t.Fatalf("found %d's %s and %d more, want entity 4's health and 3 more", ue.ID, ue.Component, ue.More)
	}
	if len(ue.Also) != 1 || !strings.Contains(ue.Also[0], "Velocity") {
		t.Fatalf("the others' components: %q, want Velocity alone (health is the first's)", ue.Also)
	}
	if msg := ue.Error(); !strings.Contains(msg, "3 more in the same step") || !strings.Contains(msg, ue.Also[0]) {
		t.Fatalf("the error does not tell the others: %v", msg)
	}
	r.sched.Step() // each is found once
}

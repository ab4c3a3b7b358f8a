package replicate

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// CheckReports stays quiet while every write is reported (and for a write
// finer than the codec's precision, which is no change), and names the
// component and the entity at the first step after a write without a
// report.
func TestCheckReports(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	tf := generic.NewMap[ecs.Transform](w.Arche())
	m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.Arche())
	e := m.NewWith(&ecs.Transform{X: 1}, &ecs.NetworkIdentity{})
	h := NewHost(reg, HostConfig{CheckReports: true})
	var dx float64
	var report bool
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("move", ecs.SystemFunc(func(w *ecs.World) {
		if dx != 0 {
			tf.Get(e).X += dx
			if report {
				ecs.MutateComponent(w, e, w.IDs.Transform)
			}
		}
	})).Add("replicate", h)
	step := func() (found string) {
		defer func() {
			if p := recover(); p != nil {
				found = fmt.Sprint(p)
			}
		}()
		sched.Step()
		return ""
	}
	dx, report = 1, true
	for range 5 {
		if found := step(); found != "" {
			t.Fatalf("reported writes: %s", found)
		}
	}
	dx, report = 1.0/8192, false // under the pose's 1/512 unit
	if found := step(); found != "" {
		t.Fatalf("a write finer than the codec's precision: %s", found)
	}
	dx = 1
	found := step()
	if !strings.Contains(found, "Transform") || !strings.Contains(found, "written") || !strings.Contains(found, "MutateComponent") {
		t.Fatalf("an unreported write: %q, want the component named and MutateComponent", found)
	}

	// A component added to a live entity without a report is found too.
	w2 := ecs.NewWorld()
	h2 := NewHost(NewRegistry(w2), HostConfig{CheckReports: true})
	m2 := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w2.Arche())
	e2 := m2.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{})
	s2 := ecs.NewSchedule(w2, nil, 0)
	s2.Add("replicate", h2)
	s2.Step()
	w2.Arche().Add(e2, w2.IDs.Velocity)
	var ue *UnreportedError
	func() {
		defer func() { ue, _ = recover().(*UnreportedError) }()
		s2.Step()
	}()
	if ue == nil || ue.Component != "Velocity" || !ue.Added {
		t.Fatalf("a component added without a report: %+v, want Velocity named as added", ue)
	}
}

// pair2 is a component of two numbers.
type pair2 struct{ N, M int32 }

// CheckReports finds a codec that leaves out a field its Equal compares:
// every client would hold the value without it. Without an Equal, a value
// of whole numbers must come back as it was, so the field is found too; a
// value with a float, which the wire may round by design, cannot be told
// without an Equal, and is let be.
func TestCheckReportsFindsALossyCodec(t *testing.T) {
	for _, withEqual := range []bool{true, false} {
		w := ecs.NewWorld()
		reg := NewRegistry(w)
		c := Codec[pair2]{
			Name: "pair", Fields: 1,
			Quantize:   func(v *pair2, q []int32) { q[0] = v.N }, // M left out
			Dequantize: func(q []int32, v *pair2) { v.N = q[0] },
		}
		if withEqual {
			c.Equal = func(a, b *pair2) bool { return *a == *b }
		}
		id := reg.ID(Register(reg, c))
		m := generic.NewMap2[pair2, ecs.NetworkIdentity](w.Arche())
		e := m.NewWith(&pair2{N: 1}, &ecs.NetworkIdentity{})
		h := NewHost(reg, HostConfig{CheckReports: true})
		sched := ecs.NewSchedule(w, nil, 0)
		sched.Add("replicate", h)
		sched.Step()
		p := generic.NewMap[pair2](w.Arche())
		p.Get(e).M = 5
		ecs.MutateComponent(w, e, id)
		var le *LossyCodecError
		func() {
			defer func() {
				if r := recover(); r != nil {
					le, _ = r.(*LossyCodecError)
					if le == nil {
						t.Fatalf("with Equal %v: panicked with %v", withEqual, r)
					}
				}
			}()
			sched.Step()
		}()
		if le == nil || le.Component != "pair" || !strings.Contains(le.Error(), "Quantize and Dequantize") {
			t.Fatalf("with Equal %v, a field the codec leaves out: %v, want a *LossyCodecError naming pair and what to do", withEqual, le)
		}
	}

	w := ecs.NewWorld()
	reg := NewRegistry(w)
	type spot struct{ X, Y float64 }
	id := reg.ID(Register(reg, Codec[spot]{
		Name: "spot", Fields: 1,
		Quantize:   func(v *spot, q []int32) { q[0] = int32(v.X * 4) }, // Y left out
		Dequantize: func(q []int32, v *spot) { v.X = float64(q[0]) / 4 },
	}))
	spots := generic.NewMap2[spot, ecs.NetworkIdentity](w.Arche())
	e := spots.NewWith(&spot{X: 1}, &ecs.NetworkIdentity{})
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("replicate", NewHost(reg, HostConfig{CheckReports: true}))
	sched.Step()
	sp := generic.NewMap[spot](w.Arche())
	sp.Get(e).Y = 5
	ecs.MutateComponent(w, e, id)
	sched.Step() // no Equal, floats: not checked (a panic fails the test)
}

// A value beyond its codec's range arrives clamped at every client: the
// check names that too (a velocity past MaxSpeed), and a value within the
// range, rounded to the wire, passes.
func TestCheckReportsFindsAClampedValue(t *testing.T) {
	w := ecs.NewWorld()
	h := NewHost(NewRegistry(w), HostConfig{CheckReports: true})
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	e := m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: MaxSpeed - 0.3, Y: -1.0 / 3}, &ecs.NetworkIdentity{})
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("replicate", h)
	step := func() (le *LossyCodecError) {
		defer func() {
			if r := recover(); r != nil {
				if le, _ = r.(*LossyCodecError); le == nil {
					panic(r)
				}
			}
		}()
		sched.Step()
		return nil
	}
	if le := step(); le != nil {
		t.Fatalf("a velocity within range: %v", le)
	}
	vel := generic.NewMap[ecs.Velocity](w.Arche())
	vel.Get(e).X = 2 * MaxSpeed
	ecs.MutateComponent(w, e, w.IDs.Velocity)
	if le := step(); le == nil || le.Component != "Velocity" || !strings.Contains(le.Error(), "range") {
		t.Fatalf("a velocity past MaxSpeed: %v, want a *LossyCodecError naming Velocity and its range", le)
	}
}

// With the schedule watched (ecs.Schedule.Watch), CheckReports names the
// system that wrote without a report, beside one that writes and reports,
// and a write made between steps as such.
func TestCheckReportsNamesTheSystem(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	tf := generic.NewMap[ecs.Transform](w.Arche())
	m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.Arche())
	e := m.NewWith(&ecs.Transform{X: 1}, &ecs.NetworkIdentity{})
	e2 := m.NewWith(&ecs.Transform{X: 9}, &ecs.NetworkIdentity{})
	h := NewHost(reg, HostConfig{CheckReports: true})
	sneak := false
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("steer", ecs.SystemFunc(func(w *ecs.World) {
		tf.Get(e).X++
		ecs.MutateComponent(w, e, w.IDs.Transform)
	})).Add("nudge", ecs.SystemFunc(func(w *ecs.World) {
		if sneak {
			tf.Get(e2).Y += 3
		}
	})).AddTo(ecs.StageOutput, "replicate", h)
	sched.Watch = h.WatchSystem
	step := func() *UnreportedError { return watchedStep(sched) }
	for range 3 {
		if ue := step(); ue != nil {
			t.Fatalf("reported writes: %v", ue)
		}
	}
	sneak = true
	if ue := step(); ue == nil || ue.System != "nudge" || !strings.Contains(ue.Error(), `written by system "nudge" without a report`) {
		t.Fatalf("an unreported write in nudge: %v, want nudge named", ue)
	}
	sneak = false
	tf.Get(e2).Y += 3 // between steps, not reported
	if ue := step(); ue == nil || ue.System != betweenSteps || !strings.Contains(ue.Error(), "between steps") {
		t.Fatalf("an unreported write between steps: %v, want it named as such", ue)
	}
	ecs.MutateComponent(w, e2, w.IDs.Transform) // the write reported at last
	if ue := step(); ue != nil {
		t.Fatalf("after the report: %v", ue)
	}

	// A component added without a report names its system too, and so does
	// a write by a system that runs after the replicator, found a step later.
	add, late := false, false
	sched.Add("arm", ecs.SystemFunc(func(w *ecs.World) {
		if add {
			w.Arche().Add(e2, w.IDs.Velocity)
			add = false
		}
	})).AddTo(ecs.StageOutput, "tidy", ecs.SystemFunc(func(w *ecs.World) {
		if late {
			tf.Get(e2).Angle += 1
			late = false
		}
	}))
	add = true
	if ue := step(); ue == nil || !ue.Added || ue.Component != "Velocity" || ue.System != "arm" {
		t.Fatalf("a component added without a report: %v, want Velocity named as added by arm", ue)
	}
	ecs.MutateComponent(w, e2, w.IDs.Velocity)
	if ue := step(); ue != nil {
		t.Fatalf("after the addition's report: %v", ue)
	}
	late = true
	if ue := step(); ue != nil {
		t.Fatalf("the step of a write after the replicator ran: %v, want it found at the next", ue)
	}
	if ue := step(); ue == nil || ue.System != "tidy" {
		t.Fatalf("a write after the replicator ran: %v, want tidy named", ue)
	}
	// A write in one of the engine's systems was made by a hook it ran.
	if msg := (&UnreportedError{Component: "Transform", System: "net.receive"}).Error(); !strings.Contains(msg, "Game.Join") {
		t.Fatalf("a write in net.receive: %q, want the hooks it runs named", msg)
	}
}

// A host in play (no CheckReports) finds a value beyond its codec's range
// with its audit, counts it (Lossy) and names it (OnLossy), without
// stopping; CheckCodecs finds every such value of a world at once (a
// restore's).
func TestAuditFindsAClampedValue(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	var found []LossyCodecError
	h := NewHost(reg, HostConfig{Audit: 4, OnLossy: func(le *LossyCodecError) { found = append(found, *le) }})
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	for i := range 20 {
		m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{X: 1}, &ecs.NetworkIdentity{})
	}
	fast := m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 2 * MaxSpeed}, &ecs.NetworkIdentity{})
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("replicate", h)
	if n, first := reg.CheckCodecs(); n != 1 || first == nil || first.Component != "Velocity" || first.Entity != fast || !first.Restore || !strings.Contains(first.Error(), "restored world") {
		t.Fatalf("CheckCodecs: %d, %+v; want the one fast velocity", n, first)
	}
	for range 10 { // 21 entities, 4 a step: the audit has looked at each
		sched.Step()
	}
	if h.Lossy() == 0 || int(h.Lossy()) != len(found) || found[0].Component != "Velocity" || found[0].Entity != fast || !strings.Contains(found[0].Error(), "the host's audit") {
		t.Fatalf("the audit found %d lossy values, told %+v; want the fast velocity, each time it is looked at", h.Lossy(), found)
	}
	for _, le := range found {
		if le.Entity != fast {
			t.Fatalf("the audit found %+v, a velocity within range", le)
		}
	}
}

// CheckReports names the step's first write without a report, and counts
// the others, naming each other component and system once: a system that
// forgets two components is told of both at once.
func TestCheckReportsCountsTheStepsOtherWrites(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	movers := generic.NewFilter2[ecs.Transform, ecs.Velocity]()
	for i := range 3 {
		m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	}
	h := NewHost(reg, HostConfig{CheckReports: true})
	forget := false
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("wander", ecs.SystemFunc(func(w *ecs.World) {
		if !forget {
			return
		}
		q := movers.Query(w.Arche())
		for q.Next() {
			tf, v := q.Get()
			tf.X++
			v.X++
		}
	})).AddTo(ecs.StageOutput, "replicate", h)
	sched.Watch = h.WatchSystem
	for range 2 {
		if ue := watchedStep(sched); ue != nil {
			t.Fatalf("nothing written: %v", ue)
		}
	}
	forget = true
	ue := watchedStep(sched)
	if ue == nil || ue.Component != "Transform" || ue.System != "wander" {
		t.Fatalf("two components of three entities written without a report: %v, want Transform by wander first", ue)
	}
	if ue.More != 5 || !slices.Equal(ue.Also, []string{`Velocity written by system "wander"`}) {
		t.Fatalf("the step's other writes: %d more, also %q; want 5, and Velocity by wander once", ue.More, ue.Also)
	}
	if msg := ue.Error(); !strings.Contains(msg, `5 more in the same step, among them Velocity written by system "wander"`) {
		t.Fatalf("the error says %q, want the other writes told", msg)
	}
}

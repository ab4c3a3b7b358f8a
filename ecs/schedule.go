package ecs

import (
	"fmt"
	"time"

	"github.com/tandem-go/tandem/clock"
)

// DefaultStep is the default fixed simulation step: 60 Hz.
const DefaultStep = time.Second / 60

// System is one stage of a simulation step.
type System interface {
	// Update advances the system by one fixed step of the world.
	Update(w *World)
}

// SystemFunc adapts a function to System.
type SystemFunc func(w *World)

// Update calls f(w).
func (f SystemFunc) Update(w *World) { f(w) }

// Reporting marks sys as a system that reports every write, addition and
// removal of a replicated component it makes (MutateComponent) and calls
// no code that might not: the schedule calls no Watch after it, which
// spares a report check (replicate.HostConfig.CheckReports) a pass over
// the world. The engine's own bookkeeping systems are marked so. A write
// without a report by a system marked wrongly is still found, but laid at
// the next system watched, or at none when the check comes first (the
// replicator's, right after the engine's marked systems). Add the returned
// system as any other.
func Reporting(sys System) System {
	if sys == nil {
		return nil
	}
	return reporting{sys}
}

// reporting is a system Reporting marked.
type reporting struct{ System }

type namedSystem struct {
	name    string
	stage   Stage
	sys     System
	watched bool // Watch is called after it (not marked Reporting)
	// count, when set (WatchCounted), is read before and after the
	// system's Update: Watch is called after it only when it changed.
	count func() uint64
}

// Stage orders systems in a step: every system of an earlier stage runs
// before any of a later one; within a stage, systems run in the order added.
type Stage uint8

const (
	// StageInput runs first: the network's receive side, inputs applied to
	// the frame.
	StageInput Stage = iota
	// StageSimulate holds the game's systems and the physics step. Add puts
	// systems here.
	StageSimulate
	// StageOutput runs last: replication reads the frame's journal and sends.
	StageOutput
)

// Schedule runs ordered systems at a fixed step. Advance reads the clock and
// runs as many steps as the elapsed time holds; Step runs one. Time comes from
// the clock it is given, so a test drives ten minutes of play in seconds.
//
// Not safe for concurrent use: it belongs to the simulation goroutine.
type Schedule struct {
	world   *World
	clock   clock.Clock
	step    time.Duration
	systems []namedSystem
	acc     time.Duration
	last    time.Time
	started bool
	skipped bool // the last call was Skip: the world is held still
	scale   float64
	// MaxCatchUp bounds the steps one Advance runs after a stall (default 8);
	// time beyond it is dropped rather than simulated in a burst.
	MaxCatchUp int
	// Watch, if set, is called at the start of each step with an empty name
	// and after each system not marked Reporting with the system's name: a
	// debugging aid (a host replicator checking reports sets it to name the
	// system that wrote a component without a report, a pass over the world
	// each call). Nil: nothing is called.
	Watch func(system string)
}

// NewSchedule returns a schedule for w stepping every step (DefaultStep if
// zero) by clk.
func NewSchedule(w *World, clk clock.Clock, step time.Duration) *Schedule {
	if step <= 0 {
		step = DefaultStep
	}
	return &Schedule{world: w, clock: clk, step: step, scale: 1, MaxCatchUp: 8}
}

// Add appends a system to StageSimulate; systems run in the order added.
// Names appear in panics and profiles.
func (s *Schedule) Add(name string, sys System) *Schedule {
	return s.AddTo(StageSimulate, name, sys)
}

// AddTo appends a system to a stage.
func (s *Schedule) AddTo(stage Stage, name string, sys System) *Schedule {
	if sys == nil {
		panic(fmt.Sprintf("ecs: system %q is nil", name))
	}
	at := len(s.systems)
	for i, ns := range s.systems {
		if ns.stage > stage {
			at = i
			break
		}
	}
	s.systems = append(s.systems, namedSystem{})
	copy(s.systems[at+1:], s.systems[at:])
	_, reports := sys.(reporting)
	s.systems[at] = namedSystem{name: name, stage: stage, sys: sys, watched: !reports}
	return s
}

// WatchCounted makes the schedule call Watch after the system named name
// only at the steps in which count, read before and after its Update,
// changed. It is for an engine's system that runs the game's code (a hook,
// a command handler) at some steps only and counts each such call: at the
// others it runs only its own code, which reports its writes, and a report
// check (replicate.HostConfig.CheckReports) is spared a pass over the
// world. count runs on the step's goroutine, twice a step while Watch is
// set, and must count every call of code that might write without a
// report: one it misses leaves a write without a report to be found at the
// next system watched, and named after it. It reports whether the schedule
// holds a system of that name (every one of that name is counted so).
func (s *Schedule) WatchCounted(name string, count func() uint64) bool {
	found := false
	for i := range s.systems {
		if s.systems[i].name == name {
			s.systems[i].count = count
			found = true
		}
	}
	return found
}

// Systems returns the names of the systems in the order they run.
func (s *Schedule) Systems() []string {
	names := make([]string, len(s.systems))
	for i, ns := range s.systems {
		names[i] = ns.name
	}
	return names
}

// StepDuration returns the fixed step.
func (s *Schedule) StepDuration() time.Duration { return s.step }

// World returns the scheduled world.
func (s *Schedule) World() *World { return s.world }

// Step simulates one frame now: it advances the frame counter, runs every
// system in order, each followed by the removals it asked for under a query
// (World.RemoveEntity), then clears the change journal.
func (s *Schedule) Step() {
	w := s.world
	w.frame++
	w.FlushRemovals() // asked for under a query between steps
	if s.Watch != nil {
		s.Watch("")
	}
	for i := range s.systems {
		ns := &s.systems[i]
		var before uint64
		counted := s.Watch != nil && ns.count != nil
		if counted {
			before = ns.count()
		}
		ns.sys.Update(w)
		w.FlushRemovals()
		if s.Watch != nil && ns.watched && (!counted || ns.count() != before) {
			s.Watch(ns.name)
		}
	}
	w.journal.endFrame()
}

// SetDilation sets how fast simulated time runs against the clock: 1 is real
// time; 1.05 runs 5% fast. Clients use it to keep their lead on the host
// without skipping frames. Values are clamped to [0.5, 2].
func (s *Schedule) SetDilation(f float64) {
	s.scale = min(max(f, 0.5), 2)
}

// Dilation returns the current dilation factor.
func (s *Schedule) Dilation() float64 { return s.scale }

// Advance runs the steps that the time elapsed since the last call holds, at
// most MaxCatchUp, and returns how many ran. The first call only starts the
// clock.
func (s *Schedule) Advance() int {
	now := s.clock.Now()
	if !s.started {
		s.started = true
		s.last = now
		return 0
	}
	d := now.Sub(s.last)
	s.last = now
	s.skipped = false
	if d < 0 {
		d = 0
	}
	s.acc += time.Duration(float64(d) * s.scale)
	n := 0
	for s.acc >= s.step {
		if n == s.MaxCatchUp {
			s.acc = 0
			break
		}
		s.acc -= s.step
		s.Step()
		n++
	}
	return n
}

// Skip lets the time elapsed since the last Advance go by without
// simulating it, and returns nothing: the world is held still (a client
// whose connection broke waits for it to come back, say). The next Advance
// counts from now.
func (s *Schedule) Skip() {
	now := s.clock.Now()
	if s.started {
		s.last = now
	}
	s.acc = 0
	s.skipped = true
}

// Alpha returns how far, from 0 to 1, time has gone from the last step to the
// next, as of the last Advance: drawing blends the last two simulated states
// by it.
func (s *Schedule) Alpha() float64 {
	a := float64(s.acc) / float64(s.step)
	return min(max(a, 0), 1)
}

// AlphaAt returns Alpha as of now, a time of the schedule's clock: the time
// since the last Advance counts too (at the schedule's dilation), up to the
// next step (1). A window that draws more often than the schedule advances
// (its simulation stepped on a timer, on another goroutine) blends by it,
// so what it draws moves every frame, not once a step; a time before the
// last Advance counts as it. After Skip, until the next Advance, no time
// counts: the world is held still, and so is what is drawn of it.
func (s *Schedule) AlphaAt(now time.Time) float64 {
	acc := s.acc
	if d := now.Sub(s.last); s.started && !s.skipped && d > 0 {
		acc += time.Duration(float64(d) * s.scale)
	}
	a := float64(acc) / float64(s.step)
	return min(max(a, 0), 1)
}

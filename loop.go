package tandem

import (
	"context"
	"reflect"
	"sync/atomic"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
)

// loop steps one world at its fixed rate and lets drawing look at it between
// steps. Its mutex is held for each batch of steps and for each View: the
// world is only ever touched by one goroutine at a time, and drawing never
// waits for more than a step, nor a step for more than a View.
type loop struct {
	mu     worldLock
	w      *World
	clk    clock.Clock
	ip     *interp.Interpolator // where to draw; nil on a client until Welcome
	tracks map[reflect.Type]any // blended components: *interp.Track[T] by T
	view   View
	steps  longest // the longest a batch of steps (or the work between them) held the lock
	views  longest // the longest a View held the lock
	// prepare, if set, runs under the lock before each View.
	prepare func()
	// present, if set, draws the entities it says true for where it says:
	// a client's held bodies, in the present (netphys_draw.go); held says
	// which those are.
	present func(e arche.Entity, alpha float64) (ecs.Transform, bool)
	held    func(e arche.Entity) bool
	done    func() error // non-nil: Run returns it; called with the world locked
	// ready, if set, runs under the lock before Advance, Step (look false),
	// View and Do (look true) and says whether there is a world to step or
	// to look at: a host may have closed, or released its world while
	// nobody played (loading it again when someone wants it).
	ready func(look bool) bool
	// after, if set, runs under the lock after each Advance or Step, with
	// no step under way.
	after func()
	// period is the fixed step, for a loop whose world may be released
	// (0: the world's schedule says).
	period time.Duration
	// hold, if set and true, holds the world still: Advance runs poll
	// instead of steps (a client whose connection broke).
	hold  func() bool
	poll  func()
	ticks atomic.Uint64 // Advance and Step calls that returned
	// between, if set, runs under the lock between the steps of Run when
	// wake receives, and then every millisecond for as long as it reports
	// more to do: a host answers the handshakes under way there, as they
	// arrive, not at its next step, and an idle host is not woken for them.
	between func() (more bool)
	wake    <-chan struct{}
	// settle, if set, runs under the lock after between and Do: what a
	// world that something changed between steps needs before it is drawn.
	settle func()
	// publish, if set, runs under the lock at the end of every Advance,
	// Step, View, Do and between: it copies what the status methods read
	// without the lock, and sends what was given while the world was held.
	publish func()
}

// Ticks counts the loop's turns: every Advance or Step that returned, whether
// a step was due or not (a host whose world is released turns without
// stepping). A loop that stalls (a system that never returns, a world held
// locked, a Run that ended) stops it: it is what a health check watches (see
// package fleet). Safe from any goroutine: one atomic load.
func (l *loop) Ticks() uint64 { return l.ticks.Load() }

// Advance runs the steps that the time elapsed since the last call holds
// (Schedule.Advance) and returns how many ran. On a client the clock runs a
// little fast or slow to keep its lead on the host, so one call in many runs
// none or two where a steady period would run one. A game that drives its own
// loop calls it once per tick or per drawn frame; Run calls it on a timer.
func (l *loop) Advance() int {
	defer l.ticks.Add(1)
	l.mu.lockFor("Advance")
	defer l.mu.Unlock()
	if l.publish != nil {
		defer l.publish()
	}
	if l.ready != nil && !l.ready(false) {
		return 0
	}
	if l.hold != nil && l.hold() {
		l.w.Schedule.Skip()
		l.poll()
		if l.hold() {
			return 0
		}
	}
	start := time.Now()
	var n int
	l.mu.call(func() { n = l.w.Schedule.Advance() })
	l.steps.note(time.Since(start))
	if l.after != nil {
		l.after()
	}
	return n
}

// Step runs one simulation step now, whatever the clock says: for tests and
// for games stepped by hand.
func (l *loop) Step() {
	defer l.ticks.Add(1)
	l.mu.lockFor("Step")
	defer l.mu.Unlock()
	if l.publish != nil {
		defer l.publish()
	}
	if l.ready != nil && !l.ready(false) {
		return
	}
	l.mu.call(l.w.Schedule.Step)
	if l.after != nil {
		l.after()
	}
}

// run is Run for a loop whose end err says.
func (l *loop) run(ctx context.Context) error {
	period := l.period
	if period == 0 {
		period = l.w.Schedule.StepDuration()
	}
	t := time.NewTicker(period)
	defer t.Stop()
	// The millisecond ticker is waited on only while between has more to do:
	// a timer channel nobody waits on costs nothing.
	ft := time.NewTicker(time.Millisecond)
	defer ft.Stop()
	more := l.between != nil
	l.Advance() // starts the schedule's clock
	for {
		var fast <-chan time.Time
		if more {
			fast = ft.C
		}
		select {
		case <-ctx.Done():
			return nil
		case <-fast:
			more = l.runBetween()
			continue
		case <-l.wake:
			more = l.runBetween()
			continue
		case <-t.C:
		}
		l.Advance()
		// A step may have taken connections in and left their handshakes
		// under way: look once more a millisecond after.
		more = l.between != nil
		if l.done != nil {
			l.mu.Lock()
			err := l.done()
			l.mu.Unlock()
			if err != nil {
				return err
			}
		}
	}
}

// runBetween runs between under the lock and reports whether it has more
// to do.
func (l *loop) runBetween() bool {
	if l.between == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.publish != nil {
		defer l.publish()
	}
	start := time.Now()
	var more bool
	l.mu.call(func() {
		more = l.between()
		l.w.ECS.FlushRemovals() // what a hook removed under a query (its listeners the game's code)
	})
	if l.settle != nil {
		l.settle()
	}
	l.steps.note(time.Since(start))
	return more
}

// View lets draw look at the world between two steps, after advancing
// interpolation to now, a time of the config's Clock (time.Now() on the
// real clock; a fake clock's Now in a test), no earlier than the last
// View's: draw runs with the world locked, so it may read
// anything in it, and must not keep pointers into it after it returns. Keep
// it short (read what is drawn, draw it after): the simulation waits for it.
// It may be called from any goroutine, typically a window's draw callback,
// while Run steps the world on another.
func (l *loop) View(now time.Time, draw func(v *View)) {
	l.mu.lockFor("View")
	defer l.mu.Unlock()
	if l.publish != nil {
		defer l.publish()
	}
	if l.ready != nil && !l.ready(true) {
		return
	}
	start := time.Now()
	if l.prepare != nil {
		l.prepare()
	}
	if l.ip != nil {
		l.ip.Update(now)
	}
	l.view = View{World: l.w, ip: l.ip, tracks: l.tracks, alpha: l.w.Schedule.AlphaAt(now), present: l.present, held: l.held}
	l.mu.call(func() { draw(&l.view) })
	l.view = View{}
	l.views.note(time.Since(start))
}

// Do runs fn with the world locked between steps: for a change made from
// outside the simulation (a menu, a test) or a read that must see one frame
// whole. On a host that failed (Host.Err) it does not call fn; on a client
// and a game alone it always does.
func (l *loop) Do(fn func(w *World)) {
	l.mu.lockFor("Do")
	defer l.mu.Unlock()
	if l.publish != nil {
		defer l.publish()
	}
	if l.ready != nil && !l.ready(true) {
		return
	}
	l.mu.call(func() {
		fn(l.w)
		l.w.ECS.FlushRemovals() // what fn removed under a query (its listeners the game's code)
	})
	if l.settle != nil {
		l.settle()
	}
}

// LockStats returns the longest time a batch of steps (or the loop's work
// between steps: a host's handshakes, a client's join) held the world, and
// the longest a View held it, since the loop started, never reset (a
// host's first step, which takes its world in, included): what drawing and
// simulating cost each other. The same of the last one to two seconds: a
// client's NetStats.Steps and Views, a host's HostStats.Steps and Views (a
// game alone keeps only these).
// Safe from any goroutine, inside callbacks, hooks and observers too: two
// atomic loads.
func (l *loop) LockStats() (steps, views time.Duration) {
	return l.steps.get(), l.views.get()
}

// longest is the longest of the durations noted, since the start and
// lately: noted with the world locked, read from anywhere.
type longest struct {
	d atomic.Int64
	// Lately: the longest of the current second and of the one before it,
	// by the real clock's Unix seconds (sec), which a spike (a join's)
	// leaves after two seconds.
	cur, prev, sec atomic.Int64
}

func (m *longest) note(d time.Duration) {
	if int64(d) > m.d.Load() {
		m.d.Store(int64(d))
	}
	now := time.Now().Unix()
	if s := m.sec.Load(); now != s {
		prev := int64(0)
		if now == s+1 {
			prev = m.cur.Load()
		}
		m.prev.Store(prev)
		m.cur.Store(0)
		m.sec.Store(now)
	}
	if int64(d) > m.cur.Load() {
		m.cur.Store(int64(d))
	}
}

// get returns the longest since the start.
func (m *longest) get() time.Duration { return time.Duration(m.d.Load()) }

// lately returns the longest noted in the last one to two seconds.
func (m *longest) lately() time.Duration {
	now := time.Now().Unix()
	switch m.sec.Load() {
	case now:
		return time.Duration(max(m.cur.Load(), m.prev.Load()))
	case now - 1:
		return time.Duration(m.cur.Load())
	}
	return 0
}

// View is what drawing sees of a world for one drawn frame: the world itself,
// between two steps, and where to draw each entity.
type View struct {
	// World is the world, locked for the duration of the View callback.
	World  *World
	ip     *interp.Interpolator
	tracks map[reflect.Type]any // *interp.Track[T] by T
	alpha  float64
	// present draws a client's held bodies in the present (loop.present);
	// held says which those are.
	present func(e arche.Entity, alpha float64) (ecs.Transform, bool)
	held    func(e arche.Entity) bool
}

// Alpha is how far, from 0 to 1, time has gone from the last step to the
// next as of the View's time (ecs.Schedule.AlphaAt): what entities simulated
// here are blended by.
func (v *View) Alpha() float64 { return v.alpha }

// Pose returns where to draw entity e: remote entities where interpolation
// puts them in the past, entities simulated here between their last two
// steps plus what is left of a correction (so are remote bodies this
// client's physics holds, a crate its player pushes, with
// NetPhysics.DrawHeldAhead); false if e is dead or has no
// ecs.Transform, and for a remote entity not there at the drawn time: one
// the host made in play whose making the drawn time has not reached, or one
// it removed whose removal the drawn time passed (the client keeps it until
// drawn there), and for one this client removed itself (World.Remove) whose
// removal by the host is to come. Draw what it gives true for.
func (v *View) Pose(e arche.Entity) (ecs.Transform, bool) {
	if v.World.Removed(e) {
		return ecs.Transform{}, false // removed here, the host's removal to come (World.Remove)
	}
	if v.present != nil {
		if p, ok := v.present(e, v.alpha); ok {
			return p, true
		}
	}
	if v.ip == nil {
		if !v.World.ECS.Alive(e) || !v.World.ECS.Arche().Has(e, v.World.ECS.IDs.Transform) {
			return ecs.Transform{}, false
		}
		return *(*ecs.Transform)(v.World.ECS.Arche().Get(e, v.World.ECS.IDs.Transform)), true
	}
	return v.ip.Pose(e, v.alpha)
}

// Held reports whether e is a remote body drawn in the present, where this
// client's physics has it, rather than in the past: one a predicted body
// touched, from the touch until it is drawn near where interpolation would
// draw it, at rest (NetPhysics.DrawHeldAhead), or one this client predicts
// (ecs.Predicted); Pose then moves it as the client's physics does (held,
// predicted, or carried forward from the host's states), not as the
// interpolated states do.
func (v *View) Held(e arche.Entity) bool { return v.held != nil && v.held(e) }

// Interpolator returns the interpolator (its statistics, SetEnabled), nil on
// a client before the host's Welcome.
func (v *View) Interpolator() *interp.Interpolator { return v.ip }

// Blended returns the value of component T to draw entity e with: for a
// remote entity blended between received states when T was registered with
// a blend (Replicate; replicate.Discrete for a value that does not blend:
// the one the entity had at the drawn time), else the component as it is,
// the newest received; false if e has no T. It does not say whether e is
// there at the drawn time: Pose does.
func Blended[T any](v *View, e arche.Entity) (T, bool) {
	if tr, ok := v.tracks[reflect.TypeFor[T]()].(*interp.Track[T]); ok {
		return tr.Get(e)
	}
	var zero T
	w := v.World.ECS
	id := arche.ComponentID[T](w.Arche())
	if !w.Alive(e) || !w.Arche().Has(e, id) {
		return zero, false
	}
	return *(*T)(w.Arche().Get(e, id)), true
}

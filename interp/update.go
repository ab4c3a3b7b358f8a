package interp

import (
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// sweepPerUpdate is how many remote slots each Update checks against the
// world, to drop entities removed without Removed.
const sweepPerUpdate = 32

// Update is the interpolation system: call it once per drawn frame, before
// drawing, with the frame's time. It advances the render clock, decays
// offsets, and computes the drawn pose of every remote entity at the render
// frame. It reads the world and writes only the Interpolator. Cost: the
// remote entities, about ten nanoseconds each; allocates nothing.
func (ip *Interpolator) Update(now time.Time) {
	dt := 0.0
	if ip.updated {
		dt = max(now.Sub(ip.lastNow).Seconds(), 0)
	}
	ip.updated = true
	ip.lastNow = now
	ip.tl.advance(now)
	ip.decay(dt)
	ip.sweepSlots()
	st := &ip.stats
	st.Interpolating, st.Extrapolating, st.Holding, st.Resting, st.Remote = 0, 0, 0, 0, 0
	if !ip.tl.started {
		return
	}
	r := ip.tl.render
	g := ip.tl.newest
	ip.lastRender = r
	for i := range ip.slots {
		sl := &ip.slots[i]
		if sl.flags&flagRemote == 0 || sl.n == 0 {
			continue
		}
		s := int32(i)
		st.Remote++
		if ip.disabled {
			h := int(sl.head)
			sl.raw = ip.poses[i*ringSize+h]
			sl.mode = modeNone
			for _, t := range ip.tracks {
				t.eval(s, h, h, 0)
			}
			continue
		}
		p, mode, a, b, alpha := ip.sample(s, r, g)
		switch mode {
		case modeInterpolating:
			st.Interpolating++
		case modeExtrapolating:
			st.Extrapolating++
			if sl.mode != modeExtrapolating {
				st.Extrapolations++
			}
		case modeHolding:
			st.Holding++
			if sl.mode != modeHolding {
				st.Holds++
			}
		case modeResting:
			st.Resting++
			if sl.mode == modeExtrapolating || sl.mode == modeHolding {
				// Newer states came without e: it stopped where its newest
				// state is. Slide back from the extrapolated pose.
				q, _, _, _, _ := ip.sample(s, r, 0)
				ip.addOffset(s, diff(q, p))
			}
		}
		sl.raw = p
		sl.mode = mode
		for _, t := range ip.tracks {
			t.eval(s, a, b, alpha)
		}
	}
}

// sample returns slot s's pose at render frame r when g is the newest host
// frame received, how it was found, and the ring positions and fraction it
// blended (a == b: one state as is). g == 0 treats the entity as moving.
func (ip *Interpolator) sample(s int32, r float64, g ecs.Frame) (p ecs.Transform, mode uint8, a, b int, alpha float64) {
	sl := &ip.slots[s]
	base := int(s) * ringSize
	h := int(sl.head)
	frames := ip.frames[base : base+ringSize]
	poses := ip.poses[base : base+ringSize]
	fn := frames[h]
	if r >= float64(fn) {
		past := r - float64(fn)
		if past == 0 {
			return poses[h], modeInterpolating, h, h, 0
		}
		if fn < g {
			// Later frames arrived without a state of e: it has not moved.
			return poses[h], modeResting, h, h, 0
		}
		prev := (h - 1) & (ringSize - 1)
		if sl.n < 2 || sl.snaps&(1<<h) != 0 || ip.maxExt <= 0 {
			return poses[h], modeHolding, h, h, 0
		}
		mode = modeExtrapolating
		if past > ip.maxExt {
			past, mode = ip.maxExt, modeHolding
		}
		alpha = 1 + past/float64(fn-frames[prev])
		return blend(poses[prev], poses[h], alpha), mode, prev, h, alpha
	}
	for k := 1; k < int(sl.n); k++ {
		a = (h - k) & (ringSize - 1)
		fa := float64(frames[a])
		if r < fa {
			continue
		}
		b = (a + 1) & (ringSize - 1)
		if sl.snaps&(1<<b) != 0 {
			return poses[a], modeInterpolating, a, a, 0
		}
		alpha = (r - fa) / (float64(frames[b]) - fa)
		return blend(poses[a], poses[b], alpha), modeInterpolating, a, b, alpha
	}
	o := (h - int(sl.n) + 1) & (ringSize - 1)
	return poses[o], modeInterpolating, o, o, 0
}

// sweepSlots checks a few remote slots a frame against the world and drops
// those whose entity left it without Removed being called.
func (ip *Interpolator) sweepSlots() {
	n := len(ip.slots)
	for range min(sweepPerUpdate, n) {
		if ip.sweep >= n {
			ip.sweep = 0
		}
		s := int32(ip.sweep)
		ip.sweep++
		sl := &ip.slots[s]
		if sl.ent.IsZero() {
			continue
		}
		if e, _, ok := ip.w.SlotEntity(s); !ok || e != sl.ent {
			ip.clearSlot(s)
			for _, t := range ip.tracks {
				t.clear(s)
			}
		}
	}
}

package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// The render delay settles near two send intervals plus JitterFactor times
// the measured jitter (for uniform jitter ±J the mean absolute deviation is
// J/2), grows under loss, and never changes faster than DelaySlew.
func TestRenderDelayConverges(t *testing.T) {
	interval := 2 * step
	for _, tc := range []struct {
		jitter time.Duration
		loss   float64
		want   time.Duration
	}{
		{0, 0, 2 * interval},
		{20 * time.Millisecond, 0, 2*interval + 20*time.Millisecond},
		{40 * time.Millisecond, 0, 2*interval + 40*time.Millisecond},
		// 5% loss: cover ln(0.001)/ln(0.05) = 2.31 consecutive losses.
		{20 * time.Millisecond, 0.05, time.Duration(3.306*float64(interval)) + 20*time.Millisecond},
	} {
		t.Run(fmt.Sprintf("jitter%v-loss%g", tc.jitter, tc.loss), func(t *testing.T) {
			r := newRig(t, Config{})
			r.ip.SetLoss(tc.loss)
			m := mover{vx: 100}
			e := r.spawn(ecs.HostPeer, true, m.at(0))
			l := link{latency: 80 * time.Millisecond, jitter: tc.jitter, rng: rand.New(rand.NewPCG(11, 12))}
			slew := r.ip.Config().DelaySlew
			var prev time.Duration
			var prevAt time.Duration
			var sum time.Duration
			n := 0
			r.play(l.sends(2, 60*40, 2), 144, 40*time.Second, func(f ecs.Frame) {
				r.apply(e, f, m.at(f))
			}, func(now time.Duration) {
				d := r.ip.RenderDelay()
				if prev > 0 { // the render clock runs
					limit := time.Duration(slew*float64(now-prevAt)) + time.Microsecond
					if ch := d - prev; ch > limit || -ch > limit {
						t.Fatalf("at %v: render delay changed by %v in %v (limit %v)", now, ch, now-prevAt, limit)
					}
				}
				prev, prevAt = d, now
				if now > 10*time.Second {
					sum += d
					n++
				}
			})
			mean := sum / time.Duration(n)
			t.Logf("mean delay %v, want %v; jitter %v", mean, tc.want, r.ip.Stats().Jitter)
			tol := tc.jitter/4 + 3*time.Millisecond
			if diff := mean - tc.want; diff > tol || -diff > tol {
				t.Errorf("render delay averaged %v after settling, want %v ± %v (stats %+v)", mean, tc.want, tol, r.ip.Stats())
			}
		})
	}
}

// When the link's jitter grows, the delay follows, smoothly.
func TestRenderDelayFollowsJitter(t *testing.T) {
	r := newRig(t, Config{})
	m := mover{vx: 100}
	e := r.spawn(ecs.HostPeer, true, m.at(0))
	calm := link{latency: 60 * time.Millisecond, jitter: 2 * time.Millisecond, rng: rand.New(rand.NewPCG(1, 2))}
	rough := link{latency: 60 * time.Millisecond, jitter: 60 * time.Millisecond, rng: rand.New(rand.NewPCG(3, 4))}
	arr := append(calm.sends(2, 600, 2), rough.sends(602, 2400, 2)...)
	var before time.Duration
	var maxStep time.Duration
	var prev time.Duration
	r.play(arr, 60, 40*time.Second, func(f ecs.Frame) { r.apply(e, f, m.at(f)) }, func(now time.Duration) {
		d := r.ip.RenderDelay()
		if now == 10*time.Second {
			before = d
		}
		if prev > 0 {
			maxStep = max(maxStep, d-prev, prev-d)
		}
		prev = d
	})
	after := r.ip.RenderDelay()
	if before > 2*2*step+10*time.Millisecond {
		t.Errorf("calm link: delay %v, want about %v", before, 4*step)
	}
	if after < before+40*time.Millisecond {
		t.Errorf("rough link: delay %v, want at least %v more than the calm %v", after, 40*time.Millisecond, before)
	}
	if limit := time.Second/20/60 + time.Microsecond; maxStep > limit {
		t.Errorf("delay changed by %v in one frame, limit %v", maxStep, limit)
	}
}

func TestTargetDelayLossTerm(t *testing.T) {
	c := Config{}
	c.defaults()
	tl := newTimeline(&c)
	iv := c.SendInterval.Seconds()
	for _, tc := range []struct{ loss, intervals float64 }{
		{0, 2}, {0.0005, 2}, {0.001, 2}, {0.01, 2.5}, {0.05, 1 + math.Log(0.001)/math.Log(0.05)}, {0.2, 4}, {1, 4},
	} {
		tl.loss = tc.loss
		if got := tl.targetDelay(); math.Abs(got-tc.intervals*iv) > 1e-9 {
			t.Errorf("loss %g: target delay %.4fs, want %.4fs (%g intervals)", tc.loss, got, tc.intervals*iv, tc.intervals)
		}
	}
}

package predict

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
)

// syncSim plays a host stepping at 60 Hz that sends its frame every second
// step over a link with latency and jitter, and a client schedule steered by
// a TimeSync, on a fake clock in 1 ms ticks. It checks each input the
// client stamps against the moment it would reach the host.
type syncSim struct {
	t         *testing.T
	clk       *clock.Fake
	start     time.Time
	stall     time.Duration // host time lost to stalls
	owd, jit  time.Duration
	loss      float64
	rng       *rand.Rand
	ts        *TimeSync
	w         *ecs.World
	sched     *ecs.Schedule
	hostFrame ecs.Frame
	sends     []arrival
	// measured since the last reset
	late, inputs int
	minD, maxD   float64
	leadErr      []float64
}

type arrival struct {
	f  ecs.Frame
	at time.Time
}

func newSyncSim(t *testing.T, rtt, jitter time.Duration, loss float64) *syncSim {
	clk := clock.NewFake(time.Unix(100, 0))
	s := &syncSim{t: t, clk: clk, start: clk.Now(), owd: rtt / 2, jit: jitter, loss: loss,
		rng: rand.New(rand.NewPCG(uint64(rtt), 3)), ts: NewTimeSync(SyncConfig{}), w: ecs.NewWorld()}
	s.sched = ecs.NewSchedule(s.w, clk, 0)
	s.sched.AddTo(ecs.StageInput, "sync", ecs.SystemFunc(s.clientFrame))
	s.reset()
	return s
}

func (s *syncSim) reset() {
	s.late, s.inputs = 0, 0
	s.minD, s.maxD = math.Inf(1), math.Inf(-1)
	s.leadErr = s.leadErr[:0]
}

// hostAt returns the frame the host simulates at time at (continuous).
func (s *syncSim) hostAt(at time.Time) float64 {
	return float64(at.Sub(s.start)-s.stall) / float64(ecs.DefaultStep)
}

func (s *syncSim) delay() time.Duration {
	return s.owd + time.Duration((s.rng.Float64()*2-1)*float64(s.jit))
}

// clientFrame runs at the start of each client step.
func (s *syncSim) clientFrame(w *ecs.World) {
	now := s.clk.Now()
	var newest ecs.Frame
	kept := s.sends[:0]
	for _, a := range s.sends {
		if !a.at.After(now) {
			newest = max(newest, a.f)
		} else {
			kept = append(kept, a)
		}
	}
	s.sends = kept
	if newest > 0 {
		s.ts.Observe(newest, now)
	}
	d, to, jump := s.ts.Update(now, w.Frame(), 2*s.owd, s.loss)
	s.sched.SetDilation(d)
	if jump {
		w.SetFrame(to)
	}
	s.minD, s.maxD = min(s.minD, d), max(s.maxD, d)
	if st := s.ts.Stats(); st.Synced {
		s.leadErr = append(s.leadErr, float64(w.Frame())-s.hostAt(now)-st.Target)
	}
	// The input stamped with this frame reaches the host after a one-way
	// delay; it is late if the host began the frame (hostAt reached it).
	s.inputs++
	if s.hostAt(now.Add(s.delay())) >= float64(w.Frame()) {
		s.late++
	}
}

// run advances d of time.
func (s *syncSim) run(d time.Duration) {
	for end := s.clk.Now().Add(d); s.clk.Now().Before(end); {
		s.clk.Advance(time.Millisecond)
		now := s.clk.Now()
		if f := ecs.Frame(math.Max(s.hostAt(now), 0)); f > s.hostFrame {
			s.hostFrame = f
			if f%2 == 0 && s.rng.Float64() >= s.loss {
				s.sends = append(s.sends, arrival{f, now.Add(s.delay())})
			}
		}
		s.sched.Advance()
	}
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

func TestTimeSyncHoldsTheLead(t *testing.T) {
	for _, c := range []struct {
		name        string
		rtt, jitter time.Duration
		loss        float64
	}{
		{"50ms", 50 * time.Millisecond, 5 * time.Millisecond, 0},
		{"150ms", 150 * time.Millisecond, 15 * time.Millisecond, 0},
		{"150ms-5%-loss", 150 * time.Millisecond, 15 * time.Millisecond, 0.05},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSyncSim(t, c.rtt, c.jitter, c.loss)
			s.run(10 * time.Second)
			st := s.ts.Stats()
			if !st.Synced || st.Jumps != 0 {
				t.Fatalf("after 10 s: %+v", st)
			}
			s.reset()
			s.run(50 * time.Second)
			st = s.ts.Stats()
			owd := c.rtt.Seconds() / 2 / ecs.DefaultStep.Seconds()
			e := mean(s.leadErr)
			t.Logf("target %.2f (half RTT %.2f, buffer %.1f, jitter %.2f), mean error %.3f, dilation %.3f..%.3f, late %d/%d",
				st.Target, owd, st.Buffer, st.Jitter, e, s.minD, s.maxD, s.late, s.inputs)
			if st.Jumps != 0 {
				t.Fatalf("%d jumps in steady state", st.Jumps)
			}
			if math.Abs(e) > 0.6 {
				t.Fatalf("the true lead is %.2f frames off its target", e)
			}
			if math.Abs(st.Lead-st.Target) > 0.6 {
				t.Fatalf("estimated lead %.2f, target %.2f", st.Lead, st.Target)
			}
			if st.Target < owd+st.Buffer || st.Target > owd+st.Buffer+2 {
				t.Fatalf("target %.2f out of [%.2f, %.2f]", st.Target, owd+st.Buffer, owd+st.Buffer+2)
			}
			if s.minD < 0.9 || s.maxD > 1.1 || s.maxD-s.minD > 0.05 {
				t.Fatalf("dilation ranged %.3f..%.3f", s.minD, s.maxD)
			}
			if s.late != 0 {
				t.Fatalf("%d of %d inputs would reach the host late", s.late, s.inputs)
			}
		})
	}
}

func TestTimeSyncJumpsOnceOverADiscontinuity(t *testing.T) {
	s := newSyncSim(t, 100*time.Millisecond, 10*time.Millisecond, 0)
	s.run(5 * time.Second)
	// The host stalls for two seconds: its frames fall 120 behind.
	s.stall = 2 * time.Second
	s.run(10 * time.Second)
	st := s.ts.Stats()
	if st.Jumps != 1 {
		t.Fatalf("%d jumps, want 1: %+v", st.Jumps, st)
	}
	s.reset()
	s.run(10 * time.Second)
	if e := mean(s.leadErr); math.Abs(e) > 0.6 || s.ts.Stats().Jumps != 1 || s.late != 0 {
		t.Fatalf("after the jump: lead error %.2f, %+v, %d late", e, s.ts.Stats(), s.late)
	}
	// The client itself stalls (a long pause of its process): it falls
	// behind and jumps ahead again.
	s.sched.MaxCatchUp = 8
	s.clk.Advance(3 * time.Second)
	s.run(5 * time.Second)
	if st := s.ts.Stats(); st.Jumps != 2 {
		t.Fatalf("after a client stall: %+v", st)
	}
}

func TestTimeSyncConvergesByDilation(t *testing.T) {
	s := newSyncSim(t, 100*time.Millisecond, 5*time.Millisecond, 0)
	s.run(3 * time.Second)
	// Ten frames behind: below the jump threshold, so the client catches up
	// by stepping faster, at most 10%.
	s.w.SetFrame(s.w.Frame() - 10)
	s.reset()
	s.run(4 * time.Second)
	if s.maxD < 1.09 || s.maxD > 1.1 {
		t.Fatalf("dilation peaked at %.3f, want the 1.1 bound", s.maxD)
	}
	if e := s.leadErr[len(s.leadErr)-1]; math.Abs(e) > 0.6 || s.ts.Stats().Jumps != 0 {
		t.Fatalf("lead error %.2f after 4 s, %+v", e, s.ts.Stats())
	}
}

func TestBufferGrowsWithLoss(t *testing.T) {
	s := NewTimeSync(SyncConfig{})
	for _, c := range []struct{ loss, want float64 }{{0, 2}, {0.01, 2}, {0.05, 3}, {0.1, 3}, {0.3, 7}, {0.9, 7}} {
		if got := s.buffer(c.loss); got != c.want {
			t.Errorf("loss %.2f: buffer %.0f, want %.0f", c.loss, got, c.want)
		}
	}
}

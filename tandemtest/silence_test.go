package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// drawnX returns where client c draws its own figure now.
func drawnX(t *testing.T, r *tandemtest.Rig[Walk], c *tandem.Client[Walk]) float64 {
	t.Helper()
	x, ok := 0.0, false
	c.View(r.Clock.Now(), func(v *tandem.View) {
		if e, found := tandem.Driven[Walk](v.World, c.Peer()); found {
			var p ecs.Transform
			p, ok = v.Pose(e)
			x = p.X
		}
	})
	if !ok {
		t.Fatalf("client %d draws no figure of its own", c.Peer())
	}
	return x
}

// silence is what a test saw of a client walking through a silence of the
// host: how far ahead of the host its figure was before (usual) and at most
// during and after (ahead), the largest move of its drawn figure in one step
// (jump), and its figures at the end.
type silence struct {
	usual, ahead, jump float64
	stats              tandem.NetStats
}

// walkThrough has ann walk right, breaks her link with brk, and steps 12 s
// of the rig, watching her figure.
func walkThrough(t *testing.T, r *tandemtest.Rig[Walk], ann *tandem.Client[Walk], brk func(step int)) silence {
	t.Helper()
	peer := ann.Peer()
	ann.SetInput(Walk{X: 1})
	r.Step(120)
	var s silence
	s.usual = seenX(t, ann, peer) - hostX(t, r, peer)
	prev := drawnX(t, r, ann)
	for i := range 12 * 60 {
		brk(i)
		r.Step(1)
		if ann.State() == tandem.Playing {
			s.ahead = max(s.ahead, seenX(t, ann, peer)-hostX(t, r, peer))
		}
		x := drawnX(t, r, ann)
		s.jump = max(s.jump, math.Abs(x-prev))
		prev = x
	}
	s.stats = ann.NetStats()
	if s.stats.State != tandem.Playing || s.stats.Predict.Holding {
		t.Fatalf("ann at the end: %v, holding %v", s.stats.State, s.stats.Predict.Holding)
	}
	x := seenX(t, ann, peer)
	r.Step(30)
	if d := seenX(t, ann, peer) - x; d < 50 {
		t.Fatalf("ann walked %.0f units in 30 steps after the silence, want about 60", d)
	}
	return s
}

// bound is how far a silence may take ann's figure past where the host
// has it: her usual lead, plus what she walks (2 units a frame) in
// HoldAfter and two frames more: the one that finds the host silent and
// the one that heard it last.
func (s silence) bound() float64 {
	return s.usual + 2*(float64(s.stats.HoldAfter)/float64(ecs.DefaultStep)+2)
}

// A player walks on while her link carries nothing for 3 s, or nothing of
// hers to the host: her client, its inputs unanswered for HoldAfter, holds
// her figure where it is, about where the host stopped it (it repeats a player's last input a
// quarter of a second at most), instead of walking on for the whole
// silence and being pulled back by all of it once the states come again
// (332 units ahead, a drawn step of 63 units, before the client held). The
// same when the link breaks and she comes back on a new one: her figure
// is taken from the host's state then, a jump as large as her run ahead
// (568 units, before).
func TestPredictionHoldsThroughASilence(t *testing.T) {
	link := condition.Config{Latency: 50 * time.Millisecond}
	links := tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}}

	// Dark both ways (a blackout), or from her to the host only (mute):
	// then the host's states keep coming, but none of her inputs reach it,
	// and it stops her as above; her client, its inputs unanswered, holds
	// her. (Before, hearing the host through a mute, it walked her on for
	// the whole silence, and the host's states pulled her back every few
	// frames: 82 corrections, her figure stuttering in place, where holding
	// makes 12.)
	for _, tc := range []struct {
		name string
		dark func(r *tandemtest.Rig[Walk], c *tandem.Client[Walk], d time.Duration)
	}{
		{"blackout", (*tandemtest.Rig[Walk]).Blackout},
		{"mute", (*tandemtest.Rig[Walk]).Mute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tandemtest.New(t, walkers, tandem.HostConfig{}, links)
			ann := r.Join("ann", tandem.ClientConfig[Walk]{})
			s := walkThrough(t, r, ann, func(i int) {
				if i == 0 {
					tc.dark(r, ann, 3*time.Second)
				}
			})
			t.Logf("usual lead %.0f units, ahead %.0f at most, largest drawn step %.1f; held %d frames after %v unanswered; %+v",
				s.usual, s.ahead, s.jump, s.stats.Predict.HeldFrames, s.stats.HoldAfter, s.stats.Corrections)
			if b := s.bound(); s.ahead > b || s.jump > b {
				t.Errorf("ann ran %.0f units ahead of the host, her drawn figure moved %.0f in a step: want %.0f at most", s.ahead, s.jump, b)
			}
			if st := s.stats; st.Predict.Holds != 1 || st.Predict.HeldFrames < 150 || st.Resumes != 0 {
				t.Errorf("holds %d, %d frames held, %d resumes: want one hold of most of the 3 s, no resume", st.Predict.Holds, st.Predict.HeldFrames, st.Resumes)
			}
		})
	}

	t.Run("cut", func(t *testing.T) {
		bubble.Test(t, func(t *testing.T) {
			cfg := links
			cfg.Bubble = true
			r := tandemtest.New(t, walkers, tandem.HostConfig{}, cfg)
			ann := r.Join("ann", tandem.ClientConfig[Walk]{})
			s := walkThrough(t, r, ann, func(i int) {
				switch i {
				case 0:
					r.Unreachable(ann, true)
					r.Cut(ann)
				case 3 * 60:
					r.Unreachable(ann, false)
				}
			})
			t.Logf("usual lead %.0f units, ahead %.0f at most, largest drawn step %.1f; held %d frames after %v of silence",
				s.usual, s.ahead, s.jump, s.stats.Predict.HeldFrames, s.stats.HoldAfter)
			if b := s.bound(); s.ahead > b || s.jump > b {
				t.Errorf("ann ran %.0f units ahead of the host, her drawn figure moved %.0f in a step: want %.0f at most", s.ahead, s.jump, b)
			}
			if st := s.stats; st.Resumes != 1 || st.Predict.Holds != 1 {
				t.Errorf("%d resumes, %d holds: want one of each", st.Resumes, st.Predict.Holds)
			}
		})
	})
}

// Over a slow, jittery link (round trips of 200 ms to a second) with bursts
// of 100 ms in which everything is lost, in a world that falls still
// between walks (the host then sends no state, only its acknowledgements),
// a player is never held, and her figure is drawn exactly as by a client
// that never holds: not at the join either, where her first inputs wait a
// round trip for their answer while the connection's RTT is still its
// 200 ms guess.
func TestSlowLinkIsNeverHeld(t *testing.T) {
	for _, rtt := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 600 * time.Millisecond, time.Second} {
		link := condition.Config{Latency: rtt / 2, Jitter: rtt / 8, Seed: 7}
		play := func(hold time.Duration) ([]float64, tandem.NetStats) {
			r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
			ann := r.Join("ann", tandem.ClientConfig[Walk]{Predict: predictHold(hold)})
			var drawn []float64
			step := func(n int, in Walk, burstAt int) {
				ann.SetInput(in)
				for i := range n {
					if i == burstAt {
						r.Blackout(ann, 100*time.Millisecond)
					}
					r.Step(1)
					drawn = append(drawn, drawnX(t, r, ann))
				}
			}
			step(120, Walk{}, 60)      // standing: a burst in a still world
			step(120, Walk{X: 1}, 60)  // walking through a burst
			step(60, Walk{}, 57)       // standing: a burst begins
			step(120, Walk{X: -1}, -1) // she walks back while it lasts
			step(120, Walk{X: 1}, -1)
			return drawn, ann.NetStats()
		}
		held, st := play(0)
		never, _ := play(-1)
		t.Logf("rtt %v: HoldAfter %v, %d frames held, drawn from %.0f to %.0f", rtt, st.HoldAfter, st.Predict.HeldFrames, held[0], held[len(held)-1])
		if st.Predict.HeldFrames != 0 {
			t.Errorf("rtt %v: %d frames held (%d holds) on a link that answers", rtt, st.Predict.HeldFrames, st.Predict.Holds)
		}
		for i := range held {
			if held[i] != never[i] {
				t.Fatalf("rtt %v, step %d: drawn at %.2f, %.2f by a client that never holds", rtt, i, held[i], never[i])
			}
		}
	}
}

// predictHold is prediction's configuration with HoldAfter set.
func predictHold(d time.Duration) predict.ClientConfig[Walk] {
	return predict.ClientConfig[Walk]{HoldAfter: d}
}

// A jittery uplink that loses a few of the player's inputs (one way 0 to
// 300 ms, 3% lost) never holds her: the host answers the inputs sent after
// a lost one, though the loss itself is known only a round trip and the
// reorder window (up to 250 ms) after it went. (Measured from the oldest
// datagram unanswered, the loss held her 6 frames in 3 holds a minute.)
func TestJitteryUplinkIsNeverHeld(t *testing.T) {
	down := condition.Config{Latency: 40 * time.Millisecond, Seed: 11}
	for _, up := range []condition.Config{
		{Latency: 150 * time.Millisecond, Jitter: 150 * time.Millisecond, Loss: 0.03, Seed: 5},
		{Latency: 150 * time.Millisecond, Jitter: 150 * time.Millisecond, Seed: 5},
	} {
		r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: up, ToClient: down}})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		ann.SetInput(Walk{X: 1})
		r.Step(60 * 60)
		st := ann.NetStats()
		t.Logf("uplink %v ± %v, %.0f%% lost: HoldAfter %v, RTT %v, %d holds, %d frames held, corrections %+v",
			up.Latency, up.Jitter, up.Loss*100, st.HoldAfter, st.RTT, st.Predict.Holds, st.Predict.HeldFrames, st.Corrections)
		if st.Predict.HeldFrames != 0 {
			t.Errorf("uplink %v ± %v, %.0f%% lost: %d frames held in %d holds over a link that answers", up.Latency, up.Jitter, up.Loss*100, st.Predict.HeldFrames, st.Predict.Holds)
		}
	}
}

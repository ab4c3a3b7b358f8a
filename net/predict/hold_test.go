package predict

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// answeringLink is a fakeLink that tells since when the host has answered
// nothing the client sent.
type answeringLink struct {
	fakeLink
	sent time.Time
}

func (l *answeringLink) UnansweredSince() (time.Time, bool) { return l.sent, !l.sent.IsZero() }

// answered says the host answered, now, every datagram sent a round trip
// ago or before: what is unanswered went since.
func (l *answeringLink) answered(now time.Time) {
	l.sent = now.Add(-l.rtt)
}

// holdRig is a rig whose link tells what the host has not answered, its
// game step routing the zero input to a held frame, as tandem's client does.
func holdRig(t testing.TB, cfg ClientConfig[pad]) (*rig, *answeringLink) {
	link := &answeringLink{fakeLink: fakeLink{rtt: 100 * time.Millisecond}}
	cfg.Link = link
	r := newRig(t, 1, cfg)
	r.next = func(ecs.Frame) pad { return pad{DX: 1} }
	return r, link
}

// A client that the host leaves unanswered for longer than HoldAfter holds
// its frames (counted), goes on sending the player's inputs, and predicts
// again from the first word the host sends; a negative HoldAfter, or a link
// that cannot tell, never holds.
func TestHoldWhileTheHostIsSilent(t *testing.T) {
	r, link := holdRig(t, ClientConfig[pad]{})
	if d := r.pred.HoldAfter(); d != DefaultHoldAfter {
		t.Fatalf("HoldAfter = %v with no jitter measured, want %v", d, DefaultHoldAfter)
	}
	for range 30 { // heard every frame
		link.answered(r.clk.Now())
		r.steps(1)
	}
	if st := r.pred.Stats(); st.HeldFrames != 0 || st.Holding || r.pred.Held(r.w.Frame()) {
		t.Fatalf("held while the host answers: %+v", st)
	}
	silent := link.sent.Add(link.rtt) // when the host answered last
	sent := link.n
	first := ecs.Frame(0)
	for range 60 {
		r.steps(1)
		if r.pred.Held(r.w.Frame()) && first == 0 {
			first = r.w.Frame()
			if d := r.clk.Now().Sub(silent); d <= DefaultHoldAfter || d > DefaultHoldAfter+ecs.DefaultStep {
				t.Fatalf("first held %v into the silence, want the first frame past %v", d, DefaultHoldAfter)
			}
		}
	}
	st := r.pred.Stats()
	if first == 0 || st.Holds != 1 || !st.Holding || st.HeldFrames != uint64(r.w.Frame()-first+1) {
		t.Fatalf("after a second of silence: first held %d, stats %+v", first, st)
	}
	if link.n != sent+60 {
		t.Fatalf("%d input messages sent in 60 frames, %d held: want one a frame", link.n-sent, st.HeldFrames)
	}
	if in, ok := r.pred.InputAt(r.w.Frame()); !ok || *in != (pad{DX: 1}) {
		t.Fatalf("the held frame's recorded input %+v, %v: want the player's", in, ok)
	}
	link.answered(r.clk.Now().Add(ecs.DefaultStep)) // heard at the next frame
	r.steps(1)
	if st := r.pred.Stats(); r.pred.Held(r.w.Frame()) || st.Holding || st.Holds != 1 {
		t.Fatalf("held after the host spoke: %+v", st)
	}
	if !r.pred.Held(r.w.Frame() - 1) {
		t.Fatal("the frames held before forgot it")
	}

	never, nl := holdRig(t, ClientConfig[pad]{HoldAfter: -1})
	nl.answered(never.clk.Now())
	never.steps(120)
	deaf := newRig(t, 1, ClientConfig[pad]{})
	deaf.steps(120)
	if a, b := never.pred.Stats().HeldFrames, deaf.pred.Stats().HeldFrames; a != 0 || b != 0 {
		t.Fatalf("held %d frames with HoldAfter < 0, %d over a link that cannot tell", a, b)
	}
}

// The client is unanswered once a datagram of its has waited for an answer
// for HoldAfter past the round trip, whatever else the host sends (a link
// dark from the client to the host only): a client that just began
// sending (its first answers a round trip away), and one with nothing in
// flight, are not held.
func TestSilenceIsADatagramUnanswered(t *testing.T) {
	r, link := holdRig(t, ClientConfig[pad]{})
	rtt := link.rtt
	long := DefaultHoldAfter + ecs.DefaultStep
	for _, c := range []struct {
		name string
		sent time.Duration // before now; 0: none
		held bool
	}{
		{"owed long", long + rtt, true},
		{"just began sending", long + rtt - 2*ecs.DefaultStep, false},
		{"nothing in flight", 0, false},
	} {
		now := r.clk.Now().Add(ecs.DefaultStep)
		link.sent = time.Time{}
		if c.sent > 0 {
			link.sent = now.Add(-c.sent)
		}
		r.steps(1)
		if got := r.pred.Held(r.w.Frame()); got != c.held {
			t.Errorf("%s: held %v, want %v", c.name, got, c.held)
		}
	}
}

// measuringLink is an answeringLink that tells how many samples its RTT
// is made of.
type measuringLink struct {
	answeringLink
	samples uint64
}

func (l *measuringLink) RTTSamples() uint64 { return l.samples }

// Until its link measured a round trip (its RTT a guess, as a connection's
// before the first acknowledgement), a wait for the host's first answer is
// not taken for a silence, however long: a round trip longer than the
// guess is not one. Once the link has a sample, the rule applies.
func TestNoHoldBeforeARoundTripIsMeasured(t *testing.T) {
	link := &measuringLink{answeringLink: answeringLink{fakeLink: fakeLink{rtt: 200 * time.Millisecond}}}
	r := newRig(t, 1, ClientConfig[pad]{Link: link})
	r.next = func(ecs.Frame) pad { return pad{DX: 1} }
	link.sent = r.clk.Now() // the first input
	r.steps(60)
	if st := r.pred.Stats(); st.HeldFrames != 0 {
		t.Fatalf("%d frames held with no round trip measured", st.HeldFrames)
	}
	link.samples = 1
	r.steps(1)
	if !r.pred.Held(r.w.Frame()) {
		t.Fatal("not held with a round trip measured and the host silent for a second")
	}
}

// The default HoldAfter grows with the measured jitter of the host's
// frames: four times it; and with the step, for a game slower than 60 Hz.
func TestHoldAfterGrowsWithJitter(t *testing.T) {
	var r *rig
	r, _ = holdRig(t, ClientConfig[pad]{HostFrame: func() ecs.Frame { return r.w.Frame() - 10 }})
	r.steps(300)
	r.pred.sync.dev = 1.5 // frames
	if d, want := r.pred.HoldAfter(), DefaultHoldAfter+6*ecs.DefaultStep; d != want {
		t.Fatalf("HoldAfter = %v with 1.5 frames of jitter, want %v", d, want)
	}
	set, _ := holdRig(t, ClientConfig[pad]{HoldAfter: time.Second})
	if d := set.pred.HoldAfter(); d != time.Second {
		t.Fatalf("HoldAfter = %v, set to 1s", d)
	}
	// A game at 30 Hz: the host repeats a missing input for
	// DefaultMaxRepeat of its steps, half a second, and so the client waits.
	slow, _ := holdRig(t, ClientConfig[pad]{})
	slow.pred.cfg.Sync.Step = time.Second / 30
	slow.pred.sync.dev = 0
	if d, want := slow.pred.HoldAfter(), DefaultMaxRepeat*(time.Second/30); d != want || d <= DefaultHoldAfter {
		t.Fatalf("HoldAfter = %v at 30 Hz, want %v", d, want)
	}
}

// A replay gives a held frame the zero input, as the frame had.
func TestReplayHoldsAHeldFrame(t *testing.T) {
	r, link := holdRig(t, ClientConfig[pad]{Reconcile: Replay})
	var got []pad
	step := r.pred.cfg.Step
	r.pred.cfg.Step = func(w *ecs.World, f ecs.Frame, in *pad) {
		got = append(got, *in)
		step(w, f, in)
	}
	for range 11 {
		link.answered(r.clk.Now())
		r.steps(1)
	}
	from := r.w.Frame() - 1
	r.clk.Advance(DefaultHoldAfter) // silent since
	r.steps(2)
	if err := r.pred.Replay(from); err != nil {
		t.Fatal(err)
	}
	want := []pad{{DX: 1}, {}, {}}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("replayed with %+v, want %+v (the frame before the hold, then two held)", got, want)
	}
}

// Deciding the hold costs no allocation a frame.
func TestHoldAllocatesNothing(t *testing.T) {
	r, link := holdRig(t, ClientConfig[pad]{})
	link.answered(r.clk.Now())
	r.steps(60) // silent: held
	if !r.pred.Stats().Holding {
		t.Fatal("not held")
	}
	if a := testing.AllocsPerRun(100, func() {
		r.steps(1)
		_ = r.pred.Held(r.w.Frame())
	}); a != 0 {
		t.Fatalf("a held frame allocates %.1f times", a)
	}
}

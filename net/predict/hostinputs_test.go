package predict

import (
	"errors"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// TestRollbackReportsOldestLateOnce: one message brings three late inputs;
// OnLate is called once, with the oldest, when all three are stored.
func TestRollbackReportsOldestLateOnce(t *testing.T) {
	type call struct {
		f    ecs.Frame
		in   pad
		held []int8 // DX of the inputs held for frames 101..103 during the call
	}
	var calls []call
	var r *hostRig
	r = newHostRig(HostInputConfig[pad]{LateInput: Rollback, OnLate: func(_ ecs.PeerID, f ecs.Frame, in *pad) {
		c := call{f: f, in: *in}
		for g := ecs.Frame(101); g <= 103; g++ {
			if got, ok := r.h.Peer(1).InputAt(g); ok {
				c.held = append(c.held, got.DX)
			}
		}
		calls = append(calls, c)
	}})
	r.send(t, 100, pad{DX: 10})
	for range 4 {
		r.frame() // 100 exact, 101..103 repeat it
	}
	if err := r.send(t, 103, pad{DX: 3}, pad{DX: 2}, pad{DX: 1}, pad{DX: 10}); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 {
		t.Fatalf("OnLate called %d times (%+v), want once", len(calls), calls)
	}
	c := calls[0]
	if c.f != 101 || c.in.DX != 1 || len(c.held) != 3 || c.held[0] != 1 || c.held[1] != 2 || c.held[2] != 3 {
		t.Fatalf("OnLate(%d, %+v) with inputs %v held, want frame 101, DX 1, with 1 2 3 held", c.f, c.in, c.held)
	}
	p := r.h.Peer(1)
	if st := p.Stats(); st.Late != 3 || st.Duplicates != 1 {
		t.Fatalf("stats %+v", st)
	}
	// The newest late input is the one repeated from now on.
	if in := r.frame(); in.DX != 3 || p.InputFrame() != 103 {
		t.Fatalf("frame 104: %+v stamped %d, want DX 3 of frame 103", in, p.InputFrame())
	}
	// A message with no late input reports nothing.
	r.send(t, 106, pad{DX: 6}, pad{DX: 5})
	if len(calls) != 1 {
		t.Fatalf("OnLate called for inputs on time: %+v", calls[1:])
	}
}

// TestRollbackIsBounded: a peer that sends, every host frame, sixteen
// messages each with an input as late as the host keeps makes OnLate ask
// for at most MaxRollback frames simulated again per frame; what is too
// late, or past the budget, is kept and counted. One late input within the
// bound is reported as before.
func TestRollbackIsBounded(t *testing.T) {
	var calls, depth int
	var r *hostRig
	r = newHostRig(HostInputConfig[pad]{LateInput: Rollback, MaxRollback: 20, OnLate: func(_ ecs.PeerID, f ecs.Frame, _ *pad) {
		calls++
		depth += int(r.w.Frame() - f)
	}})
	for range 300 {
		r.frame()
	}
	r.send(t, r.w.Frame()-5, pad{DX: 1})
	if calls != 1 || depth != 5 {
		t.Fatalf("one input 5 frames late: %d calls, %d frames to simulate again", calls, depth)
	}
	calls, depth = 0, 0
	const frames = 60
	for range frames {
		now := r.w.Frame()
		for k := range 16 {
			r.send(t, now-133+ecs.Frame(k*8), pad{DX: 1}) // 133 to 13 frames late
		}
		r.frame()
	}
	if depth > 20*frames || calls == 0 {
		t.Fatalf("late inputs made the host simulate %d frames again in %d calls over %d frames, at most %d allowed", depth, calls, frames, 20*frames)
	}
	st := r.h.Peer(1).Stats()
	if st.Unrewound == 0 || st.Late == 0 {
		t.Fatalf("stats %+v: want the late inputs counted, the unreported ones as Unrewound", st)
	}
	if _, ok := r.h.Peer(1).InputAt(r.w.Frame() - 133); !ok {
		t.Fatal("an input too late to rewind for is not kept")
	}
}

// TestNewerMessageReplacesUnappliedInputs: after a backward time-sync jump
// the client stamps frames it already sent with new inputs. The host uses
// the newest values for every frame it has not applied yet, and keeps those
// it applied.
func TestNewerMessageReplacesUnappliedInputs(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{})
	old := make([]pad, 11)
	for i := range old {
		old[i] = pad{DX: 1}
	}
	if err := r.send(t, 110, old...); err != nil { // frames 110..100
		t.Fatal(err)
	}
	if in := r.frame(); in.DX != 1 {
		t.Fatalf("frame 100: %+v", in)
	}
	// Re-stamped after the jump: frames 105..100, newest first.
	if err := r.send(t, 105, pad{DX: 2}, pad{DX: 2}, pad{DX: 2}, pad{DX: 2}, pad{DX: 2}, pad{DX: 9}); err != nil {
		t.Fatal(err)
	}
	p := r.h.Peer(1)
	if in, _ := p.InputAt(100); in.DX != 1 {
		t.Fatalf("the input of frame 100, already applied, became %+v", in)
	}
	for f := 101; f <= 110; f++ {
		want := int8(2)
		if f > 105 {
			want = 1
		}
		if in := r.frame(); in.DX != want || p.InputFrame() != ecs.Frame(f) {
			t.Fatalf("frame %d: %+v stamped %d, want DX %d", f, in, p.InputFrame(), want)
		}
	}
	if st := p.Stats(); st.Exact != 11 || st.Received != 11 || st.Duplicates != 6 {
		t.Fatalf("stats %+v", st)
	}
}

// TestInputMessagesPerFrameCapped: past MaxMessagesPerFrame messages in one
// host frame a peer's messages are dropped unread and counted; the count
// starts again each frame.
func TestInputMessagesPerFrameCapped(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{})
	const limit = 16
	for i := range limit + 4 {
		err := r.send(t, ecs.Frame(100+i), pad{DX: int8(i)})
		if i < limit && err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if i >= limit && !errors.Is(err, ErrTooMany) {
			t.Fatalf("message %d: %v, want ErrTooMany", i, err)
		}
	}
	p := r.h.Peer(1)
	if st := p.Stats(); st.Messages != limit || st.Excess != 4 || st.Received != limit {
		t.Fatalf("stats %+v", st)
	}
	if _, ok := p.InputAt(100 + limit); ok {
		t.Fatal("an input of a dropped message was stored")
	}
	r.frame()
	if err := r.send(t, 100+limit, pad{DX: limit}); err != nil {
		t.Fatalf("the next frame's first message: %v", err)
	}
	if in, ok := p.InputAt(100 + limit); !ok || in.DX != limit {
		t.Fatal("the next frame's message was not stored")
	}
}

// TestHostReceiveAllocatesNothing: a host decodes every peer's inputs every
// frame, so taking a message must not allocate once the peer is known.
func TestHostReceiveAllocatesNothing(t *testing.T) {
	w := ecs.NewWorld()
	h := NewHostInputs(w, padCodec, HostInputConfig[pad]{})
	msg, _ := appendInputs(nil, &padCodec, 10, []pad{{DX: 1}, {DX: 2}, {DX: 3}})
	h.Receive(1, msg)
	allocs := testing.AllocsPerRun(100, func() {
		if err := h.Receive(1, msg); err != nil && !errors.Is(err, ErrTooMany) {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Receive allocates %.1f times per message", allocs)
	}
}

package predict

import (
	"errors"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// These keep the names of the demo's former InputQueue tests: the behaviour
// they guarded lives here now, in the host's input buffers the facade routes
// each peer's input through.

// Of a message's inputs, the host takes the one stamped with the frame it
// simulates, not the newer ones that are not due yet; those come in their
// frames.
func TestInputQueueTakesNewestDueInput(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{})
	// About to simulate frame 100: inputs for 100..103 arrive at once.
	if err := r.send(t, 103, pad{DX: 4}, pad{DX: 3}, pad{DX: 2}, pad{DX: 1}); err != nil {
		t.Fatal(err)
	}
	for f, want := range []int8{1, 2, 3, 4} {
		if in := r.frame(); in == nil || in.DX != want {
			t.Fatalf("frame %d: %+v, want DX %d", 100+f, in, want)
		}
	}
	if st := r.h.Peer(1).Stats(); st.Exact != 4 || st.Late != 0 {
		t.Fatalf("stats %+v, want four exact inputs", st)
	}
}

// An input that comes after its frame is applied at the next frame, the
// newest of the late ones, instead of being dropped.
func TestInputQueueAppliesLateInputAtOnce(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{})
	r.send(t, 100, pad{DX: 1})
	r.frame() // 100
	r.frame() // 101: nothing new, DX 1 repeats
	r.send(t, 101, pad{DX: 2})
	if in := r.frame(); in.DX != 2 {
		t.Fatalf("frame 102: %+v, want the late input of frame 101", in)
	}
	if st := r.h.Peer(1).Stats(); st.LateApplied != 1 {
		t.Fatalf("stats %+v, want one late input applied", st)
	}
}

// The buffer is bounded: inputs too far ahead are refused (ErrAhead) and
// counted, so a peer cannot make the host hold more than its window.
func TestInputQueueIsBounded(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{Window: 32, MaxAhead: 8})
	if err := r.send(t, 99+8, pad{DX: 1}); err != nil {
		t.Fatalf("8 ahead refused: %v", err)
	}
	before := r.h.Peer(1).Buffered()
	for _, ahead := range []int{9, 100, 1 << 20} {
		if err := r.send(t, ecs.Frame(99+ahead), pad{}); !errors.Is(err, ErrAhead) {
			t.Fatalf("%d frames ahead: %v, want ErrAhead", ahead, err)
		}
	}
	p := r.h.Peer(1)
	if st := p.Stats(); st.Ahead != 3 {
		t.Fatalf("stats %+v, want three refused as ahead", st)
	}
	if b := p.Buffered(); b != before {
		t.Fatalf("%d frames buffered after the refusals, %d before: nothing refused may be kept", b, before)
	}
}

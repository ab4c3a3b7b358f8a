package predict

import (
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// randomPad returns a pseudo-random input for frame f (splitmix64 of f), the
// same in every run and every world.
func randomPad(f ecs.Frame) pad {
	z := uint64(f) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return pad{DX: int8(z%7) - 3, DY: int8(z>>8%7) - 3, Boost: z>>16%5 == 0}
}

// TestReplaySync is the sync test of Replay: one client rolls back 8 frames
// and replays on every frame for 36,000 frames (10 minutes at 60 Hz); its
// state hash must equal, every frame, that of a client that never rolls
// back.
func TestReplaySync(t *testing.T) {
	const frames, back, entities = 36_000, 8, 2
	ref := newRig(t, entities, ClientConfig[pad]{Reconcile: Replay})
	rolled := newRig(t, entities, ClientConfig[pad]{Reconcile: Replay})
	ref.next, rolled.next = randomPad, randomPad
	mismatches := 0
	var prev uint64
	changes := 0
	for f := ecs.Frame(1); f <= frames; f++ {
		ref.steps(1)
		rolled.steps(1)
		if f > back {
			if err := rolled.pred.Replay(f - back); err != nil {
				t.Fatalf("frame %d: %v", f, err)
			}
		}
		h := ref.g.hash()
		if h != rolled.g.hash() {
			mismatches++
			if mismatches <= 3 {
				t.Errorf("frame %d: state hash %x after replay, %x without", f, rolled.g.hash(), h)
			}
		}
		if h != prev {
			changes++
		}
		prev = h
	}
	st := rolled.pred.Stats()
	if mismatches != 0 {
		t.Fatalf("%d of %d frames mismatched", mismatches, frames)
	}
	if st.Replays != frames-back || st.ReplayedFrames != (frames-back)*back || st.PoseCorrections != 0 {
		t.Fatalf("stats %+v", st)
	}
	if changes < frames*9/10 {
		t.Fatalf("the state changed in only %d frames: the test game does not exercise the replay", changes)
	}
}

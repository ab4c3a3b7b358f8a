package interp

import (
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// The state of the slots is never copied as the world grows: a slot's
// record, ring and Track values stay where they were when slots far past
// them are first seen, and hold what they held.
func TestSlotsGrowWithoutCopies(t *testing.T) {
	r := newRig(t, Config{})
	tr := NewTrack(r.ip, func(a, b ecs.Transform, alpha float64) ecs.Transform { return ecs.Blend(a, b, alpha) })
	e := r.spawn(ecs.HostPeer, true, ecs.Transform{X: 7})
	r.ip.Applied(e, 2)
	s, _ := r.w.NetSlot(e)
	sl, frames, poses := r.ip.view(s)
	vals, _ := tr.ring(s)
	for _, far := range []int32{blockLen, 20 * blockLen, 100 * blockLen} {
		r.ip.grow(s + far)
		tr.grow(s + far)
		sl2, frames2, poses2 := r.ip.view(s)
		vals2, _ := tr.ring(s)
		if sl2 != sl || frames2 != frames || poses2 != poses || vals2 != vals {
			t.Fatalf("growing for slot %d moved slot %d's state", s+far, s)
		}
	}
	if sl.ent != e || sl.n != 1 || frames[sl.head] != 2 || poses[sl.head].X != 7 || vals[sl.head].X != 7 {
		t.Fatalf("slot %d after growing: %+v, frame %d, pose %v, track %v", s, *sl, frames[sl.head], poses[sl.head], vals[sl.head])
	}
	if got := len(r.ip.blocks); got != int((s+100*blockLen)>>blockBits)+1 {
		t.Fatalf("%d blocks for slot %d", got, s+100*blockLen)
	}
}

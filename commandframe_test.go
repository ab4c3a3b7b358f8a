package tandem

import (
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A command runs at the frame its client gave it at, or as it comes if that
// frame has begun; one given too far on (a client that lies) runs
// maxCommandLead frames after it came at the latest; a player's commands
// run in the order sent either way.
func TestACommandRunsAtItsFrame(t *testing.T) {
	r := newRig(t, HostConfig{})
	p := r.dialRaw("bob")
	var now ecs.Frame
	r.host.Do(func(w *World) { now = w.ECS.Frame() })
	p.sendAt(t, 1, 0, u32(1), uint32(now+30)) // a frame to come
	p.sendAt(t, 2, 0, u32(2), 1<<32-1)        // the last frame there is
	p.sendAt(t, 3, 0, u32(3), 1)              // one gone: behind the others all the same
	r.step(1)
	var came ecs.Frame // the frame they came at
	r.host.Do(func(w *World) { came = w.ECS.Frame() })
	if st := r.host.Stats(); st.Ahead != 2 || st.Commands != 0 {
		t.Fatalf("as they came: %d ahead of their frame, %d run; want 2 and none", st.Ahead, st.Commands)
	}
	for i := 0; len(p.receipts(t)) < 3; i++ {
		if i > 2*maxCommandLead {
			t.Fatalf("receipts %+v after %d frames, want three", p.receipts(t), i)
		}
		r.step(1)
	}
	got := p.receipts(t)
	for i, rc := range got {
		if rc.Op != uint64(i+1) || rc.Status != wire.ReceiptDone {
			t.Fatalf("receipts %+v: want ops 1, 2, 3 done, in order", got)
		}
	}
	if f := ecs.Frame(got[0].Frame); f != now+30 {
		t.Fatalf("the command given at frame %d ran at %d", now+30, f)
	}
	if f := ecs.Frame(got[1].Frame); f > came+maxCommandLead || f < came+maxCommandLead-2 {
		t.Fatalf("the command given at frame 2³²−1, which came at frame %d, ran at %d: want %d frames on", came, f, maxCommandLead)
	}
	if got[2].Frame != got[1].Frame {
		t.Fatalf("the command given at a frame gone ran at %d, the one before it at %d: want it right after", got[2].Frame, got[1].Frame)
	}
	if st := r.host.Stats(); st.Commands != 3 || st.Dropped != 0 || st.Waited != 1 {
		t.Fatalf("%d run, %d dropped, %d waited past their frame; want 3, 0, and 1 (the third, behind the second)", st.Commands, st.Dropped, st.Waited)
	}
}

// Near the end of the host's frames (2³²−1), a command given a few frames
// on runs at its frame, as anywhere else: now+maxCommandLead must not wrap.
func TestACommandNearTheLastFrameRunsAtItsFrame(t *testing.T) {
	r := newRig(t, HostConfig{})
	p := r.dialRaw("bob")
	r.host.Do(func(w *World) { w.ECS.SetFrame(1<<32 - 60) })
	r.step(1)
	var now ecs.Frame
	r.host.Do(func(w *World) { now = w.ECS.Frame() })
	p.sendAt(t, 1, 0, u32(1), uint32(now+10))
	for i := 0; len(p.receipts(t)) < 1; i++ {
		if i > 30 {
			t.Fatal("no receipt")
		}
		r.step(1)
	}
	if got := ecs.Frame(p.receipts(t)[0].Frame); got != now+10 {
		t.Fatalf("the command given at frame %d (the host at %d) ran at %d", now+10, now, got)
	}
}

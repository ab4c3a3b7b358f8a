package tandem

import (
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// TestHostFrameShowsAReceiptsResult: on a link that loses nothing, a client
// holds what a command did on the host exactly from the frame its
// NetStats.HostFrame reaches the receipt's frame: the entity the command
// spawned is absent before it and present from it.
func TestHostFrameShowsAReceiptsResult(t *testing.T) {
	r := newRig(t, HostConfig{})
	ann := r.join("ann", ClientConfig[push]{})
	var got []Receipt
	ann.OnReceipt(func(rc Receipt) { got = append(got, rc) })
	held := func() int {
		n := 0
		ann.Do(func(w *World) { n = w.ECS.Networked() })
		return n
	}
	before := held()
	var hostFrame ecs.Frame
	r.host.Do(func(w *World) { hostFrame = w.ECS.Frame() })
	if hf := ann.NetStats().HostFrame; hf == 0 || hf > hostFrame {
		t.Fatalf("a playing client's HostFrame is %d, the host's frame %d", hf, hostFrame)
	}
	for round := range 3 {
		op, err := Send(ann, tokenCommand, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		var rc Receipt
		for i := 0; ; i++ {
			if i > 120 {
				t.Fatalf("round %d: no receipt and token after 120 frames (receipts %v, HostFrame %d)", round, got, ann.NetStats().HostFrame)
			}
			r.step(1)
			for _, g := range got {
				if g.Op == op {
					rc = g
				}
			}
			hf, n := ann.NetStats().HostFrame, held()
			switch {
			case rc.Op != 0 && rc.Status != ReceiptDone:
				t.Fatalf("round %d: %v", round, rc)
			case rc.Op != 0 && hf < rc.Frame && n != before:
				t.Fatalf("round %d: HostFrame %d, before the receipt's %d, yet the token is held", round, hf, rc.Frame)
			case rc.Op != 0 && hf >= rc.Frame && n != before+1:
				t.Fatalf("round %d: HostFrame %d reached the receipt's %d, yet the client holds %d entities, want %d", round, hf, rc.Frame, n, before+1)
			}
			if rc.Op != 0 && hf >= rc.Frame {
				break
			}
		}
		before++
	}
}

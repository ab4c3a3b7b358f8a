package predict

import (
	"errors"
	"math"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A client drawing the world it does not predict some frames behind the frame
// it predicts records, beside each input, the frame it drew (ViewAt), and
// its input messages say how far behind the newest input that was: the
// host gets back the same view for the same input.
func TestTheClientsViewReachesTheHost(t *testing.T) {
	drawn := 0.0
	r := newRig(t, 1, ClientConfig[pad]{View: func() float64 { return drawn }})
	r.link.keep = true
	for range 30 {
		// Drawn 12.25 frames behind the frame about to be predicted.
		drawn = float64(r.w.Frame()+1) - 12.25
		r.steps(1)
	}
	f := r.w.Frame()
	if got, want := r.pred.ViewAt(f), float64(f)-12.25; got != want {
		t.Fatalf("view recorded for frame %d: %v, want %v", f, got, want)
	}
	if got := r.pred.ViewAt(f + 5); got != float64(f+5) {
		t.Fatalf("view of a frame with no input recorded: %v, want the frame itself", got)
	}

	w := ecs.NewWorld()
	w.SetFrame(f - 1)
	h := NewHostInputs(w, padCodec, HostInputConfig[pad]{})
	if err := h.Receive(1, r.link.msgs[len(r.link.msgs)-1]); err != nil {
		t.Fatal(err)
	}
	w.SetFrame(f)
	h.Update(w)
	if got := h.Peer(1).View(); got != float64(f)-12.25 {
		t.Fatalf("the host's view of frame %d: %v, want %v", f, got, float64(f)-12.25)
	}
}

// The host's view follows the input in force: an input's own frame less its
// distance behind, exact or late; the frame it is repeated at, for a frame
// without its own; the frame itself once released, or while not live. A
// client saying it drew further back than MaxRewind is taken at the bound,
// and counted.
func TestTheHostsViewFollowsTheInputInForce(t *testing.T) {
	w := ecs.NewWorld()
	w.SetFrame(99)
	h := NewHostInputs(w, padCodec, HostInputConfig[pad]{MaxRewind: 20, MaxRepeat: 3})
	send := func(newest ecs.Frame, behind uint32, unaligned bool, ins ...pad) error {
		msg, _ := appendInputsOf(nil, &padCodec, inputsHead{newest: newest, behind: behind, unaligned: unaligned}, ins)
		return h.Receive(1, msg)
	}
	step := func() *PeerInputs[pad] {
		w.SetFrame(w.Frame() + 1)
		h.Update(w)
		return h.Peer(1)
	}
	if err := send(100, 10*ViewScale, true, pad{DX: 1}); err != nil {
		t.Fatal(err)
	}
	if p := step(); p.View() != 100 {
		t.Fatalf("an unaligned input's view: %v, want its frame 100", p.View())
	}
	if err := send(101, 10*ViewScale+ViewScale/4, false, pad{DX: 1}); err != nil {
		t.Fatal(err)
	}
	if p := step(); p.View() != 101-10.25 {
		t.Fatalf("exact: view %v, want 90.75", p.View())
	}
	// Frame 102 has no input: 101's is repeated, seen as far behind 102.
	if p := step(); p.View() != 102-10.25 {
		t.Fatalf("repeated: view %v, want 91.75", p.View())
	}
	// 102's input comes late, applied at 103: seen from 102's view.
	if err := send(102, 4*ViewScale, false, pad{DX: 2}, pad{DX: 1}); err != nil {
		t.Fatal(err)
	}
	if p := step(); p.View() != 102-4 {
		t.Fatalf("late: view %v, want 98", p.View())
	}
	// Further behind than the bound: taken at it, and counted.
	if err := send(104, 300*ViewScale, false, pad{DX: 3}); err != nil {
		t.Fatal(err)
	}
	p := step()
	if p.View() != 104-20 || p.Stats().FarViews != 1 {
		t.Fatalf("a view 300 frames behind: %v (counted %d), want the bound, 84, counted once", p.View(), p.Stats().FarViews)
	}
	// Released after MaxRepeat frames without an input: the frame itself.
	for range 4 {
		p = step()
	}
	if p.Live() || p.View() != float64(w.Frame()) {
		t.Fatalf("released: live %v, view %v, want not live, at frame %d", p.Live(), p.View(), w.Frame())
	}
}

// behindOf rounds a view to the message's resolution, and bounds it.
func TestBehindOf(t *testing.T) {
	for _, c := range []struct {
		f    ecs.Frame
		view float64
		want uint32
	}{
		{100, 100, 0},
		{100, 101.5, 0}, // ahead: nothing behind
		{100, 87.75, 12*ViewScale + ViewScale/4},
		{100, 100 - 1.0/512, 1},
		{1000, 0, maxBehind},
		{100, math.NaN(), 0},
		{100, math.Inf(-1), maxBehind},
	} {
		if got := behindOf(c.f, c.view); got != c.want {
			t.Errorf("behindOf(%d, %v) = %d, want %d", c.f, c.view, got, c.want)
		}
	}
	// What the largest says decodes.
	msg, _ := appendInputsOf(nil, &padCodec, inputsHead{newest: 5, behind: maxBehind}, []pad{{}})
	var r wire.Reader
	if head, _, err := readInputsWith(&r, msg, &padCodec, make([]pad, MaxPerMessage), nil); err != nil || head.behind != maxBehind {
		t.Fatalf("%+v, %v", head, err)
	}
	// A view's difference so large that, multiplied out, it would wrap to
	// a small one is malformed: a message has one encoding.
	for _, d := range []int64{1 << 60, 1<<60 + 1, -(1 << 60), maxViewDelta + 1} {
		big := []byte{5, 2, 0x80, 0x14, 0, 0, 0, 0, 1, 0, 0, 1}
		big = wire.AppendVarint(big, d)
		if _, _, err := readInputsWith(&r, big, &padCodec, make([]pad, MaxPerMessage), make([]uint32, MaxPerMessage)); !errors.Is(err, ErrMalformed) {
			t.Errorf("a view's difference of %d: %v, want ErrMalformed", d, err)
		}
	}
	// A behind past 32 bits is malformed.
	bad := append(wire.AppendUvarint([]byte{5, 1}, 1<<33), 0, 0, 0)
	if _, _, err := readInputsWith(&r, bad, &padCodec, make([]pad, MaxPerMessage), nil); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a behind of 2^33: %v, want ErrMalformed", err)
	}
}

// An input's view is the one its own message gave it, to a 256th of a
// frame; a later message carrying it again gives it to a 16th, and does not
// replace it. An input whose own message was lost takes the view the next
// one gives it, its own (a client whose render frame went on two frames
// while it stepped one set the first a frame further behind its frame than
// the next).
func TestAnInputKeepsTheViewOfItsOwnMessage(t *testing.T) {
	w := ecs.NewWorld()
	w.SetFrame(99)
	h := NewHostInputs(w, padCodec, HostInputConfig[pad]{})
	send := func(newest ecs.Frame, behinds []uint32, ins ...pad) {
		msg, _ := appendInputsOf(nil, &padCodec, inputsHead{newest: newest, behind: behinds[0], behinds: behinds}, ins)
		if err := h.Receive(1, msg); err != nil {
			t.Fatal(err)
		}
	}
	const b = 10 * ViewScale
	send(100, []uint32{b}, pad{DX: 1})
	send(101, []uint32{b + 3, b + 40}, pad{DX: 2}, pad{DX: 1})
	// 102's own message is lost; 103's carries it, set a frame further
	// behind its frame than 103's (drawn two frames apart, a step apart).
	send(103, []uint32{b + 9, b + 9 + ViewScale, b + 3, b}, pad{DX: 4}, pad{DX: 3}, pad{DX: 2}, pad{DX: 1})
	for _, want := range []float64{100 - 10, 101 - (10 + 3.0/ViewScale), 102 - (11 + 9.0/ViewScale), 103 - (10 + 9.0/ViewScale)} {
		w.SetFrame(w.Frame() + 1)
		h.Update(w)
		if got := h.Peer(1).View(); math.Abs(got-want) > 1.0/32 {
			t.Errorf("frame %d: view %v, want %v", w.Frame(), got, want)
		}
	}
}

// A client that steps twice between two frames it draws, or not at all,
// sets its inputs at views a frame apart from their frames' spacing: each
// message says so, and an input whose own message was lost reaches the host
// with its own view all the same.
func TestALostInputMessageLeavesTheViewOfItsInput(t *testing.T) {
	drawn := 0.0
	r := newRig(t, 1, ClientConfig[pad]{View: func() float64 { return drawn }})
	r.link.keep = true
	for i := range 40 {
		if i%3 != 1 { // every third frame is not drawn before it: its view is the last one's
			drawn = float64(r.w.Frame()+1) - 12.25
		}
		r.steps(1)
	}
	msgs := r.link.msgs
	f := r.w.Frame()
	w := ecs.NewWorld()
	w.SetFrame(f - 5)
	h := NewHostInputs(w, padCodec, HostInputConfig[pad]{})
	// Frames f−4 … f−1's own messages are lost: the newest message carries them.
	if err := h.Receive(1, msgs[len(msgs)-1]); err != nil {
		t.Fatal(err)
	}
	for g := f - 4; g <= f; g++ {
		w.SetFrame(g)
		h.Update(w)
		if got, want := h.Peer(1).View(), r.pred.ViewAt(g); math.Abs(got-want) > 1.0/32 {
			t.Errorf("frame %d: the host's view %.4f, the client drew %.4f", g, got, want)
		}
	}
}

// ViewAt gives the view of a frame's input held, for a game that rolls
// back; none for a frame without one.
func TestViewAtGivesAHeldInputsView(t *testing.T) {
	w := ecs.NewWorld()
	w.SetFrame(99)
	h := NewHostInputs(w, padCodec, HostInputConfig[pad]{LateInput: Rollback})
	msg, _ := appendInputsOf(nil, &padCodec, inputsHead{newest: 101, behind: 5 * ViewScale, behinds: []uint32{5 * ViewScale, 6 * ViewScale}}, []pad{{DX: 2}, {DX: 1}})
	if err := h.Receive(1, msg); err != nil {
		t.Fatal(err)
	}
	p := h.Peer(1)
	if v, ok := p.ViewAt(101); !ok || v != 96 {
		t.Errorf("frame 101: %v, %v; want 96", v, ok)
	}
	if v, ok := p.ViewAt(100); !ok || v != 94 {
		t.Errorf("frame 100: %v, %v; want 94", v, ok)
	}
	if _, ok := p.ViewAt(102); ok {
		t.Error("a frame without an input has a view")
	}
}

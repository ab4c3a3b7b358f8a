package predict

import (
	"bytes"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/net/wire/wiretest"
)

func TestInputMessageLayout(t *testing.T) {
	ins := []pad{{DX: 1, DY: -1, Boost: true}, {DX: 2}, {DY: 3}}
	// Frame 299's input was set a frame further behind its frame than 300's
	// (its render frame went on two frames while it stepped one), 298's as
	// far behind as 299's.
	behinds := []uint32{5248, 5248 + ViewScale, 5248 + ViewScale + 3}
	msg, n := appendInputsOf(nil, &padCodec, inputsHead{newest: 300, behind: 20*ViewScale + ViewScale/2, behinds: behinds}, ins)
	if n != 3 {
		t.Fatalf("count %d, want 3", n)
	}
	want := []byte{
		0xac, 0x02, // newest frame 300
		3,          // three inputs, newest first
		0x80, 0x29, // drawn 20.5 frames behind (5248/256)
		0,          // repeats: none
		1, 0xff, 1, // frame 300
		2, 0, 0, // frame 299
		0, 3, 0, // frame 298
		0b01, // views: frame 299's differs from 300's, 298's (3/256 further) as 299's
		0x20, // frame 299: 16/16 of a frame further behind (zig-zag 32)
	}
	if !bytes.Equal(msg, want) {
		t.Fatalf("layout\n got % x\nwant % x", msg, want)
	}
	got := make([]pad, MaxPerMessage)
	var r wire.Reader
	read := make([]uint32, MaxPerMessage)
	head, k, err := readInputsWith(&r, msg, &padCodec, got, read)
	if err != nil || head.newest != 300 || k != 3 || head.behind != 5248 || head.unaligned {
		t.Fatalf("read: %+v count %d err %v", head, k, err)
	}
	if read[0] != 5248 || read[1] != 5248+ViewScale || read[2] != 5248+ViewScale {
		t.Fatalf("views read: %v, want 5248, 5504, 5504 (3/256 is within half a step)", read[:3])
	}
	for i := range ins {
		if got[i] != ins[i] {
			t.Fatalf("input %d: got %+v want %+v", i, got[i], ins[i])
		}
	}
	// Near frame 1 the message stops at frame 1.
	if _, n := appendInputs(nil, &padCodec, 2, ins); n != 2 {
		t.Fatalf("frames 2 and 1 hold %d inputs, want 2", n)
	}
}

// TestUnalignedInputs: the inputs a client sets before its frame is in step
// with the host's go with the count byte's high bit set; the host applies
// them but does not call them live, and once an aligned message came it
// drops unaligned ones (reordered on the way) rather than let them replace
// aligned inputs.
func TestUnalignedInputs(t *testing.T) {
	msg, n := appendInputsOf(nil, &padCodec, inputsHead{newest: 300, unaligned: true}, []pad{{DX: 1}, {DX: 2}})
	if want := []byte{0xac, 0x02, 0x82, 0, 0, 1, 0, 0, 2, 0, 0, 0}; n != 2 || !bytes.Equal(msg, want) {
		t.Fatalf("layout\n got % x\nwant % x", msg, want)
	}
	var r wire.Reader
	got := make([]pad, MaxPerMessage)
	if head, k, err := readInputsWith(&r, msg, &padCodec, got, nil); err != nil || head.newest != 300 || k != 2 || !head.unaligned || got[1].DX != 2 {
		t.Fatalf("read: %+v, %d inputs, %v", head, k, err)
	}

	w := ecs.NewWorld()
	h := NewHostInputs(w, padCodec, HostInputConfig[pad]{})
	step := func(f ecs.Frame) *PeerInputs[pad] {
		w.SetFrame(f)
		h.Update(w)
		return h.Peer(1)
	}
	w.SetFrame(9)
	early, _ := appendInputsOf(nil, &padCodec, inputsHead{newest: 12, unaligned: true}, []pad{{DX: 12}, {DX: 11}, {DX: 10}})
	if err := h.Receive(1, early); err != nil {
		t.Fatal(err)
	}
	if p := step(10); p.Live() {
		t.Fatal("an unaligned input is live")
	} else if in, ok := p.Input(); !ok || in.DX != 10 {
		t.Fatalf("the host applies unaligned inputs: got %+v, %v", in, ok)
	}
	aligned, _ := appendInputs(nil, &padCodec, 12, []pad{{DX: 42}})
	if err := h.Receive(1, aligned); err != nil {
		t.Fatal(err)
	}
	if err := h.Receive(1, early); err != nil {
		t.Fatal(err)
	}
	if p := step(11); p.Live() {
		t.Fatal("the unaligned input of frame 11, taken after an aligned message came, is live")
	}
	p := step(12)
	if in, _ := p.Input(); !p.Live() || in.DX != 42 {
		t.Fatalf("frame 12: %+v, live %v; want the aligned input, live", in, p.Live())
	}
	if st := p.Stats(); st.Unaligned != 1 {
		t.Fatalf("unaligned messages dropped after an aligned one: %d, want 1", st.Unaligned)
	}
	if p := step(13); !p.Live() {
		t.Fatal("the aligned input held for a frame without one is not live")
	}
}

func TestInputMessageKeepsToItsSize(t *testing.T) {
	big := InputCodec[pad]{
		Append: func(dst []byte, in *pad) []byte { return append(append(dst, byte(in.DX)), make([]byte, 99)...) },
		Read:   func(r *wire.Reader, in *pad) { in.DX = int8(r.U8()); r.Raw(99) },
	}
	ins := make([]pad, 8)
	for i := range ins {
		ins[i].DX = int8(i)
	}
	msg, n := appendInputs(nil, &big, 1000, ins)
	if len(msg) > maxMessage || n != 5 {
		t.Fatalf("%d bytes with %d inputs; want at most %d bytes, 5 inputs", len(msg), n, maxMessage)
	}
	got := make([]pad, MaxPerMessage)
	if _, k, err := readInputs(msg, &big, got); err != nil || k != n || got[4].DX != 4 {
		t.Fatalf("read back %d, %v, the oldest %+v", k, err, got[4])
	}
	// Held, the same input is written once: all 8 go in 104 bytes.
	msg, n = appendInputs(nil, &big, 1000, make([]pad, 8))
	if n != 8 || len(msg) != 2+1+1+1+100+1 {
		t.Fatalf("8 inputs alike: %d in %d bytes, want 8 in 106", n, len(msg))
	}
}

// Inputs alike are written once, the repeats' bits saying which frames
// take the one before (a key held, the stick still): at 60 frames a second
// the redundancy that keeps a lost datagram from losing an input costs
// what changed, not 8 inputs a message.
func TestRepeatedInputsAreWrittenOnce(t *testing.T) {
	ins := []pad{{DX: 1}, {DX: 1}, {DX: 1}, {DY: 2}, {DY: 2}, {DX: 1}, {DX: 1}, {DX: 1}, {DX: 1}, {Boost: true}}
	msg, n := appendInputs(nil, &padCodec, 500, ins)
	want := []byte{
		0xf4, 0x03, // newest frame 500
		10,               // ten inputs
		0,                // drawn at the newest frame
		0b1110_1011, 0b0, // repeats: frames 499, 498, 496, 494, 493, 492 as the one after them
		1, 0, 0, // frame 500
		0, 2, 0, // frame 497
		1, 0, 0, // frame 495
		0, 0, 1, // frame 491
		0, 0, // views: each as the newest's
	}
	if n != 10 || !bytes.Equal(msg, want) {
		t.Fatalf("layout\n got % x\nwant % x", msg, want)
	}
	got := make([]pad, MaxPerMessage)
	if newest, k, err := readInputs(msg, &padCodec, got); err != nil || newest != 500 || k != 10 {
		t.Fatalf("read: newest %d count %d err %v", newest, k, err)
	}
	for i := range ins {
		if got[i] != ins[i] {
			t.Fatalf("input %d: got %+v want %+v", i, got[i], ins[i])
		}
	}
	// Eight inputs held: one written, where eight were.
	held, _ := appendInputs(nil, &padCodec, 500, make([]pad, 8))
	if len(held) != 2+1+1+1+3+1 {
		t.Fatalf("8 inputs alike take %d bytes, want 9 (% x)", len(held), held)
	}
}

func TestInputDecoderRefusesMalformed(t *testing.T) {
	valid, _ := appendInputs(nil, &padCodec, 50, []pad{{DX: 1}, {DX: 2}})
	cases := map[string][]byte{
		"empty":           {},
		"no count":        {50},
		"zero count":      {50, 0},
		"count too big":   append([]byte{50, MaxPerMessage + 1}, make([]byte, 3*(MaxPerMessage+1))...),
		"below frame 1":   {1, 2, 0, 0, 0, 0, 0, 0, 0},
		"no repeats":      {50, 2},
		"repeat past end": {50, 2, 0b10, 1, 0, 0, 2, 0, 0},
		"unmarked repeat": {50, 2, 0, 1, 0, 0, 1, 0, 0},
		"truncated":       valid[:len(valid)-1],
		"trailing":        append(append([]byte(nil), valid...), 9),
		"bad button":      {50, 1, 0, 0, 7},
		"long varint":     {0x80 | 50, 0, 1, 0, 0, 0},
		"frame > 32 bits": {0xff, 0xff, 0xff, 0xff, 0x1f, 1, 0, 0, 0},
	}
	for name, msg := range cases {
		w := ecs.NewWorld()
		w.SetFrame(40)
		h := NewHostInputs(w, padCodec, HostInputConfig[pad]{})
		err := h.Receive(2, msg)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v, want ErrMalformed", name, err)
			continue
		}
		st := h.Peer(2).Stats()
		if st.Malformed != 1 || st.Messages != 0 || st.Received != 0 {
			t.Errorf("%s: stats %+v", name, st)
		}
	}
}

// hostRig is a host world taking one peer's inputs.
type hostRig struct {
	w *ecs.World
	h *HostInputs[pad]
}

func newHostRig(cfg HostInputConfig[pad]) *hostRig {
	w := ecs.NewWorld()
	w.SetFrame(99)
	return &hostRig{w: w, h: NewHostInputs(w, padCodec, cfg)}
}

// send delivers a message with inputs for frames newest, newest-1, ...
func (r *hostRig) send(t *testing.T, newest ecs.Frame, ins ...pad) error {
	t.Helper()
	msg, _ := appendInputs(nil, &padCodec, newest, ins)
	return r.h.Receive(1, msg)
}

// frame advances the host one frame and takes the inputs.
func (r *hostRig) frame() *pad {
	r.w.SetFrame(r.w.Frame() + 1)
	r.h.Update(r.w)
	in, ok := r.h.Input(1)
	if !ok {
		return nil
	}
	return in
}

func TestHostAppliesExactAndRepeatsMissing(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{})
	// The host is about to simulate frame 100.
	if err := r.send(t, 101, pad{DX: 2}, pad{DX: 1}); err != nil {
		t.Fatal(err)
	}
	if in := r.frame(); in == nil || in.DX != 1 {
		t.Fatalf("frame 100: %+v, want DX 1", in)
	}
	if in := r.frame(); in.DX != 2 {
		t.Fatalf("frame 101: %+v, want DX 2", in)
	}
	p := r.h.Peer(1)
	// Frames 102 and 103 have no input: the last one repeats.
	for f := 102; f <= 103; f++ {
		if in := r.frame(); in.DX != 2 || p.InputFrame() != 101 || p.AppliedFrame() != ecs.Frame(f) {
			t.Fatalf("frame %d: %+v stamped %d applied %d, want DX 2 of frame 101 applied at %d", f, in, p.InputFrame(), p.AppliedFrame(), f)
		}
	}
	st := p.Stats()
	if st.Exact != 2 || st.Repeated != 2 || st.Received != 2 || st.Messages != 1 {
		t.Fatalf("stats %+v", st)
	}
	// Redundant copies are duplicates; an input for a frame already applied
	// exactly is one too.
	if err := r.send(t, 104, pad{DX: 4}, pad{DX: 9}, pad{DX: 9}, pad{DX: 2}); err != nil {
		t.Fatal(err)
	}
	st = p.Stats()
	if st.Duplicates != 1 || st.Late != 2 {
		t.Fatalf("after a redundant message: %+v, want 1 duplicate, 2 late", st)
	}
	if r.frame().DX != 4 || p.Stats().Exact != 3 {
		t.Fatalf("frame 104: %+v", p.Stats())
	}
}

func TestLateInputAppliedAtOnce(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{})
	r.send(t, 100, pad{DX: 1})
	r.frame() // 100, exact
	r.frame() // 101, repeats DX 1
	r.frame() // 102, repeats
	// Inputs of 101 and 102 arrive now: the newest applies at frame 103.
	r.send(t, 102, pad{DX: 3}, pad{DX: 2})
	if in := r.frame(); in.DX != 3 {
		t.Fatalf("frame 103: %+v, want the late input of frame 102", in)
	}
	p := r.h.Peer(1)
	st := p.Stats()
	if st.Late != 2 || st.LateApplied != 1 || st.Repeated != 2 || st.Exact != 1 {
		t.Fatalf("stats %+v", st)
	}
	if p.AppliedFrame() != 103 || p.InputFrame() != 102 {
		t.Fatalf("applied at %d, stamped %d; want 103, 102", p.AppliedFrame(), p.InputFrame())
	}
	// A late input older than the one in force changes nothing.
	r.send(t, 101, pad{DX: 7})
	if in := r.frame(); in.DX != 3 {
		t.Fatalf("frame 104: %+v, want DX 3 repeated", in)
	}
	// An exact input wins over a late one.
	r.send(t, 104, pad{DX: 5}) // late for 104 (already taken)
	r.send(t, 105, pad{DX: 6})
	if in := r.frame(); in.DX != 6 {
		t.Fatalf("frame 105: %+v, want its exact input", in)
	}
}

func TestLateInputRollbackReported(t *testing.T) {
	type late struct {
		peer ecs.PeerID
		f    ecs.Frame
		in   pad
	}
	var got []late
	r := newHostRig(HostInputConfig[pad]{LateInput: Rollback, OnLate: func(p ecs.PeerID, f ecs.Frame, in *pad) {
		got = append(got, late{p, f, *in})
	}})
	r.send(t, 100, pad{DX: 1})
	r.frame()
	r.frame()
	r.send(t, 101, pad{DX: 2})
	if len(got) != 1 || got[0] != (late{1, 101, pad{DX: 2}}) {
		t.Fatalf("reported %+v", got)
	}
	p := r.h.Peer(1)
	if in, ok := p.InputAt(101); !ok || in.DX != 2 {
		t.Fatal("the late input is not kept for the rollback")
	}
	// It is not applied at once; it is the input repeated from now on.
	if in := r.frame(); in.DX != 2 || p.Stats().LateApplied != 0 || p.Stats().Repeated != 2 {
		t.Fatalf("frame 102: %+v, stats %+v", in, p.Stats())
	}
}

func TestInputWindow(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{Window: 64, MaxAhead: 20})
	// Between frames the host's frame is the last simulated, 99.
	if err := r.send(t, 99+20, pad{}); err != nil {
		t.Fatalf("20 frames ahead refused: %v", err)
	}
	if err := r.send(t, 99+21, pad{}, pad{}); !errors.Is(err, ErrAhead) {
		t.Fatalf("21 ahead: %v, want ErrAhead", err)
	}
	p := r.h.Peer(1)
	if st := p.Stats(); st.Ahead != 1 || st.Received != 1 || st.Duplicates != 1 {
		t.Fatalf("stats %+v: one dropped ahead, one kept, one duplicate", st)
	}
	for range 100 {
		r.frame()
	}
	// 64-20-2 = 42 frames back is the oldest kept.
	if err := r.send(t, 199-42, pad{}); err != nil {
		t.Fatalf("42 behind refused: %v", err)
	}
	if err := r.send(t, 199-43, pad{}); !errors.Is(err, ErrBehind) {
		t.Fatalf("43 behind: %v, want ErrBehind", err)
	}
	if p.Stats().Stale != 1 {
		t.Fatalf("stats %+v", p.Stats())
	}
	if p.Buffered() != -42 {
		t.Fatalf("buffered %d, want -42", p.Buffered())
	}
}

// TestInputsSurviveLoss sends a client's inputs through a link that loses
// 30% of datagrams. The host runs 7 frames behind the moment each message
// arrives (the buffer the client keeps at that loss), so an input reaches its
// frame in time unless all 8 messages carrying it are lost.
func TestInputsSurviveLoss(t *testing.T) {
	const frames, behind = 6000, 7
	r := newRig(t, 1, ClientConfig[pad]{})
	rng := rand.New(rand.NewPCG(7, 7))
	hw := ecs.NewWorld()
	host := NewHostInputs(hw, padCodec, HostInputConfig[pad]{})
	r.next = func(f ecs.Frame) pad { return pad{DX: int8(f % 101), DY: int8(f % 7)} }
	dropped := make([]bool, frames+behind+2)
	for range frames + behind {
		r.steps(1)
		f := r.w.Frame()
		dropped[f] = rng.Float64() < 0.3
		if !dropped[f] {
			if err := host.Receive(localPeer, r.link.last); err != nil {
				t.Fatalf("frame %d: % x: %v %+v", f, r.link.last, err, host.Peer(localPeer).Stats())
			}
		}
		if f > behind {
			hf := f - behind
			hw.SetFrame(hf)
			host.Update(hw)
			if in, ok := host.Input(localPeer); ok && hf > 10 && in.DX != int8(hf%101) && !lostAll(dropped, hf) {
				t.Fatalf("host frame %d applied %+v", hf, in)
			}
		}
	}
	misses := 0
	for f := 1; f <= frames; f++ {
		if lostAll(dropped, ecs.Frame(f)) {
			misses++
		}
	}
	st := host.Peer(localPeer).Stats()
	t.Logf("stats %+v, %d inputs lost with all their carriers", st, misses)
	if int(st.Exact) != frames-misses || int(st.Repeated+st.LateApplied) != misses {
		t.Fatalf("%d frames applied exact, %d missing; want %d and %d", st.Exact, st.Repeated+st.LateApplied, frames-misses, misses)
	}
	// With this seed no run of 8 losses happens (the chance is 0.3^8 per frame).
	if misses != 0 || st.Exact != frames {
		t.Fatalf("an input missed its frame")
	}
}

// lostAll reports whether every message carrying the input of frame f was
// lost: those of frames f to f+7.
func lostAll(dropped []bool, f ecs.Frame) bool {
	for g := f; g < f+DefaultRedundancy; g++ {
		if int(g) < len(dropped) && !dropped[g] {
			return false
		}
	}
	return true
}

func FuzzInputMessage(f *testing.F) {
	r := newRig(f, 1, ClientConfig[pad]{})
	r.link.keep = true
	r.steps(20)
	for _, m := range r.link.msgs {
		f.Add(m)
	}
	f.Add([]byte{50, 1, 0, 0, 0, 0})
	f.Add([]byte{50, 0x81, 0, 0, 0, 0})             // unaligned
	f.Add([]byte{50, 1, 0x80, 0x14, 0, 0, 0})       // drawn 10 frames behind
	f.Add([]byte{50, 1, 0xff, 0xff, 0x03, 0, 0, 0}) // past MaxRewind
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f, 64})
	f.Add([]byte{11, 1, 0x80, 0x14, 0, 0, 0})                      // frame 11, drawn 10 frames behind
	f.Add([]byte{11, 2, 0x80, 0x14, 0, 0, 0, 0, 1, 0, 0, 1, 0x20}) // and frame 10, 11 frames behind
	f.Add([]byte{11, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0})    // as far behind as 32 bits say
	f.Fuzz(func(t *testing.T, msg []byte) {
		w := ecs.NewWorld()
		w.SetFrame(10)
		h := NewHostInputs(w, padCodec, HostInputConfig[pad]{})
		err := h.Receive(1, msg)
		st := h.Peer(1).Stats()
		if errors.Is(err, ErrMalformed) {
			if st.Malformed != 1 || st.Received+st.Duplicates+st.Ahead+st.Stale != 0 {
				t.Fatalf("refused message counted %+v", st)
			}
			return
		}
		if err != nil && !errors.Is(err, ErrAhead) && !errors.Is(err, ErrBehind) {
			t.Fatalf("unexpected error %v", err)
		}
		ins := make([]pad, MaxPerMessage)
		var r wire.Reader
		head, n, rerr := readInputsWith(&r, msg, &padCodec, ins, make([]uint32, MaxPerMessage))
		if rerr != nil {
			t.Fatalf("accepted message does not decode: %v", rerr)
		}
		again, k := appendInputsOf(nil, &padCodec, head, ins[:n])
		if k < n {
			// Longer than a client writes (its views' differences large):
			// read all the same.
			if len(msg) <= maxMessage {
				t.Fatalf("a message of %d bytes re-encodes with %d of its %d inputs", len(msg), k, n)
			}
			return
		}
		if !bytes.Equal(again, msg) {
			t.Fatalf("accepted message re-encodes differently:\n% x\n% x", msg, again)
		}
		if st.Received+st.Duplicates+st.Ahead+st.Stale != uint64(n) {
			t.Fatalf("%d inputs, counted %+v", n, st)
		}
		w.SetFrame(11)
		h.Update(w)
		// The view of what is in force: finite, never ahead of the frame
		// nor further behind than MaxRewind, nor before frame 0.
		if v := h.Peer(1).View(); !(v >= max(11-DefaultMaxRewind, 0) && v <= 11) {
			t.Fatalf("view %v at frame 11", v)
		}
	})
}

// TestInputMessageMatchesProtocol ties PROTOCOL.md's Input example to the
// encoder and decoder.
func TestInputMessageMatchesProtocol(t *testing.T) {
	want, ok := wiretest.Blocks(t, "../wire/PROTOCOL.md", "predict")["input"]
	if !ok {
		t.Fatal("PROTOCOL.md has no predict input block")
	}
	ins := []pad{{DX: 1, DY: -1, Boost: true}, {DX: 2}, {DY: 3}}
	if msg, _ := appendInputsOf(nil, &padCodec, inputsHead{newest: 300, behind: 5248, behinds: []uint32{5248, 5248 + ViewScale, 5248 + ViewScale}}, ins); !bytes.Equal(msg, want) {
		t.Fatalf("encoder writes % x, PROTOCOL.md shows % x", msg, want)
	}
	got := make([]pad, MaxPerMessage)
	var r wire.Reader
	if head, k, err := readInputsWith(&r, want, &padCodec, got, nil); err != nil || head.newest != 300 || head.behind != 5248 || k != 3 || got[0] != ins[0] || got[2] != ins[2] {
		t.Fatalf("decoding the document: %+v count %d err %v inputs %+v", head, k, err, got[:3])
	}
	held, ok := wiretest.Blocks(t, "../wire/PROTOCOL.md", "predict")["input-held"]
	if !ok {
		t.Fatal("PROTOCOL.md has no predict input-held block")
	}
	ins = []pad{{DX: 1}, {DX: 1}, {DX: 1}, {DX: 1}, {}, {}, {}, {}}
	if msg, _ := appendInputs(nil, &padCodec, 300, ins); !bytes.Equal(msg, held) {
		t.Fatalf("encoder writes % x, PROTOCOL.md shows % x", msg, held)
	}
	if newest, k, err := readInputs(held, &padCodec, got); err != nil || newest != 300 || k != 8 || got[3] != ins[3] || got[7] != ins[7] || got[4] != ins[4] {
		t.Fatalf("decoding the document: newest %d count %d err %v inputs %+v", newest, k, err, got[:8])
	}
}

// A peer whose inputs stop coming (a client stalled, or gone without
// closing) has its last input repeated for MaxRepeat frames, then stands
// still: the zero input, Live false, until its inputs come again. A
// negative MaxRepeat repeats without end.
func TestMissingInputsReleasedAfterMaxRepeat(t *testing.T) {
	r := newHostRig(HostInputConfig[pad]{MaxRepeat: 3})
	r.send(t, 100, pad{DX: 5})
	r.frame() // 100, exact
	p := r.h.Peer(1)
	for f := 101; f <= 103; f++ {
		if in := r.frame(); in.DX != 5 || !p.Live() {
			t.Fatalf("frame %d: %+v live %v, want DX 5 repeated", f, in, p.Live())
		}
	}
	for f := 104; f <= 110; f++ {
		if in := r.frame(); in.DX != 0 || p.Live() || p.AppliedFrame() != ecs.Frame(f) {
			t.Fatalf("frame %d: %+v live %v applied %d, want the zero input, not live", f, in, p.Live(), p.AppliedFrame())
		}
	}
	if st := p.Stats(); st.Exact != 1 || st.Repeated != 3 || st.Released != 7 {
		t.Fatalf("stats %+v, want 1 exact, 3 repeated, 7 released", st)
	}
	// A late input newer than the last one comes: it applies, and its
	// repeats start over.
	r.send(t, 110, pad{DX: 6})
	if in := r.frame(); in.DX != 6 || !p.Live() {
		t.Fatalf("frame 111: %+v live %v, want the late DX 6", in, p.Live())
	}
	r.send(t, 112, pad{DX: 7})
	if in := r.frame(); in.DX != 7 || !p.Live() {
		t.Fatalf("frame 112: %+v, want DX 7", in)
	}
	for range 3 {
		if in := r.frame(); in.DX != 7 {
			t.Fatalf("a repeat after the inputs came back: %+v, want DX 7", in)
		}
	}
	if in := r.frame(); in.DX != 0 {
		t.Fatalf("the fourth missing frame: %+v, want the zero input", in)
	}
	// A late input stamped long ago (a trickle of stale inputs) is applied
	// once, then counts from its own stamp: it does not bring the player
	// back for MaxRepeat more frames.
	r.send(t, 114, pad{DX: 8})
	if in := r.frame(); in.DX != 8 || !p.Live() {
		t.Fatalf("frame 117: %+v, want the late DX 8 once", in)
	}
	if in := r.frame(); in.DX != 0 || p.Live() {
		t.Fatalf("frame 118: %+v live %v, want the zero input: DX 8's stamp is 4 frames back", in, p.Live())
	}
	// Frames the host simulated without taking inputs count too.
	r.send(t, 119, pad{DX: 9})
	r.frame() // 119, exact
	skipped := p.Stats().Skipped
	r.w.SetFrame(r.w.Frame() + 5)
	if in := r.frame(); in.DX != 0 || p.Stats().Skipped-skipped != 5 {
		t.Fatalf("after 5 frames skipped: %+v, skipped %d; want the zero input", in, p.Stats().Skipped-skipped)
	}

	endless := newHostRig(HostInputConfig[pad]{MaxRepeat: -1})
	endless.send(t, 100, pad{DX: 5})
	for range 100 {
		if in := endless.frame(); in.DX != 5 {
			t.Fatalf("with no bound: %+v, want DX 5 repeated", in)
		}
	}
}

// An input the codec's own Read refuses once its Append wrote it is taken,
// and sent, as the zero input: each message the host gets decodes (the
// host would drop a client whose messages kept failing), the client
// predicts with what the host applies, and the refusal is counted and
// logged, once.
func TestSetInputTheCodecRefusesGoesAsZero(t *testing.T) {
	strict := padCodec
	strict.Read = func(r *wire.Reader, in *pad) {
		padCodec.Read(r, in)
		if in.DX == 99 && r.Err() == nil {
			r.Fail(wire.ErrInvalid) // a rule of the game's Read that its Append does not keep
		}
	}
	var logged bytes.Buffer
	w := ecs.NewWorld()
	sched := ecs.NewSchedule(w, clock.NewFake(time.Unix(0, 0)), 0)
	link := &fakeLink{keep: true}
	pred := NewClient(sched, replicate.NewRegistry(w), strict, ClientConfig[pad]{
		Local:  func() ecs.PeerID { return localPeer },
		Link:   link,
		Logger: slog.New(slog.NewTextHandler(&logged, nil)),
	})
	for f, in := range []pad{{DX: 1}, {DX: 99, Boost: true}, {DX: 2}, {DX: 99}} {
		w.SetFrame(ecs.Frame(f + 1))
		pred.SetInput(in)
		want := in
		if in.DX == 99 {
			want = pad{}
		}
		if got := *pred.Input(); got != want {
			t.Fatalf("frame %d: set %+v, took %+v; want %+v", f+1, in, got, want)
		}
	}
	if st := pred.Stats(); st.RefusedInputs != 2 || st.InputMessages != 4 {
		t.Fatalf("stats %+v; want 2 inputs refused, 4 messages sent", st)
	}
	got := make([]pad, MaxPerMessage)
	for i, msg := range link.msgs {
		if _, _, err := readInputs(msg, &strict, got); err != nil {
			t.Fatalf("message %d does not decode on the host: %v", i+1, err)
		}
	}
	if n := strings.Count(logged.String(), "level=ERROR"); n != 1 || !strings.Contains(logged.String(), "RefusedInputs") {
		t.Fatalf("logged %q; want one error naming the count", logged.String())
	}
	// The check costs no allocation a frame.
	link.keep = false
	f := w.Frame()
	if a := testing.AllocsPerRun(100, func() {
		f++
		w.SetFrame(f)
		pred.SetInput(pad{DX: int8(f % 5)})
	}); a != 0 {
		t.Fatalf("SetInput allocates %.1f times a frame", a)
	}
}

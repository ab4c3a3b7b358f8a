package predict

import (
	"encoding/binary"
	"errors"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// stick is an input of floats as a game writes one: its codec sends the
// bits as they are, as most do.
type stick struct {
	Move struct{ X, Y float32 }
	Aim  [2]float64
	Fire byte
}

var stickCodec = InputCodec[stick]{
	Append: func(dst []byte, in *stick) []byte {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(in.Move.X))
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(in.Move.Y))
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(in.Aim[0]))
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(in.Aim[1]))
		return append(dst, in.Fire)
	},
	Read: func(r *wire.Reader, in *stick) {
		in.Move.X = math.Float32frombits(r.U32())
		in.Move.Y = math.Float32frombits(r.U32())
		in.Aim[0] = math.Float64frombits(r.U64())
		in.Aim[1] = math.Float64frombits(r.U64())
		if in.Fire = r.U8(); in.Fire == 0xee {
			var none []int
			_ = none[in.Fire] // a bug of the game's codec a peer's byte reaches
		}
	},
}

// TestInputWithANonFiniteFloatIsRefused: a peer's input with a NaN or an
// infinity in any float field, nested or in an array, is a malformed
// message on the host, whatever the game's codec takes (a NaN passes every
// clamp a game writes with comparisons, and drove a host body to NaN while
// its players were sent 0); a finite one is taken.
func TestInputWithANonFiniteFloatIsRefused(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		field string
		in    stick
	}{
		{"Move.X", stick{Move: struct{ X, Y float32 }{X: float32(nan)}}},
		{"Move.Y", stick{Move: struct{ X, Y float32 }{Y: float32(-inf)}}},
		{"Aim[0]", stick{Aim: [2]float64{nan, 0}}},
		{"Aim[1]", stick{Aim: [2]float64{0, inf}}},
	}
	for _, c := range cases {
		w := ecs.NewWorld()
		w.SetFrame(40)
		h := NewHostInputs(w, stickCodec, HostInputConfig[stick]{})
		msg, _ := appendInputs(nil, &stickCodec, 41, []stick{{Fire: 1}, c.in})
		err := h.Receive(2, msg)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "input field "+c.field) {
			t.Errorf("%s: error %v, want ErrMalformed naming the field", c.field, err)
			continue
		}
		if st := h.Peer(2).Stats(); st.Malformed != 1 || st.Received != 0 {
			t.Errorf("%s: stats %+v; want the message refused whole", c.field, st)
		}
	}
	w := ecs.NewWorld()
	w.SetFrame(40)
	h := NewHostInputs(w, stickCodec, HostInputConfig[stick]{})
	ok := stick{Move: struct{ X, Y float32 }{X: math.MaxFloat32, Y: -1}, Aim: [2]float64{-math.MaxFloat64, 1e-300}}
	msg, _ := appendInputs(nil, &stickCodec, 41, []stick{ok})
	if err := h.Receive(2, msg); err != nil {
		t.Fatalf("a finite input refused: %v", err)
	}
}

// TestInputCodecPanicIsAMalformedMessage: bytes of a peer's that make the
// game's input codec panic are a malformed message the host counts, not
// the end of the host.
func TestInputCodecPanicIsAMalformedMessage(t *testing.T) {
	w := ecs.NewWorld()
	w.SetFrame(40)
	h := NewHostInputs(w, stickCodec, HostInputConfig[stick]{})
	msg, _ := appendInputs(nil, &stickCodec, 41, []stick{{Fire: 0xee}})
	err := h.Receive(2, msg)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("error %v, want ErrMalformed saying the codec panicked", err)
	}
	msg, _ = appendInputs(nil, &stickCodec, 42, []stick{{Fire: 1}})
	if err := h.Receive(2, msg); err != nil {
		t.Fatalf("the next message: %v", err)
	}
	if st := h.Peer(2).Stats(); st.Malformed != 1 || st.Messages != 1 {
		t.Fatalf("stats %+v; want one malformed, one taken", st)
	}
}

// TestSetInputOfANonFiniteFloatGoesAsZero: a game that sets a NaN input
// sends the zero input in its place (the host would refuse the message),
// and predicts with it too.
func TestSetInputOfANonFiniteFloatGoesAsZero(t *testing.T) {
	w := ecs.NewWorld()
	sched := ecs.NewSchedule(w, clock.NewFake(time.Unix(0, 0)), 0)
	link := &fakeLink{keep: true}
	pred := NewClient(sched, replicate.NewRegistry(w), stickCodec, ClientConfig[stick]{
		Local:  func() ecs.PeerID { return localPeer },
		Link:   link,
		Logger: slog.New(slog.DiscardHandler),
	})
	w.SetFrame(1)
	pred.SetInput(stick{Move: struct{ X, Y float32 }{X: float32(math.NaN())}, Fire: 1})
	if got := *pred.Input(); got != (stick{}) {
		t.Fatalf("took %+v, want the zero input", got)
	}
	if st := pred.Stats(); st.RefusedInputs != 1 {
		t.Fatalf("stats %+v; want the input refused", st)
	}
	got := make([]stick, MaxPerMessage)
	if _, _, err := readInputs(link.msgs[0], &stickCodec, got); err != nil {
		t.Fatalf("the message does not decode on the host: %v", err)
	}
}

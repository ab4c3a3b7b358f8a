package predict

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// InputCodec says how the game's input value I travels in KindInput
// messages. Append and Read are required.
type InputCodec[I any] struct {
	// Append appends in's encoding to dst and returns the extended slice. The
	// encoding must be self-delimiting: Read finds its end without a length.
	Append func(dst []byte, in *I) []byte
	// Read reads one input written by Append into in. On data Append never
	// writes (a value out of range, say) it calls r.Fail(wire.ErrInvalid):
	// the host then refuses the whole message. An input whose float32 or
	// float64 fields (in nested structs and arrays too) are not all finite
	// is refused as well, whatever Read says, and so is one whose Read
	// panics (the host recovers). A client reads back each input it sets
	// before sending it: one refused there goes as the zero input
	// (Client.SetInput).
	Read func(r *wire.Reader, in *I)
	// MaxSize is the most bytes Append writes for one input. Default 32.
	MaxSize int

	// floats are I's floating point fields, which a decoded input must
	// hold finite (finite.go).
	floats []floatField
}

func (c *InputCodec[I]) check() {
	if c.Append == nil || c.Read == nil {
		panic("predict: InputCodec needs Append and Read")
	}
	if c.MaxSize <= 0 {
		c.MaxSize = 32
	}
	c.floats = floatFields(reflect.TypeFor[I](), 0, "", nil)
}

// read reads one input through the game's Read into in and refuses it (r
// fails with wire.ErrInvalid) if a floating point field of it is NaN or
// infinite, or if Read panicked: a peer's bytes that crash the game's
// codec are a malformed message, not the end of the host.
func (c *InputCodec[I]) read(r *wire.Reader, in *I) {
	defer func() {
		if p := recover(); p != nil {
			r.Fail(fmt.Errorf("%w: the game's input codec panicked reading an input: %v; make Read fail the reader (r.Fail) on data it does not take", wire.ErrInvalid, p))
		}
	}()
	c.Read(r, in)
	if r.Err() == nil {
		checkFinite(c.floats, in, r)
	}
}

// Limits of KindInput messages. Wire-affecting: see "Input" in PROTOCOL.md.
const (
	// MaxPerMessage is the most inputs one KindInput message carries.
	MaxPerMessage = 64
	// DefaultRedundancy is how many inputs, the newest and those before it,
	// every KindInput message carries by default.
	DefaultRedundancy = 8
	// maxMessage bounds a message the client builds, in bytes; past it the
	// oldest inputs are left out.
	maxMessage = 512
)

// Errors of input messages. Compare with errors.Is.
var (
	// ErrMalformed: an input message did not decode, or carried more inputs
	// than MaxPerMessage. Nothing of it was used. Report it to the connection
	// (conn.Conn.ReportMalformed): a peer that keeps sending them is dropped.
	ErrMalformed = errors.New("predict: malformed input message; the peer speaks another protocol or its input codec differs from the host's")
	// ErrAhead: an input message was stamped too far ahead of the host's
	// frame (more than HostInputConfig.MaxAhead); its inputs were dropped.
	// The client's clock is off: it resynchronizes by itself.
	ErrAhead = errors.New("predict: input stamped too far ahead of the host's frame; dropped, the client must resynchronize its clock")
	// ErrBehind: every input of a message was stamped too far behind the
	// host's frame to be used; they were dropped. The client lags: it
	// resynchronizes by itself.
	ErrBehind = errors.New("predict: input stamped too far behind the host's frame; dropped, the client must resynchronize its clock")
	// ErrTooMany: the peer sent more input messages in one host frame than
	// HostInputConfig.MaxMessagesPerFrame; the message was dropped unread.
	// An honest client sends one a frame: count it, and raise the limit if
	// an honest peer trips it after stalls.
	ErrTooMany = errors.New("predict: too many input messages from the peer in one host frame; dropped, raise HostInputConfig.MaxMessagesPerFrame if the peer is honest")
)

// appendInputs appends the KindInput payload for ins, the inputs of frames
// newest, newest-1, ... in that order, leaving out the oldest where the
// message would pass maxMessage bytes or reach frame 0. It returns the payload
// and how many inputs it holds.
//
// Layout: newest frame (uvarint), count (u8: 1..MaxPerMessage, with
// unalignedFlag set when the client's frame is not yet in step with the
// host's), behind (uvarint: how far behind the newest frame the client
// drew what it does not predict, in 1/ViewScale of a frame), the repeats
// (repeatBytes(count) bytes: bit i set when input i+1 encodes as input i
// does, and is left out), the inputs not left out, newest first, then the
// older inputs' views: a bit for each (repeatBytes(count) bytes, bit i for
// input i+1) set where its behind differs from the one before it's, and for
// each set, newest first, the difference (varint, in 1/viewStep of a frame).
// Every input takes the view ins' own frames say: see inputsHead.
func appendInputs[I any](dst []byte, codec *InputCodec[I], newest ecs.Frame, ins []I) ([]byte, int) {
	return appendInputsOf(dst, codec, inputsHead{newest: newest}, ins)
}

// inputsHead is what an Input message says besides its inputs.
type inputsHead struct {
	newest    ecs.Frame // the newest input's frame
	unaligned bool      // set before the client's frame was in step with the host's
	// behind is how far behind newest the client drew the entities it
	// does not predict as its newest input was set (its render frame), in
	// 1/ViewScale of a frame: the view a lag-compensated hit test takes.
	behind uint32
	// behinds, writing, holds each input's behind (of its own frame), in
	// 1/ViewScale of a frame; nil: each the newest's. Each older one goes
	// within 1/(2·viewStep) of a frame (viewDeltas).
	behinds []uint32
}

// viewStep is the resolution of the older inputs' views in an Input
// message: 1/viewStep of a frame, a millisecond at 60 Hz.
const viewStep = 16

// maxViewDelta bounds a view's difference in an Input message, in
// 1/viewStep of a frame: what keeps a distance behind within 32 bits (a
// larger one, multiplied out, could wrap to a small one).
const maxViewDelta = math.MaxUint32/(ViewScale/viewStep) + 1

// ViewScale is the resolution of an Input message's view: how far behind
// its newest frame the client drew the world, in 1/ViewScale of a frame.
const ViewScale = 256

// unalignedFlag marks, in an Input message's count byte, inputs a client set
// before its frame was in step with the host's: the host applies them, and
// the game does not take them for the player's (PeerInputs.Live).
const unalignedFlag = 0x80

// repeatBytes is the size of an Input message's repeats for n inputs: a
// bit for each input after the newest.
func repeatBytes(n int) int { return (max(n, 1) - 1 + 7) / 8 }

// maxRepeatBytes is repeatBytes(MaxPerMessage).
const maxRepeatBytes = (MaxPerMessage - 1 + 7) / 8

// appendInputsOf is appendInputs with the whole head given.
func appendInputsOf[I any](dst []byte, codec *InputCodec[I], head inputsHead, ins []I) ([]byte, int) {
	start := len(dst)
	newest := head.newest
	dst = wire.AppendUvarint(dst, uint64(newest))
	countAt := len(dst)
	n := min(len(ins), MaxPerMessage)
	if uint64(n) > uint64(newest) {
		n = int(newest)
	}
	dst = append(dst, 0)
	dst = wire.AppendUvarint(dst, uint64(head.behind))
	repeatsAt := len(dst)
	// The older inputs' views, and what they cost for each count.
	var views [MaxPerMessage]int64
	var viewBytes [MaxPerMessage]int // of views[1..i]
	viewDeltas(head, n, &views)
	for i := 1; i < n; i++ {
		viewBytes[i] = viewBytes[i-1]
		if views[i] != 0 {
			viewBytes[i] += uvarintLen(wire.ZigZag(views[i]))
		}
	}
	// The repeats' room for n inputs, filled once it is known how many
	// fit: the inputs go after it, and move up if fewer fit.
	var repeats [maxRepeatBytes]byte
	room := repeatBytes(n)
	dst = append(dst, repeats[:room]...)
	at := len(dst)
	last, lastEnd := at, at // the last input written
	k := 0
	for ; k < n; k++ {
		before := len(dst)
		dst = codec.Append(dst, &ins[k])
		repeat := k > 0 && string(dst[before:]) == string(dst[last:lastEnd])
		if repeat {
			dst = dst[:before] // encodes as the one before it
		}
		if k > 0 && len(dst)-start-room+2*repeatBytes(k+1)+viewBytes[k] > maxMessage {
			dst = dst[:before]
			break
		}
		if repeat {
			repeats[(k-1)/8] |= 1 << ((k - 1) % 8)
		} else {
			last, lastEnd = before, len(dst)
		}
	}
	dst[countAt] = byte(k)
	if head.unaligned && k > 0 {
		dst[countAt] |= unalignedFlag
	}
	// The repeats of the k inputs that fit, the inputs right after them.
	used := repeatBytes(k)
	copy(dst[repeatsAt:], repeats[:used])
	if room > used {
		moved := copy(dst[repeatsAt+used:], dst[at:])
		dst = dst[:repeatsAt+used+moved]
	}
	// The views of the k inputs that fit: a bit for each after the newest
	// whose behind differs from the one before it's, then the differences.
	var bits [maxRepeatBytes]byte
	for i := 1; i < k; i++ {
		if views[i] != 0 {
			bits[(i-1)/8] |= 1 << ((i - 1) % 8)
		}
	}
	dst = append(dst, bits[:repeatBytes(k)]...)
	for i := 1; i < k; i++ {
		if views[i] != 0 {
			dst = wire.AppendVarint(dst, views[i])
		}
	}
	return dst, k
}

// viewDeltas sets views[i], for each of an Input message's n inputs after
// the newest, to how far its behind is from the one before it's, in
// 1/viewStep of a frame (0: the same). Each is taken from the behind the host
// will hold for the input before it (the differences rounded so far), so
// none is off by more than half a step.
func viewDeltas(head inputsHead, n int, views *[MaxPerMessage]int64) {
	held := float64(head.behind) // the behind the host holds for input i-1
	for i := 1; i < n && i < len(head.behinds); i++ {
		off := float64(head.behinds[i]) - held
		d := 0.0
		if math.Abs(off) > ViewScale/viewStep/2 { // within half a step: the same
			d = math.Round(off * viewStep / ViewScale)
		}
		for next := held + d*ViewScale/viewStep; next < 0 || next > math.MaxUint32; next = held + d*ViewScale/viewStep {
			d -= math.Copysign(1, d) // a step towards none, into the range
		}
		held += d * ViewScale / viewStep
		views[i] = int64(d)
	}
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// readInputs decodes a KindInput payload into dst (which must hold
// MaxPerMessage inputs), newest first, and returns the newest frame and the
// count. A payload that does not decode completely returns an error wrapping
// ErrMalformed, and dst holds nothing usable.
func readInputs[I any](payload []byte, codec *InputCodec[I], dst []I) (newest ecs.Frame, n int, err error) {
	var r wire.Reader
	head, n, err := readInputsWith(&r, payload, codec, dst, nil)
	return head.newest, n, err
}

// readViews reads the views of an Input message's n inputs after the newest
// into head.behinds (which must hold MaxPerMessage), failing r on a bit past
// them, a difference of zero, or a behind below zero or past 32 bits.
func readViews(r *wire.Reader, head *inputsHead, n int) {
	if r.Err() != nil {
		return
	}
	bits := r.Raw(repeatBytes(n))
	for b := max(n-1, 0); b < len(bits)*8; b++ {
		if bits[b/8]&(1<<(b%8)) != 0 {
			r.Fail(fmt.Errorf("%w: a view bit past the %d inputs", wire.ErrInvalid, n))
			return
		}
	}
	b := int64(head.behind)
	if head.behinds != nil {
		head.behinds[0] = head.behind
	}
	for i := 1; i < n && r.Err() == nil; i++ {
		if bits[(i-1)/8]&(1<<((i-1)%8)) != 0 {
			d := r.Varint()
			switch {
			case r.Err() != nil:
			case d == 0:
				r.Fail(fmt.Errorf("%w: input %d's view is set and the same as the one before it's", wire.ErrInvalid, i))
			case d > maxViewDelta || d < -maxViewDelta:
				r.Fail(fmt.Errorf("%w: input %d's view differs from the one before it's by %d/%d of a frame", wire.ErrInvalid, i, d, viewStep))
			default:
				if b += d * (ViewScale / viewStep); b < 0 || b > math.MaxUint32 {
					r.Fail(fmt.Errorf("%w: input %d's view is %d/%d of a frame behind it", wire.ErrInvalid, i, b, ViewScale))
				}
			}
		}
		if head.behinds != nil {
			head.behinds[i] = uint32(b)
		}
	}
}

// readInputsWith is readInputs reading through r, a reader the caller keeps,
// so that a host decoding every peer's inputs every frame allocates nothing
// (a reader handed to the codec's function would otherwise escape); it
// returns the message's whole head, each input's behind in behinds (which
// must hold MaxPerMessage, or be nil).
func readInputsWith[I any](r *wire.Reader, payload []byte, codec *InputCodec[I], dst []I, behinds []uint32) (head inputsHead, n int, err error) {
	r.Reset(payload)
	head.behinds = behinds
	head.newest = ecs.Frame(r.Uvarint32())
	count := r.U8()
	head.unaligned, n = count&unalignedFlag != 0, int(count&^unalignedFlag)
	head.behind = r.Uvarint32()
	if r.Err() == nil {
		switch {
		case n == 0 || n > MaxPerMessage:
			r.Fail(fmt.Errorf("%w: %d inputs, want 1 to %d", wire.ErrInvalid, n, MaxPerMessage))
		case uint64(head.newest) < uint64(n):
			r.Fail(fmt.Errorf("%w: %d inputs up to frame %d reach frame 0", wire.ErrInvalid, n, head.newest))
		}
	}
	var repeats []byte
	if r.Err() == nil {
		repeats = r.Raw(repeatBytes(n))
		for b := max(n-1, 0); b < len(repeats)*8; b++ {
			if repeats[b/8]&(1<<(b%8)) != 0 {
				r.Fail(fmt.Errorf("%w: a repeat bit past the %d inputs", wire.ErrInvalid, n))
				break
			}
		}
	}
	last, lastEnd := 0, 0 // the last input read, by its place in payload
	for i := 0; i < n && r.Err() == nil; i++ {
		if i > 0 && repeats[(i-1)/8]&(1<<((i-1)%8)) != 0 {
			dst[i] = dst[i-1]
			continue
		}
		before := r.Offset()
		codec.read(r, &dst[i])
		end := r.Offset()
		if i > 0 && r.Err() == nil && string(payload[before:end]) == string(payload[last:lastEnd]) {
			r.Fail(fmt.Errorf("%w: input %d encodes as the one before it, which a repeat says", wire.ErrInvalid, i))
		}
		last, lastEnd = before, end
	}
	readViews(r, &head, n)
	if err := r.Finish(); err != nil {
		return inputsHead{}, 0, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return head, n, nil
}

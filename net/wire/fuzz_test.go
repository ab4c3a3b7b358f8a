package wire

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"
)

// seedGolden adds every PROTOCOL.md example to a fuzz corpus.
func seedGolden(f *testing.F) {
	for _, b := range readGolden(f) {
		f.Add(b)
	}
}

// FuzzReader reads values of every type, chosen by the input's first bytes,
// from the rest: no panic, no read past the end, errors are sticky, and an
// integer read is what encoding/binary reads from the same bytes (a varint
// only in its shortest form).
func FuzzReader(f *testing.F) {
	seedGolden(f)
	f.Add([]byte{0x12, 0x34, 0x80, 0x80, 0x01, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		ops, in := data[:len(data)/4+1], data[len(data)/4+1:]
		r := NewReader(in)
		for _, op := range ops {
			before := r.Offset()
			ok := r.Err() == nil
			// want is what the bytes read give by encoding/binary: a fixed
			// width little-endian, or a varint whose shortest form they are.
			var got uint64
			var want func(b []byte) (uint64, bool) // nil: not an integer
			fixed := func(n int) func([]byte) (uint64, bool) {
				return func(b []byte) (uint64, bool) {
					var p [8]byte
					copy(p[:], b)
					return binary.LittleEndian.Uint64(p[:]), len(b) == n
				}
			}
			varint := func(b []byte) (uint64, bool) {
				v, n := binary.Uvarint(b)
				return v, n == len(b) && bytes.Equal(binary.AppendUvarint(nil, v), b)
			}
			switch op % 12 {
			case 0:
				got, want = uint64(r.U8()), fixed(1)
			case 1:
				got, want = uint64(r.U16()), fixed(2)
			case 2:
				got, want = uint64(r.U32()), fixed(4)
			case 3:
				got, want = r.U64(), fixed(8)
			case 4:
				got, want = r.Uvarint(), varint
			case 5:
				got, want = ZigZag(r.Varint()), varint
			case 6:
				got, want = uint64(r.Uvarint32()), varint
			case 7:
				r.LenBytes(int(op))
			case 8:
				r.String(int(op))
			case 9:
				r.Count(int(op))
			case 10:
				r.Bool()
			case 11:
				r.F64()
			}
			if r.Offset() < before || r.Offset() > len(in) {
				t.Fatalf("offset moved from %d to %d in %d bytes", before, r.Offset(), len(in))
			}
			if ok && r.Err() == nil && want != nil {
				if w, match := want(in[before:r.Offset()]); w != got || !match {
					t.Fatalf("read %d from % x (op %d), which encoding/binary reads as %d (the whole of it, in its shortest form: %v)", got, in[before:r.Offset()], op%12, w, match)
				}
			}
			if r.Err() != nil && r.Len() != 0 {
				t.Fatal("Len not 0 after an error")
			}
		}
	})
}

// FuzzUvarint: whatever decodes re-encodes to the same bytes (one form per
// value), and the zig-zag form round-trips.
func FuzzUvarint(f *testing.F) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 35, math.MaxUint64} {
		f.Add(AppendUvarint(nil, v))
	}
	f.Add([]byte{0x80, 0x00})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		v := r.Uvarint()
		if r.Err() != nil {
			return
		}
		if enc := AppendUvarint(nil, v); !bytes.Equal(enc, data[:r.Offset()]) || UvarintLen(v) != len(enc) {
			t.Fatalf("% x decodes to %d, which encodes as % x", data[:r.Offset()], v, enc)
		}
		if UnZigZag(ZigZag(int64(v))) != int64(v) {
			t.Fatalf("zig-zag of %d does not round-trip", int64(v))
		}
	})
}

// FuzzBitReader reads fields of widths taken from the input and checks that
// writing them back gives the same bytes when the input was well formed.
func FuzzBitReader(f *testing.F) {
	seedGolden(f)
	f.Add([]byte{3, 1, 10, 0xfd, 0x3f})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		n := int(data[0]%8) + 1
		if len(data) < 1+n {
			return
		}
		widths, in := data[1:1+n], data[1+n:]
		r := NewBitReader(in)
		w := NewBitWriter(nil)
		for _, wd := range widths {
			width := uint(wd % 65)
			v := r.ReadBits(width)
			if width < 64 && v>>width != 0 {
				t.Fatalf("ReadBits(%d) = %#x, more than %d bits", width, v, width)
			}
			w.WriteBits(v, width)
		}
		if r.Finish() == nil {
			if out := w.Finish(); !bytes.Equal(out, in) {
				t.Fatalf("read % x, wrote back % x", in, out)
			}
		}
	})
}

// FuzzHeader decodes a datagram header with its ack frame: no panic, and
// whatever decodes re-encodes to the same bytes.
func FuzzHeader(f *testing.F) {
	seedGolden(f)
	f.Add([]byte{0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		var h Header
		if err := h.Decode(&r); err != nil {
			return
		}
		enc, err := h.Append(nil)
		if err != nil {
			t.Fatalf("decoded header %+v does not encode: %v", h, err)
		}
		if !bytes.Equal(enc, data[:r.Offset()]) || h.Size() != len(enc) {
			t.Fatalf("% x decodes to %+v, which encodes as % x", data[:r.Offset()], h, enc)
		}
		if h.HasAck && h.Ack.Span() > AckWindow {
			t.Fatalf("ack frame spans %d packets", h.Ack.Span())
		}
	})
}

// FuzzMessage reads datagram messages until the input ends: no panic,
// payloads within the limit and the input, and the framing re-encodes.
func FuzzMessage(f *testing.F) {
	seedGolden(f)
	f.Add(AppendMessage(AppendMessage(nil, KindState, []byte("hi")), KindInput, make([]byte, 300)))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		var out []byte
		for r.Len() > 0 {
			k, p := ReadMessage(&r, 256)
			if r.Err() != nil {
				return
			}
			if !k.IsDatagram() || len(p) > 256 {
				t.Fatalf("ReadMessage gave kind %v and %d bytes", k, len(p))
			}
			out = AppendMessage(out, k, p)
		}
		if !bytes.Equal(out, data) {
			t.Fatalf("% x re-encodes as % x", data, out)
		}
	})
}

// FuzzHello, FuzzWelcome, FuzzWelcomeAck and FuzzReject decode handshake
// messages: no panic, and whatever decodes re-encodes to the same bytes.
func FuzzHello(f *testing.F) {
	seedGolden(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Hello
		if m.Decode(data) != nil || m.Version != Version {
			return // another version's Hello decodes to its version alone
		}
		if enc, err := m.Encode(nil); err != nil || !bytes.Equal(enc, data) {
			t.Fatalf("% x decodes to %+v, which encodes as % x (%v)", data, m, enc, err)
		}
	})
}

func FuzzWelcome(f *testing.F) {
	seedGolden(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Welcome
		if m.Decode(data) != nil {
			return
		}
		if enc := m.Encode(nil); !bytes.Equal(enc, data) || !isLineage(&m.Runs) {
			t.Fatalf("% x decodes to %+v, which encodes as % x", data, m, enc)
		}
	})
}

// isLineage reports whether l lists 1 to MaxLineage named runs whose fresh
// ids start at 1 or more and never go down.
func isLineage(l *Lineage) bool {
	if l.N == 0 || l.N > MaxLineage {
		return false
	}
	for i, run := range l.Slice() {
		if run.Run == 0 || run.Fresh == 0 || i > 0 && run.Fresh < l.Runs[i-1].Fresh {
			return false
		}
	}
	return true
}

func FuzzWelcomeAck(f *testing.F) {
	seedGolden(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m WelcomeAck
		if m.Decode(data) != nil {
			return
		}
		if enc := m.Encode(nil); !bytes.Equal(enc, data) || m.PeerID == 0 {
			t.Fatalf("% x decodes to %+v, which encodes as % x", data, m, enc)
		}
	})
}

// FuzzResume and FuzzResumed decode the resume messages: no panic, and
// whatever decodes re-encodes to the same bytes, with a peer id.
func FuzzResume(f *testing.F) {
	seedGolden(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Resume
		if m.Decode(data) != nil || m.Version != Version {
			return // another version's Resume decodes to its version alone
		}
		if enc := m.Encode(nil); !bytes.Equal(enc, data) || m.PeerID == 0 || m.Flags&^(ResumeHoldsWorld|ResumeKeptTicket) != 0 || m.Flags == ResumeHoldsWorld|ResumeKeptTicket {
			t.Fatalf("% x decodes to %+v, which encodes as % x", data, m, enc)
		}
	})
}

func FuzzResumed(f *testing.F) {
	seedGolden(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Resumed
		if m.Decode(data) != nil {
			return
		}
		if enc := m.Encode(nil); !bytes.Equal(enc, data) || m.PeerID == 0 || m.TickRate == 0 || m.SendRate == 0 || !isLineage(&m.Runs) {
			t.Fatalf("% x decodes to %+v, which encodes as % x", data, m, enc)
		}
	})
}

// FuzzCheckName: CheckName never panics, and a name it accepts is one a
// Hello carries and a log line prints as it is.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"alice", "", " bob", "a\nb", "é", "\u202egnp.exe", strings.Repeat("x", 33)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		if _, err := (Hello{Version: Version, Name: name}).Encode(nil); err != nil {
			t.Fatalf("CheckName accepts %q, which Hello refuses: %v", name, err)
		}
		if q := strconv.Quote(name); q != `"`+strings.ReplaceAll(strings.ReplaceAll(name, `\`, `\\`), `"`, `\"`)+`"` {
			t.Fatalf("CheckName accepts %q, which needs escaping to print", name)
		}
	})
}

func FuzzReject(f *testing.F) {
	seedGolden(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Reject
		if m.Decode(data) != nil {
			return
		}
		if enc, err := m.Encode(nil); err != nil || !bytes.Equal(enc, data) {
			t.Fatalf("% x decodes to %+v, which encodes as % x (%v)", data, m, enc, err)
		}
	})
}

// FuzzQuantizer checks the quantizers on any range and value: encodings
// within Bits, decodings within the range, and in-range values within half
// a step.
func FuzzQuantizer(f *testing.F) {
	f.Add(-1024.0, 1024.0, 1.0/512, 1.5, uint8(14))
	f.Add(0.0, 1.0, 0.3, 2.0, uint8(1))
	f.Fuzz(func(t *testing.T, lo, hi, step, v float64, bits uint8) {
		q := Quantizer{Min: lo, Max: hi, Step: step}
		s := q.Encode(v)
		if q.Validate() == nil {
			if q.Bits() < 64 && s>>q.Bits() != 0 {
				t.Fatalf("%+v: Encode(%v) = %d, beyond %d bits", q, v, s, q.Bits())
			}
			d := q.Decode(s)
			if d < lo || d > hi {
				t.Fatalf("%+v: Decode(%d) = %v outside the range", q, s, d)
			}
			if v >= lo && v <= hi && q.Steps() < 1<<40 && math.Abs(d-v) > step/2*(1+1e-9)+(math.Abs(v)+math.Abs(lo)+math.Abs(hi))*1e-12 {
				t.Fatalf("%+v: %v → %v, more than half a step", q, v, d)
			}
		}
		a := AngleQuantizer{Bits: uint(bits)}
		if as := a.Encode(v); a.bits() < 64 && as>>a.bits() != 0 {
			t.Fatalf("angle %v encodes beyond %d bits", v, a.bits())
		}
		if d := a.Decode(a.Encode(v)); d < -math.Pi || d >= math.Pi {
			t.Fatalf("angle decodes to %v", d)
		}
	})
}

// FuzzCommand and FuzzReceipt decode command-lane messages: no panic, and
// whatever decodes re-encodes to the same bytes.
func FuzzCommand(f *testing.F) {
	seedGolden(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Command
		if m.Decode(data) != nil {
			return
		}
		if enc, err := m.Encode(nil); err != nil || !bytes.Equal(enc, data) || m.Op == 0 || len(m.Payload) > MaxCommandSize {
			t.Fatalf("% x decodes to %+v, which encodes as % x (%v)", data, m, enc, err)
		}
	})
}

func FuzzReceipt(f *testing.F) {
	seedGolden(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Receipt
		if m.Decode(data) != nil {
			return
		}
		if enc, err := m.Encode(nil); err != nil || !bytes.Equal(enc, data) {
			t.Fatalf("% x decodes to %+v, which encodes as % x (%v)", data, m, enc, err)
		}
	})
}

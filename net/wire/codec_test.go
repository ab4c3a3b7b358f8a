package wire

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestWriterReaderRoundTrip(t *testing.T) {
	var w Writer
	w.U8(0xab)
	w.Bool(true)
	w.Bool(false)
	w.U16(0xbeef)
	w.U32(0xdeadbeef)
	w.U64(0x0123456789abcdef)
	w.F32(-1.5)
	w.F64(math.Pi)
	uvs := []uint64{0, 1, 127, 128, 16383, 16384, 1<<32 - 1, 1 << 63, math.MaxUint64}
	for _, v := range uvs {
		w.Uvarint(v)
	}
	svs := []int64{0, -1, 1, -64, 63, -65, math.MinInt64, math.MaxInt64}
	for _, v := range svs {
		w.Varint(v)
	}
	w.LenBytes([]byte("abc"))
	w.String("héllo")
	w.Raw([]byte{9, 8})

	r := NewReader(w.Bytes())
	if r.U8() != 0xab || !r.Bool() || r.Bool() || r.U16() != 0xbeef || r.U32() != 0xdeadbeef || r.U64() != 0x0123456789abcdef {
		t.Fatal("fixed-width values differ after round trip")
	}
	if r.F32() != -1.5 || r.F64() != math.Pi {
		t.Fatal("floats differ after round trip")
	}
	for _, v := range uvs {
		if got := r.Uvarint(); got != v {
			t.Fatalf("Uvarint = %d, want %d", got, v)
		}
	}
	for _, v := range svs {
		if got := r.Varint(); got != v {
			t.Fatalf("Varint = %d, want %d", got, v)
		}
	}
	if string(r.LenBytes(3)) != "abc" || r.String(16) != "héllo" || string(r.Raw(2)) != "\x09\x08" {
		t.Fatal("bytes differ after round trip")
	}
	if err := r.Finish(); err != nil {
		t.Fatalf("Finish = %v", err)
	}
}

func TestUvarintLen(t *testing.T) {
	for _, v := range []uint64{0, 127, 128, 1<<14 - 1, 1 << 14, 1<<63 + 5, math.MaxUint64} {
		if got, want := UvarintLen(v), len(AppendUvarint(nil, v)); got != want {
			t.Errorf("UvarintLen(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		read func(r *Reader)
		want error
	}{
		{"u32 truncated", []byte{1, 2, 3}, func(r *Reader) { r.U32() }, ErrTruncated},
		{"u64 truncated", []byte{1}, func(r *Reader) { r.U64() }, ErrTruncated},
		{"varint truncated", []byte{0x80, 0x80}, func(r *Reader) { r.Uvarint() }, ErrTruncated},
		{"varint 11 bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, func(r *Reader) { r.Uvarint() }, ErrOverflow},
		{"varint 10th byte > 1", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, func(r *Reader) { r.Uvarint() }, ErrOverflow},
		{"varint overlong", []byte{0x81, 0x00}, func(r *Reader) { r.Uvarint() }, ErrNonCanonical},
		{"uvarint32 overflow", AppendUvarint(nil, 1<<32), func(r *Reader) { r.Uvarint32() }, ErrOverflow},
		{"count over limit", AppendUvarint(nil, 11), func(r *Reader) { r.Count(10) }, ErrTooLarge},
		{"bytes over limit", append(AppendUvarint(nil, 5), 1, 2, 3, 4, 5), func(r *Reader) { r.LenBytes(4) }, ErrTooLarge},
		{"bytes truncated", append(AppendUvarint(nil, 5), 1, 2), func(r *Reader) { r.LenBytes(10) }, ErrTruncated},
		{"huge length", AppendUvarint(nil, math.MaxUint64), func(r *Reader) { r.LenBytes(1 << 20) }, ErrTooLarge},
		{"string not utf-8", []byte{2, 0xff, 0xfe}, func(r *Reader) { r.String(10) }, ErrInvalid},
		{"bool 2", []byte{2}, func(r *Reader) { r.Bool() }, ErrInvalid},
		{"trailing", []byte{1, 2}, func(r *Reader) { r.U8(); r.Finish() }, ErrTrailing},
		{"raw negative", []byte{1}, func(r *Reader) { r.Raw(-1) }, ErrTruncated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(c.in)
			c.read(&r)
			if !errors.Is(r.Err(), c.want) {
				t.Fatalf("err = %v, want %v", r.Err(), c.want)
			}
			if r.Len() != 0 {
				t.Errorf("Len = %d after an error, want 0", r.Len())
			}
		})
	}
}

func TestReaderErrorIsSticky(t *testing.T) {
	r := NewReader([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	_ = r.U16()
	if v := r.U64(); v != 0 || !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("U64 past the end = %d, %v", v, r.Err())
	}
	if v := r.U8(); v != 0 {
		t.Fatalf("U8 after an error = %d, want 0 (the error is sticky)", v)
	}
	r.Fail(ErrInvalid)
	if !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("Fail replaced the first error: %v", r.Err())
	}
	r.Reset([]byte{7})
	if r.Err() != nil || r.U8() != 7 {
		t.Fatal("Reset did not clear the error")
	}
}

func TestWriterAppendsWithoutAllocating(t *testing.T) {
	buf := make([]byte, 0, 256)
	w := NewWriter(buf)
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset(buf[:0])
		w.U32(1)
		w.Uvarint(1 << 40)
		w.Varint(-5)
		w.F64(1.25)
		w.LenBytes(buf[:0])
	})
	if allocs != 0 {
		t.Fatalf("Writer allocated %v times a message with room in its buffer", allocs)
	}
	w.Reset(buf[:0])
	w.U8(1)
	w.U8(2)
	w.Truncate(1)
	if string(w.Bytes()) != "\x01" {
		t.Fatalf("Truncate left %x", w.Bytes())
	}
}

func TestReaderDoesNotAllocate(t *testing.T) {
	var w Writer
	w.U32(5)
	w.Uvarint(300)
	w.LenBytes([]byte("payload"))
	in := w.Bytes()
	allocs := testing.AllocsPerRun(100, func() {
		r := NewReader(in)
		r.U32()
		r.Uvarint()
		r.LenBytes(100)
		_ = r.Finish()
	})
	if allocs != 0 {
		t.Fatalf("Reader allocated %v times", allocs)
	}
}

func TestZigZag(t *testing.T) {
	want := map[int64]uint64{0: 0, -1: 1, 1: 2, -2: 3, 2: 4, math.MaxInt64: math.MaxUint64 - 1, math.MinInt64: math.MaxUint64}
	for v, u := range want {
		if ZigZag(v) != u || UnZigZag(u) != v {
			t.Errorf("ZigZag(%d) = %d (want %d), UnZigZag back = %d", v, ZigZag(v), u, UnZigZag(u))
		}
	}
}

func TestBitsRoundTrip(t *testing.T) {
	type field struct {
		v uint64
		n uint
	}
	fields := []field{{1, 1}, {0, 1}, {5, 3}, {0x3ff, 10}, {0xdeadbeef, 32}, {math.MaxUint64, 64}, {0x123456789abcdef, 57}, {0, 0}, {0xf, 4}, {1<<63 | 1, 64}}
	w := NewBitWriter(nil)
	total := 0
	for _, f := range fields {
		w.WriteBits(f.v, f.n)
		total += int(f.n)
	}
	w.WriteBool(true)
	total++
	if w.BitLen() != total {
		t.Fatalf("BitLen = %d, want %d", w.BitLen(), total)
	}
	out := w.Finish()
	if len(out) != (total+7)/8 {
		t.Fatalf("Finish gave %d bytes, want %d", len(out), (total+7)/8)
	}
	r := NewBitReader(out)
	for _, f := range fields {
		want := f.v
		if f.n < 64 {
			want &= 1<<f.n - 1
		}
		if got := r.ReadBits(f.n); got != want {
			t.Fatalf("ReadBits(%d) = %#x, want %#x", f.n, got, want)
		}
	}
	if !r.ReadBool() {
		t.Fatal("ReadBool = false")
	}
	if err := r.Finish(); err != nil {
		t.Fatalf("Finish = %v", err)
	}
}

func TestBitsIgnoreHighBitsAndLayout(t *testing.T) {
	w := NewBitWriter(nil)
	w.WriteBits(0xff, 3) // only 0b111 goes
	w.WriteBits(0, 2)
	w.WriteBits(1, 1)
	if got := w.Finish(); len(got) != 1 || got[0] != 0b100111 {
		t.Fatalf("bits = %08b, want 00100111 (least significant first)", got)
	}
}

func TestBitReaderErrors(t *testing.T) {
	r := NewBitReader([]byte{0xff})
	r.ReadBits(4)
	if r.ReadBits(5) != 0 || !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("read past the end: %v", r.Err())
	}
	r.Reset([]byte{0x01, 0x00})
	r.ReadBits(1)
	if err := r.Finish(); !errors.Is(err, ErrTrailing) {
		t.Fatalf("Finish with a whole byte left = %v, want ErrTrailing", err)
	}
	r.Reset([]byte{0x81})
	r.ReadBits(1)
	if err := r.Finish(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Finish with non-zero padding = %v, want ErrInvalid", err)
	}
}

func TestQuantizer(t *testing.T) {
	q := Quantizer{Min: -1024, Max: 1024, Step: 1.0 / 512}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	if q.Bits() != 21 || q.Steps() != 1<<20 {
		t.Fatalf("Bits = %d, Steps = %d; want 21, %d", q.Bits(), q.Steps(), 1<<20)
	}
	for _, v := range []float64{-1024, -3.14159, 0, 0.001, 1.0 / 1024, 512.7, 1023.999, 1024} {
		got := q.Decode(q.Encode(v))
		if math.Abs(got-v) > q.Step/2+1e-12 {
			t.Errorf("Decode(Encode(%v)) = %v, off by more than Step/2", v, got)
		}
	}
	if q.Encode(-5000) != 0 || q.Encode(5000) != q.Steps() || q.Encode(math.NaN()) != 0 {
		t.Error("Encode does not clamp out-of-range values (or NaN) to the range")
	}
	if q.Decode(math.MaxUint64) != 1024 {
		t.Error("Decode does not clamp a step past Steps")
	}
	if (Quantizer{Min: 0, Max: 1, Step: 1}).Bits() != 1 || (Quantizer{Min: 0, Max: 0.5, Step: 1}).Bits() != 1 || (Quantizer{Min: 0, Max: 3, Step: 1}).Bits() != 2 {
		t.Error("Bits wrong for tiny ranges")
	}
	// A range that is not a whole number of steps: Max is the last step.
	odd := Quantizer{Min: 0, Max: 1, Step: 0.3}
	if odd.Steps() != 4 || odd.Encode(1) != 4 || odd.Decode(4) != 1 {
		t.Errorf("range of 1 in steps of 0.3: Steps %d, Encode(1) %d, Decode(4) %v", odd.Steps(), odd.Encode(1), odd.Decode(4))
	}
	for _, v := range []float64{0.8, 0.95, 0.99} {
		if d := odd.Decode(odd.Encode(v)); math.Abs(d-v) > 0.15+1e-12 {
			t.Errorf("%v → %v, more than half a step", v, d)
		}
	}
	bad := []Quantizer{{Min: 1, Max: 1, Step: 1}, {Min: 0, Max: 1, Step: 0}, {Min: 0, Max: 1, Step: -1}, {Min: math.NaN(), Max: 1, Step: 1}, {Min: 0, Max: 1e300, Step: 1e-300}}
	for _, b := range bad {
		if b.Validate() == nil || b.Bits() != 0 || b.Encode(0.5) != 0 {
			t.Errorf("%+v accepted", b)
		}
	}
}

func TestAngleQuantizer(t *testing.T) {
	a := AngleQuantizer{Bits: 14}
	step := 2 * math.Pi / (1 << 14)
	for _, v := range []float64{0, 1, -1, math.Pi - 1e-9, -math.Pi, 3 * math.Pi / 2, -7.5, 100} {
		s := a.Encode(v)
		if s >= 1<<14 {
			t.Fatalf("Encode(%v) = %d, beyond 14 bits", v, s)
		}
		got := a.Decode(s)
		diff := math.Abs(WrapAngle(got - WrapAngle(v)))
		if diff > step/2+1e-9 {
			t.Errorf("angle %v → %v, off by %v > step/2", v, got, diff)
		}
		if got < -math.Pi || got >= math.Pi {
			t.Errorf("Decode gave %v outside [-π, π)", got)
		}
	}
	if a.Encode(math.NaN()) != 0 || a.Encode(math.Inf(1)) != 0 {
		t.Error("NaN or Inf did not encode as 0")
	}
}

func TestWrapAngle(t *testing.T) {
	cases := map[float64]float64{0: 0, math.Pi: -math.Pi, -math.Pi: -math.Pi, 3 * math.Pi: -math.Pi, 2 * math.Pi: 0, -2.5 * math.Pi: -0.5 * math.Pi}
	for in, want := range cases {
		if got := WrapAngle(in); math.Abs(got-want) > 1e-9 {
			t.Errorf("WrapAngle(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestKinds(t *testing.T) {
	for _, k := range []Kind{KindState, KindAuthState, KindInput, KindSpawn, KindDespawn, KindBacklog, KindGameDatagram, 0x7f} {
		if !k.IsDatagram() || k.IsLane() {
			t.Errorf("%v should be a datagram kind", k)
		}
	}
	for _, k := range []Kind{KindHello, KindWelcome, KindReject, KindJoinPage, KindJoinFinal, KindCommand, KindReceipt, KindResume, KindGameLane, 0xff} {
		if !k.IsLane() || k.IsDatagram() {
			t.Errorf("%v should be a lane kind", k)
		}
	}
	if Kind(0).IsDatagram() || Kind(0).IsLane() {
		t.Error("kind 0 must be neither")
	}
	if KindHello.String() != "hello" || KindBacklog.String() != "backlog" || Kind(0x41).String() != "game-datagram(65)" || Kind(0xc1).String() != "game-lane(193)" || Kind(0x30).String() != "kind(48)" {
		t.Error("String names wrong")
	}
	if _, err := MessageKind(nil); !errors.Is(err, ErrTruncated) {
		t.Error("MessageKind(nil) should be ErrTruncated")
	}
	if _, err := MessageKind([]byte{byte(KindState)}); !errors.Is(err, ErrInvalid) {
		t.Error("a datagram kind opening a lane message should be ErrInvalid")
	}
	if k, err := MessageKind([]byte{byte(KindWelcome), 1}); k != KindWelcome || err != nil {
		t.Error("MessageKind of a Welcome")
	}
}

// TestUvarintFormsAgree: the short forms Uvarint decodes without its loop
// give what the general decoder gives, value, length and error alike, for
// every one- to three-byte input (canonical or not, whole or cut short) at
// the end of a buffer and before more bytes.
func TestUvarintFormsAgree(t *testing.T) {
	var in []byte
	check := func(data []byte) {
		t.Helper()
		fast := NewReader(data)
		v := fast.Uvarint()
		slow := NewReader(data)
		want := slow.uvarintSlow()
		if v != want || fast.Err() != slow.Err() || fast.Offset() != slow.Offset() {
			t.Fatalf("% x: Uvarint %d %v at %d, the general decoder %d %v at %d",
				data, v, fast.Err(), fast.Offset(), want, slow.Err(), slow.Offset())
		}
	}
	for b0 := range 256 {
		for b1 := range 256 {
			for _, b2 := range []int{0x00, 0x01, 0x7f, 0x80, 0xff} {
				in = append(in[:0], byte(b0), byte(b1), byte(b2))
				check(in[:1])
				check(in[:2])
				check(in)
				check(append(in, 0x80, 0x01, 0x05))
			}
		}
	}
}

// AppendString and AppendVarint write what the Writer writes, and the Reader
// reads it back.
func TestAppendStringAndVarint(t *testing.T) {
	var w Writer
	var dst []byte
	for _, v := range []int64{0, -1, 1, -64, 64, math.MinInt64, math.MaxInt64} {
		w.Varint(v)
		dst = AppendVarint(dst, v)
	}
	for _, s := range []string{"", "farm", "çà et là", strings.Repeat("x", 300)} {
		w.String(s)
		dst = AppendString(dst, s)
	}
	if !bytes.Equal(dst, w.Bytes()) {
		t.Fatalf("Append… wrote %x, the Writer %x", dst, w.Bytes())
	}
	r := NewReader(dst)
	for _, v := range []int64{0, -1, 1, -64, 64, math.MinInt64, math.MaxInt64} {
		if got := r.Varint(); got != v {
			t.Fatalf("Varint read %d, want %d", got, v)
		}
	}
	for _, s := range []string{"", "farm", "çà et là", strings.Repeat("x", 300)} {
		if got := r.String(1000); got != s {
			t.Fatalf("String read %q, want %q", got, s)
		}
	}
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
}

package replicate

import (
	"testing"

	"github.com/tandem-go/tandem/net/wire"
)

// readerImage decodes what pageImage decodes, through wire.Reader and
// readImage (the decoder of the other messages): the reference.
func readerImage(b []byte, n int) ([]int32, int, bool) {
	r := wire.NewReader(b)
	q := make([]int32, n)
	readImage(&r, q)
	return q, r.Offset(), r.Err() == nil
}

// checkPageDecoders fails when pageUvarint, pageHead (three varints) or
// pageImage (one to four zig-zag values of 32 bits) decodes b other than
// wire.Reader does: another value, another length, or one accepting what the
// other refuses.
func checkPageDecoders(t *testing.T, b []byte) {
	t.Helper()
	r := wire.NewReader(b)
	want := r.Uvarint()
	v, next := pageUvarint(b, 0)
	if ok := r.Err() == nil; ok != (next >= 0) || ok && (v != want || next != r.Offset()) {
		t.Fatalf("pageUvarint(% x) = %d, %d; the reader gives %d, %v at %d", b, v, next, want, r.Err(), r.Offset())
	}
	r = wire.NewReader(b)
	wid, wflags, wowner := r.Uvarint(), r.Uvarint(), r.Uvarint()
	id, flags, owner, next := pageHead(b, 0)
	if ok := r.Err() == nil; ok != (next >= 0) || ok && (id != wid || flags != wflags || owner != wowner || next != r.Offset()) {
		t.Fatalf("pageHead(% x) = %d %d %d, %d; the reader gives %d %d %d, %v at %d", b, id, flags, owner, next, wid, wflags, wowner, r.Err(), r.Offset())
	}
	for n := 1; n <= 4; n++ {
		wantQ, wantNext, ok := readerImage(b, n)
		q := make([]int32, n)
		next := pageImage(b, 0, q)
		if ok != (next >= 0) {
			t.Fatalf("pageImage(% x) of %d values: next %d; the reader's ok %v", b, n, next, ok)
		}
		if !ok {
			continue
		}
		if next != wantNext {
			t.Fatalf("pageImage(% x) of %d values ends at %d, the reader at %d", b, n, next, wantNext)
		}
		for k := range q {
			if q[k] != wantQ[k] {
				t.Fatalf("pageImage(% x) value %d = %d, the reader's %d", b, k, q[k], wantQ[k])
			}
		}
	}
}

// TestPageDecodersMatchTheReader: the join page's own decoders accept and
// refuse what wire.Reader does, at the edges of each varint length, of 32
// and 64 bits, and for forms that are not the shortest.
func TestPageDecodersMatchTheReader(t *testing.T) {
	cases := [][]byte{
		{}, {0x00}, {0x7f}, {0x80}, {0x80, 0x00}, {0x80, 0x01}, {0xff, 0x7f},
		{0xff, 0xff, 0x03}, {0x80, 0x80, 0x00}, {0xff, 0xff, 0xff, 0xff, 0x0f},
		{0xfe, 0xff, 0xff, 0xff, 0x0f}, {0xff, 0xff, 0xff, 0xff, 0x10},
		{0x80, 0x80, 0x80, 0x80, 0x00}, {0xff, 0xff, 0xff, 0xff, 0x8f, 0x00},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
	}
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1<<64 - 1} {
		cases = append(cases, wire.AppendUvarint(nil, v))
		cases = append(cases, wire.AppendUvarint(wire.AppendUvarint(nil, v), v>>3))
	}
	// Values of every length after one another, and far from the end of
	// the input and near it (the decoders read without a loop only away
	// from the end).
	var run []byte
	for _, v := range []uint64{1 << 28, 5, 1<<32 - 1, 300, 1 << 14, 0, 1<<21 + 3} {
		run = wire.AppendUvarint(run, v)
	}
	cases = append(cases, run, append(append([]byte(nil), run...), make([]byte, 8)...))
	for _, b := range cases {
		checkPageDecoders(t, b)
		// Cut short anywhere: truncated alike.
		for k := range b {
			checkPageDecoders(t, b[:k])
		}
	}
	q := make([]int32, 2)
	if _, _, _, next := pageHead([]byte{0x01, 0x02, 0x03}, -1); next >= 0 {
		t.Fatalf("pageHead from a failed offset went on to %d", next)
	}
	if next := pageImage([]byte{0x01, 0x02}, -1, q); next != -1 {
		t.Fatalf("pageImage from a failed offset went on to %d", next)
	}
	if _, next := pageUvarint([]byte{0x01}, -1); next != -1 {
		t.Fatalf("pageUvarint from a failed offset went on to %d", next)
	}
}

// FuzzPageDecoders checks the join page's decoders against wire.Reader on
// any bytes: same values, same lengths, same refusals, never a panic.
func FuzzPageDecoders(f *testing.F) {
	f.Add([]byte{0x80, 0x80, 0xfa, 0x01, 0xff, 0x0f, 0x00})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x01})
	f.Add([]byte{0x80, 0x00})
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x10, 0x05, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05})
	f.Fuzz(func(t *testing.T, b []byte) {
		checkPageDecoders(t, b)
	})
}

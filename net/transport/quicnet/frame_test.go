package quicnet

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"testing"

	"github.com/tandem-go/tandem/net/transport"
)

// TestLaneFramingGolden ties the framing comment (and PROTOCOL.md) to the
// bytes, both ways.
func TestLaneFramingGolden(t *testing.T) {
	big := bytes.Repeat([]byte{0xee}, 300)
	cases := []struct {
		msg  []byte
		want string // hex of the framed message
	}{
		{nil, "00"},
		{[]byte("hi"), "026869"},
		{bytes.Repeat([]byte{1}, 127), "7f" + hex.EncodeToString(bytes.Repeat([]byte{1}, 127))},
		{bytes.Repeat([]byte{1}, 128), "8001" + hex.EncodeToString(bytes.Repeat([]byte{1}, 128))},
		{big, "ac02" + hex.EncodeToString(big)},
	}
	for _, tc := range cases {
		got := hex.EncodeToString(appendMessage(nil, tc.msg))
		if got != tc.want {
			t.Errorf("frame of %d bytes = %.16s..., want %.16s...", len(tc.msg), got, tc.want)
		}
		if framedSize(len(tc.msg)) != len(tc.want)/2 {
			t.Errorf("framedSize(%d) = %d, want %d", len(tc.msg), framedSize(len(tc.msg)), len(tc.want)/2)
		}
		raw, _ := hex.DecodeString(tc.want)
		lr := newLaneReader(bytes.NewReader(raw), 1<<20)
		n, err := lr.readLength()
		if err != nil || n != len(tc.msg) {
			t.Fatalf("readLength = %d, %v; want %d", n, err, len(tc.msg))
		}
		msg := make([]byte, n)
		if err := lr.readPayload(msg); err != nil || !bytes.Equal(msg, tc.msg) {
			t.Fatalf("payload mismatch: %v", err)
		}
	}
	// The documented example: lane 1, "hi", then 300 bytes.
	stream := append([]byte{0x01}, appendMessage(appendMessage(nil, []byte("hi")), big)...)
	if !bytes.HasPrefix(stream, []byte{0x01, 0x02, 0x68, 0x69, 0xac, 0x02}) {
		t.Fatalf("example stream starts % x", stream[:6])
	}
	msgs, err := decodeLaneStream(stream, 1<<20)
	if err != io.EOF || len(msgs.messages) != 2 || msgs.lane != transport.LaneCommands {
		t.Fatalf("decoded %+v, %v", msgs, err)
	}
}

// decoded is one lane stream's decoded content.
type decoded struct {
	lane     transport.Lane
	messages [][]byte
	consumed []byte // the bytes that decoded cleanly
}

// decodeLaneStream decodes a whole stream as a Conn's lane reader does and
// returns what it got and why it stopped (io.EOF when the input ended at a
// message boundary).
func decodeLaneStream(data []byte, max int) (decoded, error) {
	var d decoded
	lr := newLaneReader(bytes.NewReader(data), max)
	ln, err := lr.readLane()
	if err != nil {
		return d, err
	}
	d.lane = ln
	d.consumed = []byte{byte(ln)}
	for {
		n, err := lr.readLength()
		if err != nil {
			return d, err
		}
		if n > max {
			panic("readLength returned a length above its limit")
		}
		msg := make([]byte, n)
		if err := lr.readPayload(msg); err != nil {
			return d, err
		}
		d.messages = append(d.messages, msg)
		d.consumed = appendMessage(d.consumed, msg)
	}
}

func TestLaneReaderErrors(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, transport.ErrMalformed},
		{"bad lane", []byte{3}, transport.ErrBadLane},
		{"too large", []byte{0, 0x81, 0x08}, transport.ErrMessageTooLarge}, // 1025 > 1024
		{"overlong", append([]byte{0}, bytes.Repeat([]byte{0x80}, 11)...), transport.ErrMalformed},
		{"not shortest", []byte{0, 0x80, 0x00}, transport.ErrMalformed},
		{"cut in length", []byte{0, 0x80}, io.ErrUnexpectedEOF},
		{"cut in payload", []byte{0, 5, 1, 2}, io.ErrUnexpectedEOF},
		{"clean end", []byte{0, 1, 9}, io.EOF},
	}
	for _, tc := range cases {
		_, err := decodeLaneStream(tc.in, 1024)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// FuzzLaneStream feeds the lane stream decoder arbitrary bytes: it must never
// panic, never return a message above the limit, fail only with the
// documented errors, and what it decodes must re-encode to the same bytes.
func FuzzLaneStream(f *testing.F) {
	seed := func(ln byte, msgs ...[]byte) []byte {
		b := []byte{ln}
		for _, m := range msgs {
			b = appendMessage(b, m)
		}
		return b
	}
	f.Add(seed(0))
	f.Add(seed(1, []byte("hi"), bytes.Repeat([]byte{0xee}, 300)))
	f.Add(seed(2, nil, []byte{0}, bytes.Repeat([]byte{7}, 128)))
	f.Add(seed(0, bytes.Repeat([]byte{1}, 1000))[:500])
	f.Add([]byte{1, 0x81, 0x80, 0x40})
	f.Add([]byte{9, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 4096
		d, err := decodeLaneStream(data, max)
		switch {
		case err == io.EOF:
			if !bytes.Equal(d.consumed, data) {
				t.Fatalf("clean decode of % x re-encodes to % x", data, d.consumed)
			}
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, transport.ErrMalformed),
			errors.Is(err, transport.ErrBadLane), errors.Is(err, transport.ErrMessageTooLarge):
			if !bytes.HasPrefix(data, d.consumed) {
				t.Fatalf("decoded messages re-encode to % x, not a prefix of % x", d.consumed, data)
			}
		default:
			t.Fatalf("untyped error %v", err)
		}
		for _, m := range d.messages {
			if len(m) > max {
				t.Fatalf("message of %d bytes above the limit", len(m))
			}
		}
	})
}

// TestChunkQueueKeepsBytesInOrder: what SendMessage queues in chunks comes
// out in order and whole, across chunk boundaries, reusing chunks.
func TestChunkQueueKeepsBytesInOrder(t *testing.T) {
	var q chunkQueue
	var want, got []byte
	for i := range 200 {
		piece := bytes.Repeat([]byte{byte(i)}, (i*7919)%(3*chunkSize/2))
		want = append(want, piece...)
		q.write(piece)
		if i%3 == 0 { // the writer takes what is there now and then
			for !q.empty() {
				c := q.take()
				if len(c) > chunkSize {
					t.Fatalf("chunk of %d bytes", len(c))
				}
				got = append(got, c...)
				q.recycle(c)
			}
		}
	}
	for !q.empty() {
		got = append(got, q.take()...)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%d bytes out, %d in, or out of order", len(got), len(want))
	}
	if len(q.free) == 0 || len(q.free) > keepChunks {
		t.Fatalf("%d spare chunks", len(q.free))
	}
}

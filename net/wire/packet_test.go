package wire

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestHeaderRoundTrip(t *testing.T) {
	cases := []Header{
		goldenHeader(true, false),
		goldenHeader(false, true),
		goldenHeader(true, true),
		{Numbered: true, Packet: 0, Floor: 0, ReorderFloor: 0},
		{Numbered: true, Packet: math.MaxUint32, Floor: math.MaxUint32 - AckWindow + 1, ReorderFloor: math.MaxUint32},
		{HasAck: true, Ack: AckFrame{First: 5, DiscardFloor: 5 + AckWindow, NumRuns: 1, Runs: [MaxAckRuns]uint16{AckWindow}}},
	}
	full := Header{Numbered: true, Packet: 77, Floor: 70, ReorderFloor: 75, HasAck: true,
		Ack: AckFrame{First: 1 << 30, HasDelay: true, Delay: math.MaxUint32, DiscardFloor: 1<<30 + 1000, NumRuns: MaxAckRuns}}
	for i := range MaxAckRuns {
		full.Ack.Runs[i] = uint16(1 + i%3)
	}
	full.Ack.Runs[0] = 0
	cases = append(cases, full)
	for _, h := range cases {
		b, err := h.Append(nil)
		if err != nil {
			t.Fatalf("Append(%+v): %v", h, err)
		}
		if len(b) != h.Size() {
			t.Fatalf("Size = %d, Append wrote %d", h.Size(), len(b))
		}
		r := NewReader(b)
		var got Header
		if err := got.Decode(&r); err != nil || r.Finish() != nil {
			t.Fatalf("Decode(% x): %v %v", b, err, r.Err())
		}
		if got != h {
			t.Fatalf("round trip\n got %+v\nwant %+v", got, h)
		}
	}
	if len(mustAppend(t, full)) > MaxHeaderSize+MaxAckFrameSize {
		t.Fatalf("a header with the largest ack frame is %d bytes, over MaxHeaderSize+MaxAckFrameSize", len(mustAppend(t, full)))
	}
}

func mustAppend(t *testing.T, h Header) []byte {
	b, err := h.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHeaderAppendRefusesInvalid(t *testing.T) {
	bad := []Header{
		{},
		{Numbered: true, Packet: 5, Floor: 6},
		{Numbered: true, Packet: 2000, Floor: 2000 - AckWindow},
		{Numbered: true, Packet: 5, ReorderFloor: 6},
		{HasAck: true, Ack: AckFrame{NumRuns: 2, Runs: [MaxAckRuns]uint16{1, 1}}},
		{HasAck: true, Ack: AckFrame{NumRuns: 1}},
		{HasAck: true, Ack: AckFrame{NumRuns: 3, Runs: [MaxAckRuns]uint16{1, 0, 1}}},
		{HasAck: true, Ack: AckFrame{NumRuns: 3, Runs: [MaxAckRuns]uint16{1000, 20, 5}}},
		{HasAck: true, Ack: AckFrame{First: math.MaxUint32, NumRuns: 1, Runs: [MaxAckRuns]uint16{2}}},
		{HasAck: true, Ack: AckFrame{NumRuns: MaxAckRuns + 2}},
		{HasAck: true, Ack: AckFrame{First: 10, DiscardFloor: 9, NumRuns: 1, Runs: [MaxAckRuns]uint16{1}}},
		{HasAck: true, Ack: AckFrame{First: 10, DiscardFloor: 11 + AckWindow, NumRuns: 1, Runs: [MaxAckRuns]uint16{1}}},
	}
	for _, h := range bad {
		if b, err := h.Append([]byte{9}); !errors.Is(err, ErrInvalid) || len(b) != 1 {
			t.Errorf("Append(%+v) = % x, %v; want ErrInvalid and nothing appended", h, b, err)
		}
	}
}

func TestHeaderDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"no flags", []byte{0}, ErrInvalid},
		{"reserved flag", []byte{0x09, 0, 0, 0, 0, 0, 0}, ErrInvalid},
		{"delay without ack", []byte{0x05, 0, 0, 0, 0, 0, 0}, ErrInvalid},
		{"floor above packet", []byte{0x01, 1, 0, 0, 0, 2, 0}, ErrInvalid},
		{"reorder above packet", []byte{0x01, 1, 0, 0, 0, 0, 2}, ErrInvalid},
		{"floor delta over window", []byte{0x01, 0, 0, 1, 0, 0x80, 0x08, 0}, ErrTooLarge},
		{"zero runs", []byte{0x02, 0, 0, 0, 0, 0, 0}, ErrInvalid},
		{"even runs", []byte{0x02, 0, 0, 0, 0, 0, 2, 1, 1}, ErrInvalid},
		{"too many runs", []byte{0x02, 0, 0, 0, 0, 0, 33}, ErrTooLarge},
		{"zero middle run", []byte{0x02, 0, 0, 0, 0, 0, 3, 1, 0, 1}, ErrInvalid},
		{"zero last run", []byte{0x02, 0, 0, 0, 0, 0, 1, 0}, ErrInvalid},
		{"span over window", []byte{0x02, 0, 0, 0, 0, 0, 3, 0x80, 0x04, 0x80, 0x04, 1}, ErrInvalid},
		{"span past 2^32", []byte{0x02, 0xff, 0xff, 0xff, 0xff, 0, 1, 2}, ErrInvalid},
		{"discard over window", []byte{0x02, 0, 0, 0, 0, 0x81, 0x08, 1, 1}, ErrTooLarge},
		{"discard past 2^32", []byte{0x02, 0xff, 0xff, 0xff, 0xff, 2, 1, 1}, ErrInvalid},
		{"run truncated", []byte{0x02, 0, 0, 0, 0, 0, 3, 1, 1}, ErrTruncated},
		{"delay overflow", []byte{0x06, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 1, 1}, ErrOverflow},
	}
	for _, c := range cases {
		r := NewReader(c.in)
		var h Header
		if err := h.Decode(&r); !errors.Is(err, c.want) {
			t.Errorf("%s: Decode(% x) = %v, want %v", c.name, c.in, err, c.want)
		}
	}
}

func TestAckDelayUnits(t *testing.T) {
	if AckDelayUnits(-time.Second) != 0 || AckDelayUnits(12_550*time.Microsecond) != 125 || AckDelayUnits(1000*time.Hour) != math.MaxUint32 {
		t.Fatal("AckDelayUnits conversions wrong")
	}
	a := AckFrame{Delay: 125}
	if a.DelayDuration() != 12500*time.Microsecond {
		t.Fatal(a.DelayDuration())
	}
}

func TestMessages(t *testing.T) {
	b := AppendMessage(nil, KindState, []byte("abc"))
	b = AppendMessage(b, KindGameDatagram, make([]byte, 200))
	if MessageOverhead(3) != 2 || MessageOverhead(200) != 3 {
		t.Fatal("MessageOverhead wrong")
	}
	r := NewReader(b)
	k, p := ReadMessage(&r, 1000)
	if k != KindState || string(p) != "abc" {
		t.Fatal(k, p)
	}
	if k, p = ReadMessage(&r, 1000); k != KindGameDatagram || len(p) != 200 || r.Finish() != nil {
		t.Fatal(k, len(p), r.Err())
	}
	r = NewReader(b)
	ReadMessage(&r, 1000)
	if ReadMessage(&r, 100); !errors.Is(r.Err(), ErrTooLarge) {
		t.Fatalf("payload over the limit: %v", r.Err())
	}
	for _, bad := range [][]byte{{0x00, 0}, {byte(KindHello), 0}} {
		r = NewReader(bad)
		if ReadMessage(&r, 10); !errors.Is(r.Err(), ErrInvalid) {
			t.Fatalf("kind %#x in a datagram: %v", bad[0], r.Err())
		}
	}
}

func TestHandshakeErrors(t *testing.T) {
	if _, err := (Hello{Name: strings.Repeat("x", MaxNameLen+1)}).Encode(nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("long name: %v", err)
	}
	if _, err := (Hello{Name: "\xff"}).Encode(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("non-UTF-8 name: %v", err)
	}
	if _, err := (Reject{Reason: "x"}).Encode(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("reject code 0: %v", err)
	}
	if _, err := (Reject{Code: RejectFull, Reason: strings.Repeat("x", MaxReasonLen+1)}).Encode(nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("long reason: %v", err)
	}
	hello, _ := Hello{Version: Version, Name: "bob"}.Encode(nil)
	welcome := goldenWelcome().Encode(nil)
	var h Hello
	var w Welcome
	var rj Reject
	checks := []struct {
		name string
		err  error
		want error
	}{
		{"hello as welcome", w.Decode(hello), ErrWrongKind},
		{"welcome as hello", h.Decode(welcome), ErrWrongKind},
		{"welcome as reject", rj.Decode(welcome), ErrWrongKind},
		{"empty hello", h.Decode(nil), ErrTruncated},
		{"hello trailing", h.Decode(append(hello[:len(hello):len(hello)], 0)), ErrTrailing},
		{"hello truncated", h.Decode(hello[:len(hello)-1]), ErrTruncated},
		{"hello name too long", h.Decode(append([]byte{0x80, byte(Version), 0, MaxNameLen + 1}, strings.Repeat("x", MaxNameLen+1)...)), ErrTooLarge},
		{"hello name not UTF-8", h.Decode([]byte{0x80, byte(Version), 0, 1, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0}), ErrInvalid},
		{"hello unknown flag", h.Decode([]byte{0x80, byte(Version), 0, 1, 'x', 2, 0, 0, 0, 0, 0, 0, 0, 0}), ErrInvalid},
		{"welcome truncated", w.Decode(welcome[:20]), ErrTruncated},
		{"welcome peer 0", w.Decode(append([]byte{0x81, 0, 0, 0, 0}, welcome[5:]...)), ErrInvalid},
		{"reject code 0", rj.Decode([]byte{0x82, 0, 1, 0, 0}), ErrInvalid},
	}
	for _, c := range checks {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	if h.Name != "" || w.PeerID != 0 {
		t.Error("a failed Decode changed its value")
	}
	// A Hello of another version decodes to its version alone, whatever
	// follows, so the host can answer RejectVersion.
	var old Hello
	if err := old.Decode([]byte{0x80, 2, 0, 5, 'a', 'l', 'i', 'c', 'e'}); err != nil || old != (Hello{Version: 2}) {
		t.Errorf("a version 2 Hello decodes to %+v, %v; want its version alone", old, err)
	}
	// So does a Resume.
	var oldResume Resume
	if err := oldResume.Decode([]byte{0x87, 3, 0, 1, 7, 0, 0, 0}); err != nil || oldResume != (Resume{Version: 3}) {
		t.Errorf("a version 3 Resume decodes to %+v, %v; want its version alone", oldResume, err)
	}
	if RejectVersion.String() != "version mismatch" || RejectCode(99).String() != "reject code 99" {
		t.Error("RejectCode names")
	}
}

// TestCommandErrors: what Command and Receipt refuse to write and to read.
func TestCommandErrors(t *testing.T) {
	encodes := []struct {
		name string
		err  error
		want error
	}{
		{"command op 0", second(Command{Kind: 1}.Encode(nil)), ErrInvalid},
		{"command payload too large", second(Command{Op: 1, Payload: make([]byte, MaxCommandSize+1)}.Encode(nil)), ErrTooLarge},
		{"receipt op 0", second(Receipt{Status: ReceiptDone}.Encode(nil)), ErrInvalid},
		{"receipt status 0", second(Receipt{Op: 1}.Encode(nil)), ErrInvalid},
		{"receipt status 5", second(Receipt{Op: 1, Status: 5}.Encode(nil)), ErrInvalid},
		{"receipt done with a reason", second(Receipt{Op: 1, Status: ReceiptDone, Reason: "x"}.Encode(nil)), ErrInvalid},
		{"receipt conflict with a frame", second(Receipt{Op: 1, Status: ReceiptConflict, Frame: 3}.Encode(nil)), ErrInvalid},
		{"receipt reason not UTF-8", second(Receipt{Op: 1, Status: ReceiptRefused, Reason: "\xff"}.Encode(nil)), ErrInvalid},
		{"receipt reason too long", second(Receipt{Op: 1, Status: ReceiptRefused, Reason: strings.Repeat("x", MaxReasonLen+1)}.Encode(nil)), ErrTooLarge},
	}
	for _, c := range encodes {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	cmd, _ := goldenCommand().Encode(nil)
	var m Command
	var r Receipt
	decodes := []struct {
		name string
		err  error
		want error
	}{
		{"command as receipt", r.Decode(cmd), ErrWrongKind},
		{"command truncated", m.Decode(cmd[:len(cmd)-1]), ErrTruncated},
		{"command trailing", m.Decode(append(cmd[:len(cmd):len(cmd)], 0)), ErrTrailing},
		{"command op 0", m.Decode([]byte{0x85, 0, 0, 1, 0}), ErrInvalid},
		{"command frame past 32 bits", m.Decode([]byte{0x85, 1, 0x80, 0x80, 0x80, 0x80, 0x10, 1, 0}), ErrInvalid},
		{"command payload over the limit", m.Decode([]byte{0x85, 1, 0, 1, 0x81, 0x08}), ErrTooLarge},
		{"receipt status 9", r.Decode([]byte{0x86, 1, 9, 0, 0, 0, 0, 0}), ErrInvalid},
		{"receipt expired with a frame", r.Decode([]byte{0x86, 1, 4, 1, 0, 0, 0, 0}), ErrInvalid},
		{"receipt done with a reason", r.Decode([]byte{0x86, 1, 1, 1, 0, 0, 0, 1, 'x'}), ErrInvalid},
	}
	for _, c := range decodes {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	if m.Op != 0 || r.Op != 0 {
		t.Error("a failed Decode changed its value")
	}
	if ReceiptConflict.String() != "conflict" || ReceiptStatus(9).String() != "receipt-status(9)" {
		t.Error("ReceiptStatus names")
	}
}

func second[T any](_ T, err error) error { return err }

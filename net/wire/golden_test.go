package wire

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/tandem-go/tandem/net/wire/wiretest"
)

// goldenHeader is the header of PROTOCOL.md's examples in §3.
func goldenHeader(numbered, ack bool) Header {
	h := Header{Numbered: numbered, HasAck: ack}
	if numbered {
		h.Packet, h.Floor, h.ReorderFloor = 1000, 990, 998
	}
	if ack {
		h.Ack = AckFrame{First: 40, HasDelay: true, Delay: 125, DiscardFloor: 44, NumRuns: 3}
		h.Ack.Runs[0], h.Ack.Runs[1], h.Ack.Runs[2] = 3, 1, 2
	}
	return h
}

// golden lists every example of PROTOCOL.md: how to encode its values, and
// how to decode its bytes back to them (an error if they differ).
var golden = map[string]struct {
	encode func() []byte
	decode func(b []byte) (any, any) // got, want
}{
	"uvarint-300": {
		func() []byte { return AppendUvarint(nil, 300) },
		func(b []byte) (any, any) { r := NewReader(b); v := r.Uvarint(); return v, uint64(300) },
	},
	"varint-minus-65": {
		func() []byte { w := NewWriter(nil); w.Varint(-65); return w.Bytes() },
		func(b []byte) (any, any) { r := NewReader(b); v := r.Varint(); return v, int64(-65) },
	},
	"bits": {
		func() []byte {
			w := NewBitWriter(nil)
			w.WriteBits(5, 3)
			w.WriteBits(1, 1)
			w.WriteBits(0x3ff, 10)
			return w.Finish()
		},
		func(b []byte) (any, any) {
			r := NewBitReader(b)
			got := [3]uint64{r.ReadBits(3), r.ReadBits(1), r.ReadBits(10)}
			if r.Finish() != nil {
				return r.Err(), nil
			}
			return got, [3]uint64{5, 1, 0x3ff}
		},
	},
	"quantized": {
		func() []byte {
			w := NewBitWriter(nil)
			q := Quantizer{Min: -1024, Max: 1024, Step: 1.0 / 512}
			a := AngleQuantizer{Bits: 14}
			w.WriteBits(q.Encode(1.5), q.Bits())
			w.WriteBits(a.Encode(1.0), a.Bits)
			return w.Finish()
		},
		func(b []byte) (any, any) {
			r := NewBitReader(b)
			q := Quantizer{Min: -1024, Max: 1024, Step: 1.0 / 512}
			a := AngleQuantizer{Bits: 14}
			pos := q.Decode(r.ReadBits(q.Bits()))
			ang := a.Decode(r.ReadBits(a.Bits))
			if r.Finish() != nil || ang < 1.0-0.0002 || ang > 1.0+0.0002 {
				return ang, 1.0
			}
			return pos, 1.5
		},
	},
	"header-probe": {
		func() []byte { h := goldenHeader(true, false); b, _ := h.Append(nil); return b },
		func(b []byte) (any, any) { return decodeHeader(b), goldenHeader(true, false) },
	},
	"header-ack-only": {
		func() []byte { h := goldenHeader(false, true); b, _ := h.Append(nil); return b },
		func(b []byte) (any, any) { return decodeHeader(b), goldenHeader(false, true) },
	},
	"datagram": {
		func() []byte {
			h := goldenHeader(true, true)
			b, _ := h.Append(nil)
			b = AppendMessage(b, KindState, []byte("hi"))
			return AppendMessage(b, KindInput, []byte{1, 2})
		},
		func(b []byte) (any, any) {
			r := NewReader(b)
			var h Header
			_ = h.Decode(&r)
			k1, p1 := ReadMessage(&r, 1200)
			k2, p2 := ReadMessage(&r, 1200)
			if r.Finish() != nil {
				return r.Err(), nil
			}
			type dg struct {
				H      Header
				K1, K2 Kind
				P1, P2 string
			}
			return dg{h, k1, k2, string(p1), string(p2)}, dg{goldenHeader(true, true), KindState, KindInput, "hi", "\x01\x02"}
		},
	},
	"hello": {
		func() []byte {
			b, _ := Hello{Version: Version, Name: "alice", Schema: goldenSchema}.Encode(nil)
			return b
		},
		func(b []byte) (any, any) {
			var m Hello
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, Hello{Version: Version, Name: "alice", Schema: goldenSchema}
		},
	},
	"hello-spectator": {
		func() []byte {
			b, _ := Hello{Version: Version, Name: "eve", Spectator: true, Schema: goldenSchema}.Encode(nil)
			return b
		},
		func(b []byte) (any, any) {
			var m Hello
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, Hello{Version: Version, Name: "eve", Spectator: true, Schema: goldenSchema}
		},
	},
	"command": {
		func() []byte { b, _ := goldenCommand().Encode(nil); return b },
		func(b []byte) (any, any) {
			var m Command
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, goldenCommand()
		},
	},
	"receipt-done": {
		func() []byte { b, _ := Receipt{Op: 300, Status: ReceiptDone, Frame: 1000}.Encode(nil); return b },
		func(b []byte) (any, any) {
			var m Receipt
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, Receipt{Op: 300, Status: ReceiptDone, Frame: 1000}
		},
	},
	"receipt-refused": {
		func() []byte {
			b, _ := Receipt{Op: 301, Status: ReceiptRefused, Frame: 1001, Reason: "team full"}.Encode(nil)
			return b
		},
		func(b []byte) (any, any) {
			var m Receipt
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, Receipt{Op: 301, Status: ReceiptRefused, Frame: 1001, Reason: "team full"}
		},
	},
	"receipt-conflict": {
		func() []byte { b, _ := Receipt{Op: 302, Status: ReceiptConflict}.Encode(nil); return b },
		func(b []byte) (any, any) {
			var m Receipt
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, Receipt{Op: 302, Status: ReceiptConflict}
		},
	},
	"receipt-expired": {
		func() []byte { b, _ := Receipt{Op: 40, Status: ReceiptExpired}.Encode(nil); return b },
		func(b []byte) (any, any) {
			var m Receipt
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, Receipt{Op: 40, Status: ReceiptExpired}
		},
	},
	"welcome": {
		func() []byte { return goldenWelcome().Encode(nil) },
		func(b []byte) (any, any) {
			var m Welcome
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, goldenWelcome()
		},
	},
	"welcome-ack": {
		func() []byte { return goldenWelcomeAck().Encode(nil) },
		func(b []byte) (any, any) {
			var m WelcomeAck
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, goldenWelcomeAck()
		},
	},
	"reject": {
		func() []byte {
			b, _ := Reject{Code: RejectVersion, Version: Version, Reason: "host speaks 5"}.Encode(nil)
			return b
		},
		func(b []byte) (any, any) {
			var m Reject
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, Reject{Code: RejectVersion, Version: Version, Reason: "host speaks 5"}
		},
	},
	"resume": {
		func() []byte { return goldenResume().Encode(nil) },
		func(b []byte) (any, any) {
			var m Resume
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, goldenResume()
		},
	},
	"resumed": {
		func() []byte { return goldenResumed().Encode(nil) },
		func(b []byte) (any, any) {
			var m Resumed
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, goldenResumed()
		},
	},
	"reject-resume": {
		func() []byte {
			b, _ := Reject{Code: RejectResume, Version: Version, Reason: "session ended"}.Encode(nil)
			return b
		},
		func(b []byte) (any, any) {
			var m Reject
			if err := m.Decode(b); err != nil {
				return err, nil
			}
			return m, Reject{Code: RejectResume, Version: Version, Reason: "session ended"}
		},
	},
}

// goldenSchema is the schema of PROTOCOL.md's Hello and Resume.
const goldenSchema = 0x0123456789abcdef

// goldenCommand is PROTOCOL.md's Command: operation 300 given at frame 1,000,
// the game's command kind 2, a payload of three bytes.
func goldenCommand() Command {
	return Command{Op: 300, Frame: 1000, Kind: 2, Payload: []byte{0x0a, 0x0b, 0x0c}}
}

func goldenWelcome() Welcome {
	w := Welcome{PeerID: 7, TickRate: 60, SendRate: 30, Frame: 1000, GraceMillis: 30000, Runs: LineageOf(RunStart{Run: 0x0123456789abcdef, Fresh: 1})}
	for i := range w.Token {
		w.Token[i] = byte(i)
	}
	return w
}

// goldenWelcomeAck answers goldenWelcome.
func goldenWelcomeAck() WelcomeAck {
	w := goldenWelcome()
	return WelcomeAck{PeerID: w.PeerID, Token: w.Token}
}

// goldenResume resumes the peer of goldenWelcome.
func goldenResume() Resume {
	w := goldenWelcome()
	return Resume{Version: Version, Flags: ResumeHoldsWorld, PeerID: w.PeerID, Token: w.Token, Schema: goldenSchema}
}

// goldenResumed accepts goldenResume at frame 2,500, in another run of the
// world: one restored from a save whose network-id counter was 2,001.
func goldenResumed() Resumed {
	return Resumed{PeerID: 7, TickRate: 60, SendRate: 30, Frame: 2500, GraceMillis: 30000, Token: goldenWelcome().Token, Runs: LineageOf(RunStart{Run: 0x0123456789abcdef, Fresh: 1}, RunStart{Run: 0xfedcba9876543210, Fresh: 2001})}
}

func decodeHeader(b []byte) any {
	r := NewReader(b)
	var h Header
	if err := h.Decode(&r); err != nil {
		return err
	}
	if err := r.Finish(); err != nil {
		return err
	}
	return h
}

// readGolden returns PROTOCOL.md's golden blocks: name → bytes.
func readGolden(t testing.TB) map[string][]byte {
	return wiretest.Blocks(t, "PROTOCOL.md", "golden")
}

// TestGolden ties PROTOCOL.md to the code: every example's values encode to
// the bytes the document shows, and those bytes decode to the values.
func TestGolden(t *testing.T) {
	blocks := readGolden(t)
	for name, g := range golden {
		doc, ok := blocks[name]
		if !ok {
			t.Errorf("PROTOCOL.md has no golden block %q", name)
			continue
		}
		if enc := g.encode(); !bytes.Equal(enc, doc) {
			t.Errorf("%s: encoder writes\n  % x\nPROTOCOL.md shows\n  % x", name, enc, doc)
		}
		if got, want := g.decode(doc); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoding the document's bytes gives %+v, want %+v", name, got, want)
		}
	}
	for name := range blocks {
		if _, ok := golden[name]; !ok {
			t.Errorf("PROTOCOL.md golden block %q is not checked by the test; add it to golden", name)
		}
	}
}

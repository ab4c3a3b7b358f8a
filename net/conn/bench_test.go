package conn

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// benchLink is a transport.Conn that allocates nothing: sends are copied to
// a sink, and receives come from inject (one at a time) or from a template
// datagram whose packet number is advanced for each of gen datagrams.
type benchLink struct {
	fakeLink
	sink     []byte
	inject   []byte
	template []byte
	pn       uint32
	gen      int
	buf      []byte
}

func (l *benchLink) SendDatagram(p []byte) error {
	l.sink = append(l.sink[:0], p...)
	l.sent++
	return nil
}

func (l *benchLink) RecvDatagram() ([]byte, bool) {
	if l.inject != nil {
		p := l.inject
		l.inject = nil
		return p, true
	}
	if l.gen == 0 {
		return nil, false
	}
	l.gen--
	l.buf = append(l.buf[:0], l.template...)
	l.buf[1], l.buf[2], l.buf[3], l.buf[4] = byte(l.pn), byte(l.pn>>8), byte(l.pn>>16), byte(l.pn>>24)
	l.pn++
	return l.buf, true
}

func (l *benchLink) RecvMessage() (transport.Lane, []byte, bool) { return 0, nil, false }
func (l *benchLink) Err() error                                  { return nil }

func BenchmarkConnFlush(b *testing.B) {
	for _, n := range []int{64} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			clk := clock.NewFake(epoch)
			link := &benchLink{sink: make([]byte, 0, transport.MaxDatagramSize), buf: make([]byte, 0, 256)}
			c, err := New(link, clk, nil, Config{})
			must(b, err)
			payload := make([]byte, 16)
			var ack wire.Header
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for m := 0; m < n; m++ {
					if err := c.Queue(wire.KindState, payload, Token(m+1)); err != nil {
						b.Fatal(err)
					}
				}
				if err := c.Flush(); err != nil {
					b.Fatal(err)
				}
				clk.Advance(time.Millisecond)
				if c.InFlight() >= wire.AckWindow/2 {
					// Acknowledge everything in flight, as the peer would.
					b.StopTimer()
					ack = wire.Header{HasAck: true, Ack: wire.AckFrame{First: c.floor, DiscardFloor: c.floor, NumRuns: 1}}
					ack.Ack.Runs[0] = uint16(c.next - c.floor)
					link.inject, _ = ack.Append(link.buf[:0])
					if err := c.Poll(); err != nil || c.InFlight() != 0 {
						b.Fatal(err, c.InFlight())
					}
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(link.sent)/float64(b.N), "datagrams/op")
		})
	}
}

func BenchmarkConnReceive(b *testing.B) {
	for _, n := range []int{64} {
		b.Run(fmt.Sprintf("datagrams=%d", n), func(b *testing.B) {
			clk := clock.NewFake(epoch)
			// A numbered datagram whose floor is 8 below its number, reorder
			// floor 2 below, carrying four 40-byte state messages.
			h := wire.Header{Numbered: true, Packet: 1000, Floor: 992, ReorderFloor: 998}
			tmpl, err := h.Append(nil)
			must(b, err)
			for range 4 {
				tmpl = wire.AppendMessage(tmpl, wire.KindState, make([]byte, 40))
			}
			link := &benchLink{template: tmpl, pn: 1000, sink: make([]byte, 0, transport.MaxDatagramSize), buf: make([]byte, 0, transport.MaxDatagramSize)}
			msgs := 0
			// 64 datagrams a millisecond is far past the inbound rate limits,
			// which this measures nothing of: lift them.
			cfg := Config{MaxDatagramsPerSecond: 1 << 30, MaxDatagramBytesPerSecond: 1 << 40}
			c, err := New(link, clk, HandlerFuncs{OnMessage: func(wire.Kind, []byte) { msgs++ }}, cfg)
			must(b, err)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				link.gen = n
				if err := c.Poll(); err != nil {
					b.Fatal(err)
				}
				if err := c.Flush(); err != nil {
					b.Fatal(err)
				}
				clk.Advance(time.Millisecond)
			}
			b.StopTimer()
			if msgs != 4*n*b.N || c.Stats().AckOnlySent != uint64(b.N) {
				b.Fatalf("processed %d messages and sent %d acks for %d iterations", msgs, c.Stats().AckOnlySent, b.N)
			}
		})
	}
}

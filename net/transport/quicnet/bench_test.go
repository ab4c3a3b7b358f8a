package quicnet

import (
	"context"
	"crypto/tls"
	"errors"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tandem-go/tandem/net/transport"
)

// resendAfter re-sends a ping presumed lost; loopback almost never loses one.
const resendAfter = 50 * time.Millisecond

// BenchmarkQUICDatagramRTT ping-pongs one 64-byte datagram between a client
// and a host echoing it, over loopback: ns/op is the round trip through this
// package's queues and goroutines and QUIC.
func BenchmarkQUICDatagramRTT(b *testing.B) {
	p := newPair(b, Config{}, Config{})
	stop := make(chan struct{})
	echoed := make(chan struct{})
	go func() {
		defer close(echoed)
		for {
			select {
			case <-p.host.Arrived():
			case <-stop:
				return
			}
			for {
				d, ok := p.host.RecvDatagram()
				if !ok {
					break
				}
				_ = p.host.SendDatagram(d)
			}
		}
	}()
	defer func() { close(stop); <-echoed }()

	ping := make([]byte, 64)
	timer := time.NewTimer(time.Hour)
	resent := 0
	b.ReportAllocs()
	for b.Loop() {
		if err := p.client.SendDatagram(ping); err != nil {
			b.Fatal(err)
		}
		timer.Reset(resendAfter)
	wait:
		for {
			select {
			case <-p.client.Arrived():
				if _, ok := p.client.RecvDatagram(); ok {
					for _, ok := p.client.RecvDatagram(); ok; _, ok = p.client.RecvDatagram() {
					}
					break wait
				}
			case <-timer.C:
				resent++
				_ = p.client.SendDatagram(ping)
				timer.Reset(resendAfter)
			}
		}
	}
	b.ReportMetric(float64(resent), "resent")
}

// BenchmarkRawQUICDatagramRTT is the same ping-pong on bare quic-go, for
// comparison with BenchmarkQUICDatagramRTT in the same run.
func BenchmarkRawQUICDatagramRTT(b *testing.B) {
	hostT, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	ql, err := quic.ListenAddr("127.0.0.1:0", hostT.serverTLS(), &quic.Config{EnableDatagrams: true})
	if err != nil {
		b.Fatal(err)
	}
	defer ql.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		qc, err := ql.Accept(ctx)
		if err != nil {
			return
		}
		defer qc.CloseWithError(0, "")
		for {
			d, err := qc.ReceiveDatagram(ctx)
			if err != nil {
				return
			}
			_ = qc.SendDatagram(d)
		}
	}()
	qc, err := quic.DialAddr(ctx, ql.Addr().String(),
		&tls.Config{InsecureSkipVerify: true, NextProtos: []string{ALPN}}, &quic.Config{EnableDatagrams: true})
	if err != nil {
		b.Fatal(err)
	}
	defer qc.CloseWithError(0, "")
	ping := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		if err := qc.SendDatagram(ping); err != nil {
			b.Fatal(err)
		}
		rctx, rcancel := context.WithTimeout(ctx, resendAfter)
		for {
			if _, err := qc.ReceiveDatagram(rctx); err == nil {
				break
			}
			rcancel()
			rctx, rcancel = context.WithTimeout(ctx, resendAfter)
			_ = qc.SendDatagram(ping)
		}
		rcancel()
	}
}

// BenchmarkQUICLaneThroughput streams 64 KiB messages on one lane over
// loopback; MB/s is the lane's throughput, each message received in full.
func BenchmarkQUICLaneThroughput(b *testing.B) {
	const msgSize = 64 << 10
	p := newPair(b, Config{}, Config{})
	msg := make([]byte, msgSize)
	received := make(chan int, 1)
	go func() {
		n := 0
		for n < b.N {
			select {
			case <-p.host.Arrived():
			case <-p.host.Done():
				received <- n
				return
			}
			for _, m, ok := p.host.RecvMessage(); ok; _, m, ok = p.host.RecvMessage() {
				if len(m) != msgSize {
					panic("short message")
				}
				n++
			}
		}
		received <- n
	}()
	b.SetBytes(msgSize)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for {
			err := p.client.SendMessage(transport.LaneJoin, msg)
			if err == nil {
				break
			}
			if !errors.Is(err, transport.ErrLaneQueueFull) {
				b.Fatal(err)
			}
			time.Sleep(100 * time.Microsecond) // wait for the writer to drain
		}
	}
	if n := <-received; n != b.N {
		b.Fatalf("received %d of %d messages", n, b.N)
	}
	b.StopTimer()
}

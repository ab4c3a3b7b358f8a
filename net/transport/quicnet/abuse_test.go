package quicnet

import (
	"context"
	"crypto/tls"
	"errors"
	"testing"

	"github.com/quic-go/quic-go"

	"github.com/tandem-go/tandem/net/transport"
)

// rawDial connects to addr with plain quic-go, as a hostile peer would.
func rawDial(t *testing.T, addr string, datagrams bool) *quic.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	qc, err := quic.DialAddr(ctx, addr,
		&tls.Config{InsecureSkipVerify: true, NextProtos: []string{ALPN}},
		&quic.Config{EnableDatagrams: datagrams})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { qc.CloseWithError(0, "") })
	return qc
}

// acceptHost accepts the next connection on ln.
func acceptHost(t *testing.T, ln transport.Listener) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := ln.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(0, "") })
	return c.(*Conn)
}

// writeStream opens a lane stream on qc, writes data and, if fin, ends it.
func writeStream(t *testing.T, qc *quic.Conn, data []byte, fin bool) *quic.SendStream {
	t.Helper()
	st, err := qc.OpenUniStream()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Write(data); err != nil {
		t.Fatal(err)
	}
	if fin {
		st.Close()
	}
	return st
}

// TestHostileLaneStreams: every way of breaking the lane framing closes the
// connection with the right code and a typed error on the host, tells the
// peer why, and never panics.
func TestHostileLaneStreams(t *testing.T) {
	cases := []struct {
		name string
		send func(t *testing.T, qc *quic.Conn)
		code transport.CloseCode
		err  error
	}{
		{"unknown lane", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, []byte{7}, false)
		}, transport.CloseProtocol, transport.ErrBadLane},
		{"length above the limit", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, []byte{1, 0x81, 0x80, 0x40}, false) // 1 MiB + 1
		}, transport.CloseLimit, transport.ErrMessageTooLarge},
		{"length of 2^64-1", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, false)
		}, transport.CloseLimit, transport.ErrMessageTooLarge},
		{"overlong length", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, []byte{1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, false)
		}, transport.CloseProtocol, transport.ErrMalformed},
		{"length not in shortest form", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, []byte{0, 0x82, 0x00, 'h', 'i'}, false)
		}, transport.CloseProtocol, transport.ErrMalformed},
		{"stream ends after a message", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, []byte{0, 2, 'h', 'i'}, true)
		}, transport.CloseProtocol, transport.ErrMalformed},
		{"stream ends inside a message", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, []byte{0, 10, 'h', 'i'}, true)
		}, transport.CloseProtocol, transport.ErrMalformed},
		{"stream ends before its lane byte", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, nil, true)
		}, transport.CloseProtocol, transport.ErrMalformed},
		{"garbage", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, []byte("\x01\x37\xde\xad\xbe\xef\x13\x37\xc0\xff\xee"), true)
		}, transport.CloseProtocol, transport.ErrMalformed},
		{"second stream for a lane", func(t *testing.T, qc *quic.Conn) {
			writeStream(t, qc, []byte{2, 1, 'a'}, false)
			writeStream(t, qc, []byte{2, 1, 'b'}, false)
		}, transport.CloseProtocol, transport.ErrMalformed},
		{"stream reset", func(t *testing.T, qc *quic.Conn) {
			st := writeStream(t, qc, []byte{1, 5, 'a'}, false)
			st.CancelWrite(3)
		}, transport.CloseProtocol, transport.ErrMalformed},
	}
	hostT, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qc := rawDial(t, ln.Addr().String(), true)
			host := acceptHost(t, ln)
			tc.send(t, qc)
			waitDone(t, host)

			var ce *transport.CloseError
			if !errors.As(host.Err(), &ce) || ce.Remote || ce.Code != tc.code {
				t.Fatalf("host Err = %#v, want a local CloseError with code %s", host.Err(), tc.code)
			}
			if !errors.Is(host.Err(), tc.err) {
				t.Fatalf("host Err = %v, does not wrap %v", host.Err(), tc.err)
			}
			<-qc.Context().Done()
			ae, ok := errors.AsType[*quic.ApplicationError](context.Cause(qc.Context()))
			if !ok || !ae.Remote || transport.CloseCode(ae.ErrorCode) != tc.code || ae.ErrorMessage == "" {
				t.Fatalf("peer sees %v, want code %s with a reason", context.Cause(qc.Context()), tc.code)
			}
		})
	}
}

func TestOversizedDatagramDroppedAndCounted(t *testing.T) {
	hostT, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	qc := rawDial(t, ln.Addr().String(), true)
	host := acceptHost(t, ln)
	if err := qc.SendDatagram(make([]byte, transport.MaxDatagramSize+20)); err != nil {
		t.Fatal(err)
	}
	if err := qc.SendDatagram([]byte("ok")); err != nil {
		t.Fatal(err)
	}
	if got := recvDatagram(t, host); string(got) != "ok" {
		t.Fatalf("got %q", got)
	}
	if s := host.Stats(); s.DatagramsDropped != 1 || s.DatagramsReceived != 1 {
		t.Fatalf("stats %+v, want 1 dropped and 1 received", s)
	}
	if host.Err() != nil {
		t.Fatal(host.Err())
	}
}

func TestPeerWithoutDatagramsRefused(t *testing.T) {
	hostT, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	accepted := make(chan error, 1)
	go func() {
		_, err := ln.Accept(ctx)
		accepted <- err
	}()
	qc := rawDial(t, ln.Addr().String(), false)
	<-qc.Context().Done()
	ae, ok := errors.AsType[*quic.ApplicationError](context.Cause(qc.Context()))
	if !ok || transport.CloseCode(ae.ErrorCode) != transport.CloseProtocol {
		t.Fatalf("peer sees %v, want CloseProtocol", context.Cause(qc.Context()))
	}
	cancel()
	if err := <-accepted; !errors.Is(err, context.Canceled) {
		t.Fatalf("Accept returned %v; the refused peer must not be returned", err)
	}
}

package condition

import (
	"errors"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport/internal/packetpipe"
)

func newPacketConn(t *testing.T, pc net.PacketConn, out, in Config) *PacketConn {
	t.Helper()
	c, err := NewPacketConn(pc, out, in)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readAt reads one packet from pc and returns it with the (virtual) time it
// took since start.
func readAt(t *testing.T, pc net.PacketConn, start time.Time) ([]byte, time.Duration) {
	t.Helper()
	buf := make([]byte, 2048)
	n, _, err := pc.ReadFrom(buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf[:n], time.Since(start)
}

func TestPacketConnDelaysWrites(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		a, b := packetpipe.New()
		ca := newPacketConn(t, a, Config{Latency: 50 * time.Millisecond}, Config{})
		defer ca.Close()
		defer b.Close()
		start := time.Now()
		if n, err := ca.WriteTo([]byte("one"), b.LocalAddr()); n != 3 || err != nil {
			t.Fatalf("WriteTo = %d, %v", n, err)
		}
		time.Sleep(10 * time.Millisecond)
		ca.WriteTo([]byte("two"), b.LocalAddr())
		if p, d := readAt(t, b, start); string(p) != "one" || d != 50*time.Millisecond {
			t.Fatalf("got %q after %v, want \"one\" after 50ms", p, d)
		}
		if p, d := readAt(t, b, start); string(p) != "two" || d != 60*time.Millisecond {
			t.Fatalf("got %q after %v, want \"two\" after 60ms", p, d)
		}
	})
}

func TestPacketConnDelaysReads(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		a, b := packetpipe.New()
		cb := newPacketConn(t, b, Config{}, Config{Latency: 30 * time.Millisecond})
		defer cb.Close()
		defer a.Close()
		start := time.Now()
		a.WriteTo([]byte("hello"), b.LocalAddr())
		p, d := readAt(t, cb, start)
		if string(p) != "hello" || d != 30*time.Millisecond {
			t.Fatalf("got %q after %v, want \"hello\" after 30ms", p, d)
		}
		if _, in := cb.Stats(); in.Sent != 1 || in.Delivered != 1 {
			t.Fatalf("incoming stats %+v", in)
		}
	})
}

// TestPacketConnLossCounts: what the peer receives is exactly what the
// conditioner did not lose, and the loss rate is the configured one.
func TestPacketConnLossCounts(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		a, b := packetpipe.New()
		ca := newPacketConn(t, a, Config{Latency: 5 * time.Millisecond, Loss: 0.10, Seed: 9}, Config{})
		received := make(chan int)
		go func() {
			n := 0
			buf := make([]byte, 64)
			for {
				if _, _, err := b.ReadFrom(buf); err != nil {
					received <- n
					return
				}
				n++
			}
		}()
		for range 2000 {
			ca.WriteTo([]byte("x"), b.LocalAddr())
			time.Sleep(time.Millisecond)
		}
		time.Sleep(10 * time.Millisecond) // past the latency of the last packet
		synctest.Wait()
		ca.Close() // closes a
		b.Close()
		got := <-received
		out, _ := ca.Stats()
		if out.Sent != 2000 || uint64(got) != out.Sent-out.Lost {
			t.Fatalf("peer got %d; link sent %d, lost %d", got, out.Sent, out.Lost)
		}
		if rate := float64(out.Lost) / 2000; rate < 0.08 || rate > 0.12 {
			t.Fatalf("loss rate %.3f, want 0.10 ± 0.02", rate)
		}
	})
}

func TestPacketConnReadDeadline(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		a, b := packetpipe.New()
		cb := newPacketConn(t, b, Config{}, Config{Latency: time.Second})
		defer cb.Close()
		defer a.Close()
		start := time.Now()
		cb.SetReadDeadline(start.Add(20 * time.Millisecond))
		_, _, err := cb.ReadFrom(make([]byte, 10))
		var ne net.Error
		if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("err = %v, want a timeout", err)
		}
		if d := time.Since(start); d != 20*time.Millisecond {
			t.Fatalf("returned after %v, want 20ms", d)
		}
		// A deadline set while ReadFrom waits wakes it (this is how quic-go
		// stops its read loop).
		cb.SetReadDeadline(time.Time{})
		done := make(chan error)
		go func() {
			_, _, err := cb.ReadFrom(make([]byte, 10))
			done <- err
		}()
		synctest.Wait()
		cb.SetReadDeadline(time.Now())
		if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("err = %v, want os.ErrDeadlineExceeded", err)
		}
	})
}

func TestPacketConnCloseFlushesWrites(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		a, b := packetpipe.New()
		ca := newPacketConn(t, a, Config{Latency: time.Second}, Config{Latency: time.Second})
		defer b.Close()
		start := time.Now()
		ca.WriteTo([]byte("last words"), b.LocalAddr())
		if err := ca.Close(); err != nil {
			t.Fatal(err)
		}
		if p, d := readAt(t, b, start); string(p) != "last words" || d != 0 {
			t.Fatalf("got %q after %v, want it at once", p, d)
		}
		if _, err := ca.WriteTo([]byte("x"), b.LocalAddr()); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("WriteTo after Close = %v", err)
		}
		if _, _, err := ca.ReadFrom(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("ReadFrom after Close = %v", err)
		}
		if err := ca.Close(); err != nil {
			t.Fatalf("second Close = %v", err)
		}
	})
}

// TestPacketConnRealTime: on a real socket and real time, a conditioned
// packet does not arrive before its latency.
func TestPacketConnRealTime(t *testing.T) {
	udpA, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	udpB, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer udpB.Close()
	ca := newPacketConn(t, udpA, Config{Latency: 20 * time.Millisecond}, Config{Latency: 5 * time.Millisecond})
	defer ca.Close()
	if err := ca.SetReadBuffer(1 << 20); err != nil {
		t.Fatalf("SetReadBuffer did not reach the UDP socket: %v", err)
	}
	start := time.Now()
	ca.WriteTo([]byte("ping"), udpB.LocalAddr())
	udpB.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 16)
	n, from, err := udpB.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("arrived after %v, before the 20ms latency", d)
	}
	start = time.Now()
	udpB.WriteTo([]byte("pong"), from)
	ca.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, _, err = ca.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "pong" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if d := time.Since(start); d < 5*time.Millisecond {
		t.Fatalf("read after %v, before the 5ms latency", d)
	}
}

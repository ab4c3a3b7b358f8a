package conn

import (
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// flood has a send perTick datagrams of size bytes of payload every tick, b
// poll, for up to ticks ticks of tick; it returns b's first Poll error and
// the ticks run.
func flood(t *testing.T, cfg Config, perTick, size, ticks int, tick time.Duration) (a, b *Conn, lb *fakeLink, ran int, err error) {
	t.Helper()
	a, b, _, _, _, lb, clk := fakePair(t, cfg)
	payload := make([]byte, size)
	for ran = 0; ran < ticks && err == nil; ran++ {
		for range perTick {
			must(t, a.Queue(wire.KindInput, payload, 0))
			must(t, a.Flush())
		}
		clk.Advance(tick)
		err = b.Poll()
		if err == nil {
			must(t, b.Flush())
			must(t, a.Poll())
		}
	}
	return a, b, lb, ran, err
}

// TestDatagramRateClosesWithLimit: a peer that stays under every per-poll
// bound but sends 127 datagrams every 10 ms tick (12,700 a second) is closed
// for the rate, within the bucket's second.
func TestDatagramRateClosesWithLimit(t *testing.T) {
	_, b, lb, ran, err := flood(t, Config{}, 127, 8, 500, 10*time.Millisecond)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "datagrams per second" || le.Max != DefaultMaxDatagramsPerSecond {
		t.Fatalf("after %d ticks: Poll = %v, want a *LimitError on datagrams per second", ran, err)
	}
	if ran > 100 {
		t.Fatalf("closed after %d ticks, want within a second", ran)
	}
	if s := b.Stats(); s.FullPolls != 0 || s.LimitClosures != 1 {
		t.Fatalf("FullPolls %d, LimitClosures %d: the per-poll bounds should never have been reached", s.FullPolls, s.LimitClosures)
	}
	if ce := lb.Err().(*transport.CloseError); ce.Code != transport.CloseLimit {
		t.Fatalf("closed with %v, want CloseLimit", ce)
	}
}

func TestDatagramByteRateClosesWithLimit(t *testing.T) {
	_, _, _, ran, err := flood(t, Config{MaxDatagramBytesPerSecond: 100_000}, 10, 1000, 500, 10*time.Millisecond)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "datagram bytes per second" || le.Max != 100_000 {
		t.Fatalf("after %d ticks: Poll = %v, want a *LimitError on datagram bytes per second", ran, err)
	}
}

// TestHonestRateStaysOpen: 30 full datagrams a tick at 60 Hz (1,800 a
// second, 2 MB/s of state is far more than a game sends) for 5 s.
func TestHonestRateStaysOpen(t *testing.T) {
	_, b, _, ran, err := flood(t, Config{}, 30, 1000, 300, time.Second/60)
	if err != nil || ran != 300 || b.Closed() {
		t.Fatalf("closed after %d ticks: %v", ran, err)
	}
	if got := b.Stats().DatagramsReceived; got != 300*30 {
		t.Fatalf("%d datagrams taken, want %d", got, 300*30)
	}
}

package conn

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// recorder is a Handler that keeps copies of everything it is given.
type recorder struct {
	msgs    []recMsg
	lanes   []recLane
	notices []Notice
}

type recMsg struct {
	kind    wire.Kind
	payload string
}

type recLane struct {
	lane transport.Lane
	msg  string
}

func (r *recorder) Message(kind wire.Kind, payload []byte) {
	r.msgs = append(r.msgs, recMsg{kind, string(payload)})
}

func (r *recorder) LaneMessage(lane transport.Lane, msg []byte) {
	r.lanes = append(r.lanes, recLane{lane, string(msg)})
}

func (r *recorder) Notice(n Notice) {
	n.Tokens = append([]Token(nil), n.Tokens...)
	r.notices = append(r.notices, n)
}

// fakePair returns two Conns over a fakeLink pair, sharing a fake clock.
func fakePair(t testing.TB, cfg Config) (a, b *Conn, ra, rb *recorder, la, lb *fakeLink, clk *clock.Fake) {
	t.Helper()
	clk = clock.NewFake(epoch)
	la, lb = newFakePair()
	ra, rb = &recorder{}, &recorder{}
	var err error
	if a, err = New(la, clk, ra, cfg); err != nil {
		t.Fatal(err)
	}
	if b, err = New(lb, clk, rb, cfg); err != nil {
		t.Fatal(err)
	}
	return
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// idleTicks runs n ticks of 16 ms of a and b with nothing queued: each
// polls, then flushes.
func idleTicks(t *testing.T, a, b *Conn, clk *clock.Fake, n int) {
	t.Helper()
	for range n {
		clk.Advance(16 * time.Millisecond)
		must(t, a.Poll())
		must(t, b.Poll())
		must(t, a.Flush())
		must(t, b.Flush())
	}
}

package tandem

import (
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
)

// A rejoin whose connection breaks in turn is bounded by the host's grace
// window, not by JoinTimeout from the earlier Resumed: the client,
// Reconnecting within the grace window (30 s here, and 5 s of margin), is
// not given up with ErrJoinTimeout ("the host did not let this client
// in") while nothing of a join is under way.
func TestABreakDuringTheRejoinIsBoundedByGraceNotJoinTimeout(t *testing.T) {
	h := newHostileClientWith(t, 30000, true)
	h.client.cfg.JoinTimeout = 10 * time.Second
	h.joinTwo(t)
	hc := h.resumeWith(t, 60)
	for range 30 {
		hc.Flush()
		h.step()
		hc.Poll()
	}
	if st := h.client.session.State(); st != session.Joining {
		t.Fatalf("after the Resumed: %v, want Joining", st)
	}
	hc.Close(transport.CloseHostRestarting, "restarting again") // a second break, the rejoin under way
	for range 11 * 60 {
		h.step()
	}
	if st, err := h.client.session.State(), h.client.Err(); st == session.Closed || errors.Is(err, ErrJoinTimeout) {
		t.Fatalf("11 s after a second break, within the host's 30 s grace window: %v, err %v; want still Reconnecting", st, err)
	}
}

// A resume during the first join keeps that join's JoinTimeout, from
// NewClient to Playing: a host that breaks the connection and answers the
// Resume every JoinTimeout-ε does not keep the first join going for ever.
func TestAResumeDuringTheFirstJoinKeepsItsBound(t *testing.T) {
	h := newHostileClientWith(t, 30000, true)
	h.client.cfg.JoinTimeout = 10 * time.Second
	for range 6 * 60 {
		h.step() // the Welcome came; the join never begins
	}
	hc := h.resumeWith(t, 60)
	for range 5 * 60 {
		hc.Flush()
		h.step()
		hc.Poll()
	}
	if err := h.client.Err(); !errors.Is(err, ErrJoinTimeout) || h.client.session.State() != session.Closed {
		t.Fatalf("11 s after NewClient, the first join not finished (a resume at 6 s): %v, err %v; want closed with ErrJoinTimeout", h.client.session.State(), err)
	}
}

package tandem

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// A Resumed of a host stepping at another rate than the game's is refused
// as a Welcome's is: a host restarted with another Game is not played on.
func TestAResumedOfAnotherTickRateIsRefused(t *testing.T) {
	h := newHostileClientWith(t, 30000, true)
	h.joinTwo(t)
	hc := h.resumeWith(t, 30)
	hc.SendLane(transport.LaneJoin, []byte{byte(wire.KindJoinPage), 120, 0, 0})
	hc.SendLane(transport.LaneJoin, []byte{byte(wire.KindJoinFinal), 120, 1, 0, 0})
	for range 30 {
		hc.Flush()
		h.step()
		hc.Poll()
	}
	if st, err := h.client.session.State(), h.client.Err(); st == session.Playing || err == nil {
		t.Fatalf("after a Resumed of a 30 Hz host the 60 Hz client is %v (err %v); want it closed, saying why", st, err)
	}
}

// The join into the world held after a resume is bounded by JoinTimeout,
// as a first join is: a host that answers the Resume and never ends the
// join held the client's world still for good.
func TestAJoinAfterAResumeIsBoundedByJoinTimeout(t *testing.T) {
	h := newHostileClientWith(t, 30000, true)
	h.client.cfg.JoinTimeout = 10 * time.Second
	h.joinTwo(t)
	hc := h.resumeWith(t, 60)
	hc.SendLane(transport.LaneJoin, []byte{byte(wire.KindJoinPage), 120, 2, 0})
	for range 11 * 60 {
		hc.Flush()
		h.step()
		hc.Poll()
	}
	if err := h.client.Err(); !errors.Is(err, ErrJoinTimeout) || h.client.session.State() != session.Closed {
		t.Fatalf("11 s into a join after a resume that never ends: %v, err %v; want closed with ErrJoinTimeout", h.client.session.State(), err)
	}
}

// resumeWith breaks h's connection, takes the client's Resume on a new one
// and answers it with Resumed (tick rate hz); it returns the host's end of
// the new connection. The client dials on a goroutine of its own: each
// step is followed by an Accept that waits for that dial a while.
func (h *hostileClient) resumeWith(t *testing.T, hz uint16) *conn.Conn {
	t.Helper()
	h.htc.Close(transport.CloseHostRestarting, "restarting")
	var hc *conn.Conn
	resumed := false
	for i := 0; i < 600 && !resumed; i++ {
		h.step()
		if hc == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			htc, err := h.l.Accept(ctx)
			cancel()
			if err != nil {
				continue
			}
			hc, _ = conn.New(htc, h.clk, conn.HandlerFuncs{OnLaneMessage: func(_ transport.Lane, m []byte) {
				if wire.Kind(m[0]) == wire.KindResume {
					resumed = true
				}
			}}, conn.Config{})
			hc.Admit()
		}
		hc.Poll()
	}
	if !resumed {
		t.Fatalf("no Resume came: %v", h.client.session.State())
	}
	hc.SendLane(transport.LaneControl, wire.Resumed{PeerID: 1, TickRate: hz, SendRate: 30, Frame: 200, GraceMillis: 30000, Token: [wire.TokenLen]byte{9}, Runs: wire.LineageOf(wire.RunStart{Run: 1, Fresh: 1})}.Encode(nil))
	return hc
}

// A host that gives this client more entities to predict than
// predict.ClientConfig.MaxOwned ends the session with ErrTooManyOwned,
// rather than have the client hold a history for each.
func TestAHostGivingTooManyOwnedEndsTheSession(t *testing.T) {
	h := newHostileClient(t)
	reg := h.client.reg
	fields := 0
	for c := range replicate.Component(reg.Len()) {
		fields += reg.Fields(c)
	}
	const n = predict.DefaultMaxOwned + 1
	all := uint64(1)<<uint(reg.Len()) - 1
	page := wire.AppendUvarint([]byte{byte(wire.KindJoinPage), 100}, n)
	page = append(page, 0)
	for id := 1; id <= n; id++ {
		page = wire.AppendUvarint(page, uint64(id))
		page = wire.AppendUvarint(page, 1|all<<2)
		page = wire.AppendUvarint(page, 1) // owned by this client
		// Its x 50 units past the one before (bodies apart: none touch).
		page = wire.AppendUvarint(page, wire.ZigZag(int64(id)*50*replicate.PositionScale))
		for range fields - 1 {
			page = append(page, 0)
		}
	}
	final := wire.AppendUvarint(wire.AppendUvarint([]byte{byte(wire.KindJoinFinal), 100, 1}, n), n)
	h.host.SendLane(transport.LaneJoin, page)
	h.host.SendLane(transport.LaneJoin, final)
	for range 10 {
		h.step()
	}
	if err := h.client.Err(); !errors.Is(err, predict.ErrTooManyOwned) || h.client.session.State() != session.Closed {
		t.Fatalf("a host gave this client %d entities to predict: %v, err %v; want closed with ErrTooManyOwned", n, h.client.session.State(), err)
	}
}

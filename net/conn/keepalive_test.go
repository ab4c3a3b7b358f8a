package conn

import (
	"math/rand/v2"
	"testing"
	"time"
)

// lossyRun steps a (keep-alive on, nothing else to send: a spectator) and b
// (an idle host: acknowledgements only) over a link losing loss of the
// datagrams each way, 60 ms each way, for d; it returns how many times a's
// oldest datagram in flight passed 5 s (the session client's AckTimeout,
// which closes the connection), and the longest it stayed.
func lossyRun(t *testing.T, loss float64, d time.Duration, seed uint64) (timeouts int, oldest time.Duration, st Stats) {
	a, b, _, _, la, lb, clk := fakePair(t, Config{})
	a.SetKeepAlive(250 * time.Millisecond)
	la.hold, lb.hold = true, true
	rng := rand.New(rand.NewPCG(seed, 2))
	type fl struct {
		at   time.Time
		data []byte
		to   *fakeLink
	}
	var wire []fl
	over := false
	for range int(d / (16 * time.Millisecond)) {
		clk.Advance(16 * time.Millisecond)
		now := clk.Now()
		for _, l := range []*fakeLink{la, lb} {
			for _, d := range l.held {
				if rng.Float64() >= loss {
					wire = append(wire, fl{now.Add(60 * time.Millisecond), d, l.peer})
				}
			}
			l.held = l.held[:0]
		}
		kept := wire[:0]
		for _, f := range wire {
			if !f.at.After(now) {
				f.to.inbox = append(f.to.inbox, f.data)
			} else {
				kept = append(kept, f)
			}
		}
		wire = kept
		must(t, a.Poll())
		must(t, b.Poll())
		must(t, a.Flush())
		must(t, b.Flush())
		s, ok := a.OldestInFlight()
		age := time.Duration(0)
		if ok {
			age = now.Sub(s)
		}
		oldest = max(oldest, age)
		if age > 5*time.Second && !over {
			timeouts++
		}
		over = age > 5*time.Second
	}
	return timeouts, oldest, a.Stats()
}

// A spectator's keep-alive (a probe each quarter second, as the session
// client sets it) against an idle host, which answers each probe with one
// ack-only datagram, over a link losing a fifth of the datagrams each way
// for an hour: a probe's round trip fails one time in three, and the next
// probe that completes one settles those before it, so no datagram stays
// unsettled near the session client's AckTimeout (5 s), which would close
// the connection. (At a probe a second, 5 s unsettled came 5 times in the
// hour.)
func TestKeepAliveSurvivesALossyLink(t *testing.T) {
	timeouts, oldest, st := lossyRun(t, 0.2, time.Hour, 1)
	t.Logf("20%% loss each way, an hour: %d probes, %d lost; the oldest in flight reached %v; %d times past 5 s", st.ProbesSent, st.PacketsLost, oldest, timeouts)
	if timeouts > 0 || oldest > 3*time.Second {
		t.Fatalf("a spectator at rest over a link losing 20%% each way had a datagram unsettled for %v, past 5 s %d times in an hour", oldest, timeouts)
	}
}

package session

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// Squatters that hold every pending place, each saying Hello, taking its
// Welcome and never answering it (and dialing again when the host drops it
// at HandshakeTimeout), keep no real player out: past MaxPending the oldest
// welcomed one is pushed out. (Never pushing a welcomed one out, the host
// closed every newcomer as busy until its client gave up.)
func TestWelcomedSquattersKeepNoPlayerOut(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		const pending = 32 // the default MaxPending
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{MaxPeers: 8, MaxPending: pending})
		squat := func() transport.Conn {
			tc, err := r.net.Dial(context.Background(), "host")
			if err != nil {
				t.Fatal(err)
			}
			w := wire.NewWriter(nil)
			w.U8(uint8(wire.KindHello))
			w.U16(wire.Version)
			w.String("squatter")
			w.U8(0)
			w.U64(0)
			tc.SendMessage(transport.LaneControl, w.Bytes())
			return tc
		}
		squatters := make([]transport.Conn, pending)
		for i := range squatters {
			squatters[i] = squat()
		}
		redials := 0
		var real *resumer
		playedAfter := time.Duration(-1)
		const dialAt, run = 60, 30 * 60
		for step := range run {
			if step == dialAt {
				real = r.dial("real", "host")
			}
			r.step()
			for i, s := range squatters {
				for {
					if _, _, ok := s.RecvMessage(); !ok {
						break
					}
				}
				if s.Err() != nil {
					squatters[i] = squat()
					redials++
				}
			}
			if real != nil && playedAfter < 0 && real.cl.State() == Playing {
				playedAfter = time.Duration(step-dialAt) * 16666 * time.Microsecond
			}
		}
		st := r.host.Stats()
		t.Logf("squatter redials %d in 30 s (%.1f/s); host evicted %d; real client: %v, err %v, played after %v", redials, float64(redials)/30, st.Evicted, real.cl.State(), real.cl.Err(), playedAfter)
		if playedAfter < 0 {
			t.Fatalf("%d squatters redialing %.1f times a second kept a real player out for 29 s: it is %v (%v)", pending, float64(redials)/30, real.cl.State(), real.cl.Err())
		}
	})
}

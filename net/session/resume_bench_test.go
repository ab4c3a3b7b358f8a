package session

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/wire"
)

// BenchmarkResumeOverQUIC breaks a client's QUIC connection on loopback
// (the client closes it for a timeout) and times it back to playing: the
// break noticed, a new QUIC dial, Resume and Resumed, the join of a world of
// 300 entities into the world held, FINAL. Host and client step at 60 Hz in
// real time, so the figure counts whole steps. ms/resume is the median.
func BenchmarkResumeOverQUIC(b *testing.B) {
	qh := startQUICHostWith(b, 300, HostConfig{MaxResumesPerPeer: 1 << 20}, quicnet.Config{}, nil)
	tr, err := quicnet.New(quicnet.Config{Fingerprint: qh.pin})
	if err != nil {
		b.Fatal(err)
	}
	dial := func(ctx context.Context) (transport.Conn, error) { return tr.Dial(ctx, qh.addr) }
	tc, err := dial(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	w := ecs.NewWorld()
	c := &testClient{w: w, reg: replicate.NewRegistry(w), sched: ecs.NewSchedule(w, clock.Real{}, 0)}
	c.cl, err = NewClient(c.sched, c.reg, tc, ClientConfig{Name: "bench", Dial: dial})
	if err != nil {
		b.Fatal(err)
	}
	defer c.cl.Close()
	tick := time.NewTicker(ecs.DefaultStep)
	defer tick.Stop()
	until := func(done func() bool) {
		for deadline := time.Now().Add(20 * time.Second); !done(); {
			if time.Now().After(deadline) {
				b.Fatalf("not done in 20 s: %v %v", c.cl.State(), c.cl.Err())
			}
			<-tick.C
			c.sched.Advance()
		}
	}
	until(func() bool { return c.cl.State() == Playing })
	var took []time.Duration
	b.ResetTimer()
	for range b.N {
		resumes := c.cl.Resumes()
		start := time.Now()
		c.cl.Conn().Transport().Close(transport.CloseTimeout, "the benchmark broke it")
		until(func() bool { return c.cl.State() == Playing && c.cl.Resumes() > resumes })
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms/resume")
	b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "max-ms/resume")
}

// BenchmarkGuessedResume is what one Resume with a guessed token costs the
// host: the connection taken, the Resume decoded, one hash, one
// constant-time comparison, one Reject, with 1 or 64 peers known. The cost
// is the same whatever the number of peers and whatever the guess.
func BenchmarkGuessedResume(b *testing.B) {
	for _, known := range []int{1, 64} {
		b.Run(fmt.Sprintf("known=%d", known), func(b *testing.B) {
			clk := clock.NewFake(time.Unix(1000, 0))
			n, _ := mem.NewNetwork(clk, mem.Config{ToHost: condition.Config{}, ToClient: condition.Config{}})
			l, _ := n.Listen("host")
			hw := ecs.NewWorld()
			hsched := ecs.NewSchedule(hw, clk, 0)
			host := NewHost(hsched, replicate.NewRegistry(hw), HostConfig{Clock: clk, MaxResumesPerSecond: 1 << 30})
			peers := make([]KnownPeer, known)
			for i := range peers {
				peers[i] = KnownPeer{Peer: ecs.PeerID(i + 1), Name: "p"}
				rand.Read(peers[i].TokenHash[:])
			}
			if err := host.RestorePeers(peers, time.Hour); err != nil {
				b.Fatal(err)
			}
			var tok [wire.TokenLen]byte
			msg := wire.Resume{Version: wire.Version, Flags: wire.ResumeHoldsWorld, PeerID: uint32(known), Token: tok}.Encode(nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				tok[0], tok[1] = byte(i), byte(i>>8)
				copy(msg[len(msg)-wire.TokenLen:], tok[:])
				tc, _ := n.Dial(context.Background(), "host")
				tc.SendMessage(transport.LaneControl, msg)
				hc, _ := l.Accept(context.Background())
				host.Accept(hc)
				hsched.Step()
				tc.Close(transport.CloseNormal, "")
			}
			b.StopTimer()
			if st := host.Stats(); st.Resumed != 0 || st.ResumeRefused < uint64(b.N) {
				b.Fatalf("host %+v after %d guesses", st, b.N)
			}
		})
	}
}

package session

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/quicnet"
)

// BenchmarkJoinQUIC measures a join of a 100,000-entity world over real QUIC
// on loopback: the wall time from dial to playing (ms/join), with the host
// stepping at its 60 Hz and the client stepping as fast as it can (a loading
// screen: each step a frame; with nothing to apply it waits for the
// network), the join's goodput (its pages' bytes over that time), beside a
// raw quic-go stream that carries as many bytes, dial to last byte, in the
// same run (MB/s-raw); goodput-ratio is the first over the second.
//
// max-frame-ms is the longest client frame from dial to playing, of all the
// joins the benchmark ran; join-max-frame-ms is the median over those joins
// of each join's longest frame, what a join usually costs a frame. Beside
// them, of the frames that began with join pages waiting: max-frame-cpu-ms is the
// most CPU time the client's thread spent in one (its CPU clock read around
// the frame), what the frame's own work took; max-frame-ran-ms is the
// longest such frame less the time its thread waited on the kernel's run
// queue meanwhile (Linux's schedstat), runnable with no core free: the
// frame as it would have been with a core of its own, which the host, both
// QUIC stacks and the collector share here. The readings are of the thread
// the frame began on, whichever thread reads them, and a frame that ends on
// another thread is not counted in these two; one that left its thread and
// came back counts what ran there meanwhile, so at most the frame's wall
// time. (Locking the client's goroutine to its thread made the longest
// frames and the joins longer: each wait for the network hands the thread
// off and back.) A first join, not counted, warms both sides up.
func BenchmarkJoinQUIC(b *testing.B) {
	b.Run("entities-100000", func(b *testing.B) {
		const n = 100_000
		qh := startQUICHost(b, n, HostConfig{MaxPeers: 4}, quicnet.Config{})
		raw := startRawStream(b)
		ct, err := quicnet.New(quicnet.Config{Fingerprint: qh.pin})
		if err != nil {
			b.Fatal(err)
		}
		// One join first, not counted: the host's first steps take in the
		// world it was given, and both sides' code and memory warm up.
		joinFast(b, ct, qh.addr, n)
		raw.send(b, 1<<20)
		var joinTime, rawTime time.Duration
		var joinBytes uint64
		var maxFrame, maxFrameCPU, maxFrameRan time.Duration
		var joinMax []time.Duration // each join's longest frame
		cpuRead, ranRead := true, true
		for b.Loop() {
			j := joinFast(b, ct, qh.addr, n)
			joinTime += j.wall
			joinBytes += j.bytes
			maxFrame = max(maxFrame, j.maxFrame)
			joinMax = append(joinMax, j.maxFrame)
			maxFrameCPU = max(maxFrameCPU, j.maxFrameCPU)
			maxFrameRan = max(maxFrameRan, j.maxFrameRan)
			cpuRead, ranRead = cpuRead && j.cpuRead, ranRead && j.ranRead
			rawTime += raw.send(b, int(j.bytes))
		}
		runs := float64(b.N)
		mbps := func(bytes uint64, d time.Duration) float64 { return float64(bytes) / d.Seconds() / 1e6 }
		b.ReportMetric(joinTime.Seconds()*1000/runs, "ms/join")
		b.ReportMetric(mbps(joinBytes, joinTime), "MB/s-join")
		b.ReportMetric(mbps(joinBytes, rawTime), "MB/s-raw")
		b.ReportMetric(rawTime.Seconds()/joinTime.Seconds(), "goodput-ratio")
		b.ReportMetric(maxFrame.Seconds()*1000, "max-frame-ms")
		slices.Sort(joinMax)
		b.ReportMetric(joinMax[len(joinMax)/2].Seconds()*1000, "join-max-frame-ms")
		// The two readings of the thread, where the system gives them.
		if cpuRead {
			b.ReportMetric(maxFrameCPU.Seconds()*1000, "max-frame-cpu-ms")
		}
		if ranRead {
			b.ReportMetric(maxFrameRan.Seconds()*1000, "max-frame-ran-ms")
		}
		b.ReportMetric(float64(joinBytes)/runs/n, "B/entity")
	})
}

type joinRun struct {
	wall, maxFrame time.Duration
	maxFrameCPU    time.Duration // of the frames that began with pages waiting
	maxFrameRan    time.Duration // of those, wall time less the thread's run-queue wait
	cpuRead        bool          // a frame's CPU time was read (the system says it)
	ranRead        bool          // a frame's run-queue wait was read
	bytes          uint64
}

// joinFast dials the host and steps the client as fast as it can until it
// plays, and checks that it holds the n entities.
func joinFast(b *testing.B, ct *quicnet.Transport, addr string, n int) joinRun {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w := ecs.NewWorld()
	reg := replicate.NewRegistry(w)
	sched := ecs.NewSchedule(w, clock.Real{}, 0)
	start := time.Now()
	tc, err := ct.Dial(ctx, addr)
	if err != nil {
		b.Fatal(err)
	}
	cl, err := NewClient(sched, reg, tc, ClientConfig{Name: "joiner"})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	var arrived <-chan struct{} // nil: the idle wait is the timer's
	if a, ok := tc.(interface{ Arrived() <-chan struct{} }); ok {
		arrived = a.Arrived()
	}
	idle := time.NewTimer(time.Millisecond)
	defer idle.Stop()
	var qc queueClock
	defer qc.close()
	var run joinRun
	for cl.State() != Playing {
		if cl.State() == Closed || ctx.Err() != nil {
			got, total := cl.Progress()
			b.Fatalf("join: %v %v, %d of %d entities", cl.State(), cl.Err(), got, total)
		}
		// Only frames with pages waiting read the thread's CPU clock and
		// run-queue wait (system calls): the idle ones, thousands a join,
		// stay as cheap.
		busy := cl.Replicator() != nil && cl.Replicator().Waiting() > 0
		var tid int
		var cpu, queued time.Duration
		var queuedOK bool
		if busy {
			tid = gettid()
			cpu = threadCPUOf(tid)
			queued, queuedOK = qc.queued(tid)
		}
		f := time.Now()
		sched.Step()
		frame := time.Since(f)
		run.maxFrame = max(run.maxFrame, frame)
		if busy && gettid() == tid {
			// The readings bracket the frame from a little outside it: a
			// wait for a core just before or after is taken from it too.
			if now := threadCPUOf(tid); cpu > 0 && now > 0 {
				run.maxFrameCPU = max(run.maxFrameCPU, now-cpu)
				run.cpuRead = true
			}
			if now, ok := qc.queued(tid); queuedOK && ok {
				run.maxFrameRan = max(run.maxFrameRan, frame-(now-queued))
				run.ranRead = true
			}
		}
		if cl.Replicator() == nil || cl.Replicator().Waiting() == 0 {
			// Nothing to apply: let the network run, as a loading screen
			// with nothing to draw waits, until the connection brings
			// something or a millisecond passes. (A loop that spun
			// through runtime.Gosched kept its P from polling the
			// network: what arrived waited for the other P or for the
			// runtime's 10 ms poll.)
			idle.Reset(time.Millisecond)
			select {
			case <-arrived:
			case <-idle.C:
			}
		}
	}
	run.wall = time.Since(start)
	run.bytes = cl.Replicator().Stats().JoinBytes
	if got := w.Networked(); got != n {
		b.Fatalf("the client holds %d entities, the host %d", got, n)
	}
	return run
}

// rawStream is a bare quic-go listener that reads one unidirectional stream
// per connection to its end, for the goodput of quic-go itself.
type rawStream struct {
	ln   *quic.Listener
	tls  *tls.Config
	done chan struct{}
}

func startRawStream(b *testing.B) *rawStream {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		b.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	ln, err := quic.ListenAddr("127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"raw"}}, &quic.Config{})
	if err != nil {
		b.Fatal(err)
	}
	r := &rawStream{ln: ln, tls: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"raw"}}, done: make(chan struct{}, 1)}
	go func() {
		for {
			c, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			go func() {
				s, err := c.AcceptUniStream(context.Background())
				if err == nil {
					io.Copy(io.Discard, s)
				}
				r.done <- struct{}{}
				c.CloseWithError(0, "")
			}()
		}
	}()
	b.Cleanup(func() { ln.Close() })
	return r
}

// send dials, writes size bytes on a stream and returns the time from the
// dial to the listener's reading the last of them.
func (r *rawStream) send(b *testing.B, size int) time.Duration {
	data := make([]byte, size)
	start := time.Now()
	c, err := quic.DialAddr(context.Background(), r.ln.Addr().String(), r.tls, &quic.Config{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := c.OpenUniStream()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Write(data); err != nil {
		b.Fatal(err)
	}
	s.Close()
	<-r.done
	d := time.Since(start)
	c.CloseWithError(0, "")
	return d
}

package condition

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// arrival is one packet taken out of a link.
type arrival struct {
	id        uint64
	sent, got time.Time
}

// drive pushes n 8-byte packets (their id) into l, one every interval,
// popping what is due as time advances, then drains the link. It returns the
// arrivals in the order they came out.
func drive(t testing.TB, l *Link, n int, interval time.Duration, size int) []arrival {
	t.Helper()
	if size < 8 {
		size = 8
	}
	sentAt := make([]time.Time, n)
	pkt := make([]byte, size)
	var out []arrival
	pop := func(now time.Time) {
		for {
			p, _, ok := l.Pop(now)
			if !ok {
				return
			}
			id := binary.LittleEndian.Uint64(p)
			out = append(out, arrival{id: id, sent: sentAt[id], got: now})
		}
	}
	now := t0
	for i := range n {
		sentAt[i] = now
		binary.LittleEndian.PutUint64(pkt, uint64(i))
		l.Push(now, pkt, nil)
		now = now.Add(interval)
		pop(now)
	}
	for l.Len() > 0 {
		next, _ := l.Next()
		now = next
		pop(now)
	}
	return out
}

func newLink(t testing.TB, cfg Config) *Link {
	t.Helper()
	l, err := NewLink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Fatalf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
	}
}

func TestPerfectLinkIsFIFOAndImmediate(t *testing.T) {
	l := newLink(t, Config{})
	out := drive(t, l, 1000, time.Millisecond, 8)
	if len(out) != 1000 {
		t.Fatalf("%d of 1000 arrived", len(out))
	}
	for i, a := range out {
		if a.id != uint64(i) || !a.got.Equal(a.sent.Add(time.Millisecond)) && !a.got.Equal(a.sent) {
			t.Fatalf("packet %d: id %d, delay %v", i, a.id, a.got.Sub(a.sent))
		}
	}
}

func TestRandomLossRate(t *testing.T) {
	l := newLink(t, Config{Loss: 0.20, Seed: 1})
	out := drive(t, l, 10_000, time.Millisecond, 8)
	lost := 1 - float64(len(out))/10_000
	within(t, "loss rate", lost, 0.20, 0.02)
	if s := l.Stats(); s.Lost != uint64(10_000-len(out)) || s.Delivered != uint64(len(out)) || s.Sent != 10_000 {
		t.Fatalf("stats %+v disagree with %d delivered", s, len(out))
	}
}

func TestDelayStaysWithinJitter(t *testing.T) {
	const lat, jit = 100 * time.Millisecond, 30 * time.Millisecond
	l := newLink(t, Config{Latency: lat, Jitter: jit, Seed: 2})
	out := drive(t, l, 10_000, time.Millisecond, 8)
	if len(out) != 10_000 {
		t.Fatalf("%d of 10000 arrived with no loss configured", len(out))
	}
	var sum time.Duration
	low, high := 0, 0
	for _, a := range out {
		d := a.got.Sub(a.sent)
		// Pop is driven at 1 ms steps, so a packet may come out up to 1 ms late.
		if d < lat-jit || d > lat+jit+time.Millisecond {
			t.Fatalf("delay %v outside [%v, %v]", d, lat-jit, lat+jit)
		}
		sum += d
		if d < lat-jit/2 {
			low++
		}
		if d > lat+jit/2 {
			high++
		}
	}
	mean := sum / time.Duration(len(out))
	if mean < lat-2*time.Millisecond || mean > lat+3*time.Millisecond {
		t.Fatalf("mean delay %v, want about %v", mean, lat)
	}
	// Uniform over ±30 ms: about a quarter below -15 ms and a quarter above +15 ms.
	within(t, "share below lat-jit/2", float64(low)/10_000, 0.25, 0.03)
	within(t, "share above lat+jit/2", float64(high)/10_000, 0.25, 0.03)
}

func TestDuplicateRate(t *testing.T) {
	l := newLink(t, Config{Latency: 10 * time.Millisecond, Duplicate: 0.05, Seed: 3})
	out := drive(t, l, 10_000, time.Millisecond, 8)
	seen := make(map[uint64]int)
	for _, a := range out {
		seen[a.id]++
	}
	dups := 0
	for id := range uint64(10_000) {
		switch seen[id] {
		case 1:
		case 2:
			dups++
		default:
			t.Fatalf("packet %d arrived %d times", id, seen[id])
		}
	}
	within(t, "duplicate rate", float64(dups)/10_000, 0.05, 0.01)
	if l.Stats().Duplicated != uint64(dups) {
		t.Fatalf("Duplicated = %d, counted %d", l.Stats().Duplicated, dups)
	}
}

func TestReorderRate(t *testing.T) {
	// No jitter: only held-back packets come out of order; each is overtaken
	// by the packets sent during its extra hold (ReorderDelay 25 ms).
	l := newLink(t, Config{Latency: 50 * time.Millisecond, Reorder: 0.10, Seed: 4})
	out := drive(t, l, 10_000, time.Millisecond, 8)
	late := 0
	var highest uint64
	for i, a := range out {
		if i > 0 && a.id < highest {
			late++
		}
		highest = max(highest, a.id)
	}
	within(t, "reordered share", float64(late)/10_000, 0.10, 0.02)
	if got := float64(l.Stats().Reordered) / 10_000; math.Abs(got-0.10) > 0.02 {
		t.Fatalf("Reordered share %v", got)
	}
}

func TestBurstLoss(t *testing.T) {
	// Bursts start with probability 1% and end with 10% per packet: 1/11 of
	// the packets fall in bursts, 10 packets long on average.
	l := newLink(t, Config{Burst: Burst{Enter: 0.01, Exit: 0.10, Loss: 1}, Seed: 5})
	const n = 100_000
	out := drive(t, l, n, time.Millisecond, 8)
	within(t, "burst loss rate", 1-float64(len(out))/n, 1.0/11, 0.015)

	got := make([]bool, n)
	for _, a := range out {
		got[a.id] = true
	}
	runs, runLen := 0, 0
	for i := 0; i < n; i++ {
		if !got[i] && (i == 0 || got[i-1]) {
			runs++
		}
		if !got[i] {
			runLen++
		}
	}
	within(t, "mean burst length", float64(runLen)/float64(runs), 10, 1.5)
	if s := l.Stats(); s.BurstLost != uint64(n-len(out)) || s.Lost != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestBandwidthCap(t *testing.T) {
	// 100 kB/s with a 10 kB queue, offered 1,000-byte packets at 200 kB/s.
	const bw, queue, size = 100_000, 10_000, 1000
	l := newLink(t, Config{Bandwidth: bw, QueueBytes: queue, Seed: 6})
	out := drive(t, l, 2000, 5*time.Millisecond, size) // 10 s
	// Delivery never beats the link rate: consecutive packets ≥ 10 ms apart
	// (Pop is driven at 5 ms steps, so compare per second instead).
	perSecond := map[int64]int{}
	for _, a := range out {
		perSecond[a.got.Sub(t0).Milliseconds()/1000] += size
	}
	for sec, bytes := range perSecond {
		if bytes > bw+size {
			t.Fatalf("second %d delivered %d bytes, cap %d", sec, bytes, bw)
		}
	}
	// It runs at the cap, and the overflow is tail-dropped: about half.
	within(t, "delivered share", float64(len(out))/2000, 0.5, 0.03)
	if s := l.Stats(); s.QueueDropped != uint64(2000-len(out)) {
		t.Fatalf("QueueDropped = %d, %d missing", s.QueueDropped, 2000-len(out))
	}
	// No packet waits longer than the queue takes to drain (100 ms) plus its own
	// transmission (10 ms) and the 5 ms driving step.
	for _, a := range out {
		if d := a.got.Sub(a.sent); d > 115*time.Millisecond {
			t.Fatalf("packet %d waited %v", a.id, d)
		}
	}
}

func TestLimitBoundsHeldPackets(t *testing.T) {
	l := newLink(t, Config{Latency: time.Second, Limit: 100})
	for range 150 {
		l.Push(t0, make([]byte, 10), nil)
	}
	if l.Len() != 100 || l.Stats().LimitDropped != 50 {
		t.Fatalf("held %d, dropped %d", l.Len(), l.Stats().LimitDropped)
	}
	if _, _, ok := l.Pop(t0.Add(999 * time.Millisecond)); ok {
		t.Fatal("a packet came out before its latency")
	}
	if _, _, ok := l.Pop(t0.Add(time.Second)); !ok {
		t.Fatal("no packet came out at its due time")
	}
}

func TestSameSeedSameRun(t *testing.T) {
	cfg := Config{Latency: 40 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.1,
		Burst: Burst{Enter: 0.02, Exit: 0.3, Loss: 0.8}, Duplicate: 0.05, Reorder: 0.05,
		Bandwidth: 500_000, QueueBytes: 20_000, Seed: 42}
	a := drive(t, newLink(t, cfg), 5000, time.Millisecond, 200)
	b := drive(t, newLink(t, cfg), 5000, time.Millisecond, 200)
	if len(a) != len(b) {
		t.Fatalf("runs delivered %d and %d packets", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("runs differ at arrival %d: %+v vs %+v", i, a[i], b[i])
		}
	}
	cfg.Seed = 43
	c := drive(t, newLink(t, cfg), 5000, time.Millisecond, 200)
	same := len(a) == len(c)
	for i := 0; same && i < len(a); i++ {
		same = a[i] == c[i]
	}
	if same {
		t.Fatal("a different seed gave the same run")
	}
}

func TestSetConfigKeepsHeldPackets(t *testing.T) {
	l := newLink(t, Config{Latency: 100 * time.Millisecond})
	l.Push(t0, []byte{1}, nil)
	if err := l.SetConfig(Config{Latency: 10 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	l.Push(t0, []byte{2}, nil)
	if p, _, ok := l.Pop(t0.Add(10 * time.Millisecond)); !ok || p[0] != 2 {
		t.Fatal("the packet sent after SetConfig did not take the new latency")
	}
	if p, _, ok := l.Pop(t0.Add(100 * time.Millisecond)); !ok || p[0] != 1 {
		t.Fatal("the held packet lost its delivery time")
	}
	if err := l.SetConfig(Config{Loss: 2}); err == nil {
		t.Fatal("SetConfig took a loss of 2")
	}
}

func TestValidate(t *testing.T) {
	bad := []Config{
		{Loss: -0.1}, {Loss: 1.1}, {Loss: math.NaN()}, {Duplicate: 2}, {Reorder: -1},
		{Burst: Burst{Enter: 0.1}}, {Latency: -1}, {Jitter: -1}, {Bandwidth: -1}, {Limit: -1},
	}
	for _, cfg := range bad {
		if _, err := NewLink(cfg); err == nil {
			t.Errorf("NewLink(%+v) accepted it", cfg)
		}
	}
	if err := (Config{Loss: 1, Burst: Burst{Enter: 1, Exit: 1, Loss: 1}}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestPushPopAllocatesNothing(t *testing.T) {
	l := newLink(t, Config{Latency: 5 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.1, Seed: 7})
	pkt := make([]byte, 1200)
	now := t0
	step := func() {
		l.Push(now, pkt, nil)
		now = now.Add(time.Millisecond)
		for _, _, ok := l.Pop(now); ok; _, _, ok = l.Pop(now) {
		}
	}
	for range 100 {
		step() // warm up the buffers and the heap
	}
	if a := testing.AllocsPerRun(1000, step); a != 0 {
		t.Fatalf("%v allocations per push/pop", a)
	}
}

// BenchmarkLinkPushPop measures one packet through a conditioned link.
func BenchmarkLinkPushPop(b *testing.B) {
	l := newLink(b, Config{Latency: 5 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.1, Seed: 8})
	pkt := make([]byte, 1200)
	now := t0
	b.ReportAllocs()
	for b.Loop() {
		l.Push(now, pkt, nil)
		now = now.Add(100 * time.Microsecond)
		for _, _, ok := l.Pop(now); ok; _, _, ok = l.Pop(now) {
		}
	}
}

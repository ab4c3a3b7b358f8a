package session

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/quicnet"
)

// worldImage is every networked entity of a world at wire precision: its
// owner and each component's quantized image, by network id.
type worldImage map[ecs.NetID][]int32

// imageOf records w's networked entities.
func imageOf(w *ecs.World, reg *replicate.Registry) worldImage {
	img := make(worldImage, w.Networked())
	var q [replicate.MaxFields]int32
	for slot := int32(0); int(slot) < w.NetSlots(); slot++ {
		e, id, ok := w.SlotEntity(slot)
		if !ok {
			continue
		}
		ni, _ := w.Identity(e)
		v := []int32{int32(ni.Owner)}
		for c := range replicate.Component(reg.Len()) {
			n := reg.Fields(c)
			reg.Quantize(e, c, q[:n])
			v = append(v, q[:n]...)
		}
		img[id] = v
	}
	return img
}

// diff compares a client's world with the host's image, entity by entity,
// and describes the first difference ("" when they are the same).
func (want worldImage) diff(w *ecs.World, reg *replicate.Registry) string {
	got := imageOf(w, reg)
	if len(got) != len(want) {
		return fmt.Sprintf("the host has %d networked entities, the client %d", len(want), len(got))
	}
	for id, v := range want {
		g, ok := got[id]
		if !ok {
			return fmt.Sprintf("the client lacks entity %d", id)
		}
		for i := range v {
			if g[i] != v[i] {
				return fmt.Sprintf("entity %d: host %v, client %v", id, v, g)
			}
		}
	}
	return ""
}

// joinRepeatedly has `parallel` clients at a time join a QUIC host of n
// entities on loopback until `joins` joins are done, and checks that every
// client holds exactly the host's world when its join ends.
func joinRepeatedly(t *testing.T, n, joins, parallel int) {
	var want worldImage
	cfg := HostConfig{MaxPeers: 2 * parallel, MaxPeersPerAddress: 2 * parallel, MaxPendingPerAddress: 2 * parallel}
	qh := startQUICHostWith(t, n, cfg, quicnet.Config{MaxHandshakesPerAddress: 2 * parallel},
		func(w *ecs.World, reg *replicate.Registry) { want = imageOf(w, reg) })
	ct, err := quicnet.New(quicnet.Config{Fingerprint: qh.pin})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var mu sync.Mutex
	var failures []string
	fail := func(f string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(f, args...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	next := make(chan int, joins)
	for i := range joins {
		next <- i
	}
	close(next)
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if msg := joinOnce(ct, qh.addr, i, want); msg != "" {
					fail("join %d of a %d-entity world: %s", i, n, msg)
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if len(failures) > 0 {
		t.Fatalf("%d of %d joins of a %d-entity world did not hold the host's world", len(failures), joins, n)
	}
	t.Logf("%d joins of a %d-entity world, %d at a time: %v, every client held the host's world", joins, n, parallel, time.Since(start).Round(time.Millisecond))
}

// joinOnce dials the host, steps the client in real time until its join ends
// and returns how its world differs from want ("" when it is the same).
func joinOnce(ct *quicnet.Transport, addr string, i int, want worldImage) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tc, err := ct.Dial(ctx, addr)
	if err != nil {
		return fmt.Sprintf("dial: %v", err)
	}
	w := ecs.NewWorld()
	reg := replicate.NewRegistry(w)
	sched := ecs.NewSchedule(w, clock.Real{}, 0)
	cl, err := NewClient(sched, reg, tc, ClientConfig{Name: fmt.Sprintf("joiner-%d", i)})
	if err != nil {
		return err.Error()
	}
	defer cl.Close()
	tick := time.NewTicker(ecs.DefaultStep / 4)
	defer tick.Stop()
	for cl.State() != Playing {
		if cl.State() == Closed {
			return fmt.Sprintf("closed: %v", cl.Err())
		}
		select {
		case <-ctx.Done():
			got, total := cl.Progress()
			return fmt.Sprintf("not joined after 20 s: %v, %d of %d entities", cl.State(), got, total)
		case <-tick.C:
		}
		sched.Advance()
	}
	return want.diff(w, reg)
}

// TestJoinIntegrityOverQUIC repeats joins over real QUIC on loopback and
// compares every client's networked entities with the host's, one by one:
// a join never loses a page, whatever order the lanes deliver in. The full
// counts (200 joins of a 20,000-entity world, 20 of a 100,000-entity world)
// run without the race detector (make test runs them in a pass of their own);
// under it, a tenth of them.
func TestJoinIntegrityOverQUIC(t *testing.T) {
	small, large := 200, 20
	if raceEnabled || testing.Short() {
		small, large = 20, 4
	}
	t.Run("entities-20000", func(t *testing.T) { joinRepeatedly(t, 20_000, small, 4) })
	t.Run("entities-100000", func(t *testing.T) { joinRepeatedly(t, 100_000, large, 2) })
}

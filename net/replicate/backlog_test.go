package replicate

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// backlogs returns the Backlog messages among msgs, decoded: frame, held,
// kbit, every.
func (r *rig) backlogs(msgs []int) [][4]int {
	var got [][4]int
	for _, i := range msgs {
		m := r.out.msgs[i]
		if wire.Kind(m[0]) != wire.KindBacklog {
			continue
		}
		rd := wire.NewReader(m[1:])
		got = append(got, [4]int{int(rd.Uvarint32()), rd.Count(maxBacklog), rd.Count(maxBacklog), rd.Count(maxBacklog)})
		if err := rd.Finish(); err != nil {
			r.t.Fatalf("backlog %d: %v", i, err)
		}
	}
	return got
}

// A budget too small for what changes: the peer is told how many items
// waited, at once, then every quarter of a second (15 host frames at 60
// steps a second) while the budget stays full, and with a 0 once it is not;
// its client's Backlog says so, and reads 0 a second after the last it
// applied if the 0 is lost. The host's count of Backlogs is the client's.
func TestBacklogTellsTheClientItsBudgetIsFull(t *testing.T) {
	for _, loseEnd := range []bool{false, true} {
		name := map[bool]string{false: "delivered", true: "end-lost"}[loseEnd]
		t.Run(name, func(t *testing.T) {
			r := newRig(t, HostConfig{BitsPerSecond: 40_000})
			clk := clock.NewFake(time.Unix(1000, 0))
			r.c.cfg.Clock = clk
			// Every entity spawned and acknowledged, which the budget
			// spreads over many ticks.
			ents := r.spread(300, 10)
			if held, kbit := r.c.Backlog(); held != 0 || kbit != 0 || r.h.Peer(1).Stats().Backlog != 0 {
				t.Fatalf("after the spawns: Backlog %d, %d, host's %d", held, kbit, r.h.Peer(1).Stats().Backlog)
			}
			sent := r.h.Peer(1).Stats().Backlogs
			var told [][4]int
			for step := range 40 {
				for _, e := range ents {
					r.move(e, 50) // urgent: each is due at once
				}
				r.s.Step()
				clk.Advance(time.Second / 60)
				msgs := r.next()
				told = append(told, r.backlogs(msgs)...)
				for _, i := range msgs {
					r.deliver(i)
				}
				if step == 0 && len(told) != 1 {
					t.Fatalf("the first send tick past the budget sent %d Backlogs, want 1", len(told))
				}
			}
			if len(told) != 3 {
				t.Fatalf("40 full send ticks sent Backlogs %v, want 3 (at once, then every 15 frames)", told)
			}
			for i, b := range told {
				if b[1] == 0 || b[2] != 40 || b[3] != 15 {
					t.Fatalf("Backlog %d says %d held, %d kbit/s, every %d frames; want some held, 40, 15 (a quarter of a second at 60 steps)", i, b[1], b[2], b[3])
				}
				if i > 0 && b[0]-told[i-1][0] != 15 {
					t.Fatalf("Backlogs at frames %v, want 15 apart", told)
				}
			}
			held, kbit := r.c.Backlog()
			if last := told[len(told)-1]; held != last[1] || kbit != 40 {
				t.Fatalf("client's Backlog %d, %d; the host's last said %d, 40", held, kbit, last[1])
			}
			if st := r.h.Peer(1).Stats(); st.Backlog == 0 || st.Deferred == 0 {
				t.Fatalf("host's PeerStats Backlog %d, Deferred %d: want both above 0", st.Backlog, st.Deferred)
			}
			// The world falls still: the backlog drains, told as it goes,
			// and a 0 says it is gone (lost, in end-lost).
			var end [][4]int
			for range 90 {
				r.s.Step()
				clk.Advance(time.Second / 60)
				msgs := r.next()
				b := r.backlogs(msgs)
				end = append(end, b...)
				for _, i := range msgs {
					if loseEnd && len(b) > 0 && b[0][1] == 0 && wire.Kind(r.out.msgs[i][0]) == wire.KindBacklog {
						r.lose(i)
						continue
					}
					r.deliver(i)
				}
			}
			for i, b := range end {
				if last := i == len(end)-1; (b[1] == 0) != last {
					t.Fatalf("the draining backlog sent %v, want some held in each but the last, 0 in it", end)
				}
			}
			total := sent + uint64(len(told)+len(end))
			if st := r.h.Peer(1).Stats(); st.Backlog != 0 || st.Backlogs != total {
				t.Fatalf("host's PeerStats Backlog %d, Backlogs %d; want 0, %d", st.Backlog, st.Backlogs, total)
			}
			held, _ = r.c.Backlog()
			if !loseEnd {
				if held != 0 {
					t.Fatalf("after the 0, the client's Backlog says %d", held)
				}
				if got := r.c.Stats().Backlogs; got != total {
					t.Fatalf("client applied %d Backlogs, the host sent %d", got, total)
				}
				return
			}
			if held == 0 {
				t.Fatal("with the 0 lost, the client's Backlog read 0 within the second")
			}
			clk.Advance(time.Second)
			if held, kbit := r.c.Backlog(); held != 0 || kbit != 0 {
				t.Fatalf("a second past its last Backlog the client's says %d, %d", held, kbit)
			}
		})
	}
}

// A Backlog older than the one applied (reordered) changes nothing; one
// that does not decode is malformed.
func TestBacklogReorderedAndMalformed(t *testing.T) {
	c := NewClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1, Clock: clock.NewFake(time.Unix(1000, 0))})
	for _, m := range [][]byte{appendBacklog(nil, 20, 7, 256, 15), appendBacklog(nil, 19, 0, 256, 15)} {
		if ok, err := c.HandleDatagram(wire.KindBacklog, m); !ok || err != nil {
			t.Fatalf("HandleDatagram: %v %v", ok, err)
		}
	}
	if held, kbit := c.Backlog(); held != 7 || kbit != 256 {
		t.Fatalf("after a newer and an older Backlog: %d, %d; want the newer's 7, 256", held, kbit)
	}
	bad := append(appendBacklog(nil, 21, 1, 1, 15), 0)
	if _, err := c.HandleDatagram(wire.KindBacklog, bad); err == nil {
		t.Fatal("a Backlog with a trailing byte was taken")
	}
	if _, err := c.HandleDatagram(wire.KindBacklog, appendBacklog(nil, 22, 1, 1, 0)); err == nil {
		t.Fatal("a Backlog of no interval was taken")
	}
	if st := c.Stats(); st.Malformed != 2 || st.Backlogs != 2 {
		t.Fatalf("stats: Malformed %d, Backlogs %d; want 2, 2", st.Malformed, st.Backlogs)
	}
}

// A budget on the edge, full one tick and not the next (17 entities moved
// every other step on 40 kbit/s), is told at most once an interval: the
// first tick that held items back at once, then the most held back in an
// interval, every 15 frames, not a Backlog at every change between full
// and not (26 in a second before).
func TestBacklogOnTheEdgeIsToldOnceAnInterval(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 40_000})
	ents := r.spread(17, 10)
	var told [][4]int
	flapped := 0
	for step := range 60 { // a second
		if step%2 == 0 {
			for _, e := range ents {
				r.move(e, 50)
			}
		}
		r.s.Step()
		if step%2 == 1 && r.h.Peer(1).Stats().Backlog == 0 {
			flapped++
		}
		msgs := r.next()
		told = append(told, r.backlogs(msgs)...)
		for _, i := range msgs {
			r.deliver(i)
		}
	}
	if flapped == 0 {
		t.Fatal("no tick between the moves drained the budget: the test tests nothing")
	}
	if len(told) < 2 || len(told) > 5 {
		t.Fatalf("a second on the edge sent Backlogs %v; want the first, then one every 15 frames", told)
	}
	for i := 1; i < len(told); i++ {
		if told[i][0]-told[i-1][0] < 15 || told[i][1] == 0 {
			t.Fatalf("Backlogs %v: want each 15 frames or more after the one before, each saying some held back", told)
		}
	}
}

// At 30 steps a second a quarter of a second is 7.5 frames: Backlogs go 8
// frames apart, not 7 (233 ms); a budget of 20.5 kbit/s is said as 21.
func TestBacklogIntervalRoundsUp(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 20_500, StepRate: 30})
	ents := r.spread(300, 10)
	var told [][4]int
	for range 40 {
		for _, e := range ents {
			r.move(e, 50)
		}
		told = append(told, r.stepTelling()...)
	}
	if len(told) < 3 {
		t.Fatalf("40 full send ticks sent Backlogs %v", told)
	}
	for i, b := range told {
		if b[3] != 8 || b[2] != 21 || i > 0 && b[0]-told[i-1][0] != 8 {
			t.Fatalf("Backlogs %v: want each saying a budget of 21 kbit/s, and saying and keeping an interval of 8 frames", told)
		}
	}
}

// A host that sends every 1.5 s (10 steps a second, SendEvery 15) says so
// in its Backlogs, and its client holds their figures for four of those
// intervals: with the budget full throughout, the client never reads 0
// between two (it did for a third of the time with a hold of a second).
func TestBacklogHoldsForTheHostsInterval(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 1_000, StepRate: 10, SendEvery: 15})
	clk := clock.NewFake(time.Unix(1000, 0))
	r.c.cfg.Clock = clk
	r.c.cfg.StepRate = 10 // the host's, as its Welcome tells a session's client
	ents := r.spread(100, 40)
	zero, looks := 0, 0
	for step := range 300 {
		for _, e := range ents {
			r.move(e, 50)
		}
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
		clk.Advance(time.Second / 10)
		if step < 30 {
			continue
		}
		looks++
		if held, _ := r.c.Backlog(); held == 0 {
			zero++
		}
	}
	if zero > 0 {
		t.Fatalf("budget full throughout; the client's Backlog read 0 at %d of %d steps", zero, looks)
	}
}

// A client that joins again (another host, or one restored from a save,
// may number its frames lower) forgets the newest Backlog: the new host's
// are not dropped as older.
func TestBacklogForgottenAtARejoin(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	c := NewClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1, Clock: clk})
	if _, err := c.HandleDatagram(wire.KindBacklog, appendBacklog(nil, 100_000, 7, 256, 15)); err != nil {
		t.Fatal(err)
	}
	c.Rejoin(1, 0, 0)
	if held, _ := c.Backlog(); held != 0 {
		t.Fatalf("after the rejoin the old host's Backlog still says %d", held)
	}
	if _, err := c.HandleDatagram(wire.KindBacklog, appendBacklog(nil, 40_000, 9, 48, 15)); err != nil {
		t.Fatal(err)
	}
	if held, kbit := c.Backlog(); held != 9 || kbit != 48 {
		t.Fatalf("the rejoined host says 9 held back on 48 kbit/s; the client's Backlog says %d, %d", held, kbit)
	}
}

// After a Backlog of 0, a burst the budget holds back for a few ticks,
// drained within the interval, is still told: the most held back since the
// 0 goes once the interval allows (it had gone untold: the tick the gate
// let pass held none, and only that tick's count was looked at).
func TestBacklogBurstAfterAZeroIsTold(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 40_000})
	ents := r.spread(300, 10)
	// Fill the budget, then let it drain until a 0 goes.
	for range 20 {
		for _, e := range ents {
			r.move(e, 50)
		}
		r.stepTelling()
	}
	zeroAt := -1
	for range 200 {
		for _, b := range r.stepTelling() {
			if b[1] == 0 {
				zeroAt = b[0]
			}
		}
		if zeroAt >= 0 {
			break
		}
	}
	if zeroAt < 0 {
		t.Fatal("no Backlog of 0")
	}
	// A burst: the next tick holds items back, a few more drain it.
	for _, e := range ents[:40] {
		r.move(e, 50)
	}
	heldTicks := 0
	var told [][4]int
	for range 60 {
		told = append(told, r.stepTelling()...)
		if r.h.Peer(1).Stats().Backlog > 0 {
			heldTicks++
		}
	}
	if heldTicks == 0 {
		t.Fatal("the burst held nothing back: the test tests nothing")
	}
	if len(told) == 0 {
		t.Fatalf("%d ticks held items back after the Backlog of 0 at frame %d, and no Backlog told the client", heldTicks, zeroAt)
	}
}

// spread makes n host entities along x, each held by the client once the
// rig settled rounds times (the budget spreads their spawns over ticks),
// and returns them.
func (r *rig) spread(n, rounds int) []arche.Entity {
	ents := make([]arche.Entity, n)
	for i := range ents {
		ents[i] = r.m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	}
	for range rounds {
		r.settle()
	}
	return ents
}

// A budget full for one tick a little more than an interval apart (24
// entities moved every 16th step on 40 kbit/s, the interval 15 frames)
// gets at most one Backlog an interval, none closer to the one before
// than an interval (a burst's went at once after the 0 a frame before it,
// two every 16 frames).
func TestBacklogOfSpacedBurstsKeepsItsInterval(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 40_000})
	ents := r.spread(24, 10)
	every := int(r.h.backlogFrames())
	var told [][4]int
	for step := range 120 { // two seconds
		if step%(every+1) == 0 {
			for _, e := range ents {
				r.move(e, 50)
			}
		}
		told = append(told, r.stepTelling()...)
	}
	if len(told) < 2 {
		t.Fatalf("two seconds of bursts sent Backlogs %v", told)
	}
	for i := 1; i < len(told); i++ {
		if told[i][0]-told[i-1][0] < every {
			t.Fatalf("Backlogs %v: two less than %d frames apart", told, every)
		}
	}
}

// stepTelling steps the host, delivers everything it sent, and returns the
// Backlogs among it, decoded (backlogs).
func (r *rig) stepTelling() [][4]int {
	r.s.Step()
	msgs := r.next()
	told := r.backlogs(msgs)
	for _, i := range msgs {
		r.deliver(i)
	}
	return told
}

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
// kbit.
func (r *rig) backlogs(msgs []int) [][3]int {
	var got [][3]int
	for _, i := range msgs {
		m := r.out.msgs[i]
		if wire.Kind(m[0]) != wire.KindBacklog {
			continue
		}
		rd := wire.NewReader(m[1:])
		got = append(got, [3]int{int(rd.Uvarint32()), rd.Count(maxBacklog), rd.Count(maxBacklog)})
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
			ents := make([]arche.Entity, 300)
			for i := range ents {
				ents[i] = r.m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			}
			// Every entity spawned and acknowledged, which the budget
			// spreads over many ticks.
			for range 10 {
				r.settle()
			}
			if held, kbit := r.c.Backlog(); held != 0 || kbit != 0 || r.h.Peer(1).Stats().Backlog != 0 {
				t.Fatalf("after the spawns: Backlog %d, %d, host's %d", held, kbit, r.h.Peer(1).Stats().Backlog)
			}
			sent := r.h.Peer(1).Stats().Backlogs
			var told [][3]int
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
				if b[1] == 0 || b[2] != 40 {
					t.Fatalf("Backlog %d says %d held, %d kbit/s; want some held, 40", i, b[1], b[2])
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
			var end [][3]int
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
	for _, m := range [][]byte{appendBacklog(nil, 20, 7, 256), appendBacklog(nil, 19, 0, 256)} {
		if ok, err := c.HandleDatagram(wire.KindBacklog, m); !ok || err != nil {
			t.Fatalf("HandleDatagram: %v %v", ok, err)
		}
	}
	if held, kbit := c.Backlog(); held != 7 || kbit != 256 {
		t.Fatalf("after a newer and an older Backlog: %d, %d; want the newer's 7, 256", held, kbit)
	}
	bad := append(appendBacklog(nil, 21, 1, 1), 0)
	if _, err := c.HandleDatagram(wire.KindBacklog, bad); err == nil {
		t.Fatal("a Backlog with a trailing byte was taken")
	}
	if st := c.Stats(); st.Malformed != 1 || st.Backlogs != 2 {
		t.Fatalf("stats: Malformed %d, Backlogs %d; want 1, 2", st.Malformed, st.Backlogs)
	}
}

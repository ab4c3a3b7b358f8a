package session

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// mover is a host system that moves, spawns and removes entities at random
// until stopped.
type mover struct {
	rng   *rand.Rand
	m     generic.Map3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity]
	tf    generic.Map[ecs.Transform]
	vel   generic.Map[ecs.Velocity]
	live  []arche.Entity
	still bool
	fixed bool // moves only: spawns and removes nothing
}

func newMover(w *ecs.World, seed uint64, n int) *mover {
	mv := &mover{
		rng: rand.New(rand.NewPCG(seed, 9)),
		m:   generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche()),
		tf:  generic.NewMap[ecs.Transform](w.Arche()),
		vel: generic.NewMap[ecs.Velocity](w.Arche()),
	}
	for range n {
		mv.spawn()
	}
	return mv
}

func (mv *mover) spawn() {
	e := mv.m.NewWith(&ecs.Transform{X: mv.rng.Float64() * 800, Y: mv.rng.Float64() * 600}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	mv.live = append(mv.live, e)
}

func (mv *mover) Update(w *ecs.World) {
	if mv.still {
		return
	}
	for range 15 {
		e := mv.live[mv.rng.IntN(len(mv.live))]
		t := mv.tf.Get(e)
		v := mv.vel.Get(e)
		v.X, v.Y = mv.rng.NormFloat64()*50, mv.rng.NormFloat64()*50
		t.X += v.X / 60
		t.Y += v.Y / 60
		t.Angle += 0.05
		ecs.MutateComponent(w, e, w.IDs.Transform)
		ecs.MutateComponent(w, e, w.IDs.Velocity)
	}
	if mv.fixed {
		return
	}
	if mv.rng.IntN(20) == 0 {
		mv.spawn()
	}
	if mv.rng.IntN(20) == 0 && len(mv.live) > 20 {
		i := mv.rng.IntN(len(mv.live))
		w.Arche().RemoveEntity(mv.live[i])
		mv.live[i] = mv.live[len(mv.live)-1]
		mv.live = mv.live[:len(mv.live)-1]
	}
}

// sameImage asserts the client world holds exactly the host's networked
// entities at wire precision.
func sameImage(t testing.TB, name string, hw *ecs.World, hreg *replicate.Registry, cw *ecs.World, creg *replicate.Registry) {
	t.Helper()
	if d := imageDiff(hw, hreg, cw, creg); d != "" {
		t.Fatalf("%s: %s", name, d)
	}
}

// imageDiff returns "" when the client world holds exactly the host's
// networked entities at wire precision, else the first difference.
func imageDiff(hw *ecs.World, hreg *replicate.Registry, cw *ecs.World, creg *replicate.Registry) string {
	if hw.Networked() != cw.Networked() {
		return fmt.Sprintf("host has %d networked entities, client %d", hw.Networked(), cw.Networked())
	}
	var qh, qc [replicate.MaxFields]int32
	for slot := int32(0); int(slot) < hw.NetSlots(); slot++ {
		e, id, ok := hw.SlotEntity(slot)
		if !ok {
			continue
		}
		ce, ok := cw.EntityOf(id)
		if !ok {
			return fmt.Sprintf("client lacks network id %d", id)
		}
		hi, _ := hw.Identity(e)
		ci, _ := cw.Identity(ce)
		if hi.Owner != ci.Owner {
			return fmt.Sprintf("entity %d owner %d on host, %d on client", id, hi.Owner, ci.Owner)
		}
		for c := range replicate.Component(hreg.Len()) {
			n := hreg.Fields(c)
			hreg.Quantize(e, c, qh[:n])
			creg.Quantize(ce, c, qc[:n])
			if qh != qc {
				return fmt.Sprintf("entity %d %s: host %v client %v", id, hreg.Name(c), qh[:n], qc[:n])
			}
		}
	}
	return ""
}

type testClient struct {
	w     *ecs.World
	reg   *replicate.Registry
	sched *ecs.Schedule
	cl    *Client
}

func dialClient(t testing.TB, ctx context.Context, tr transport.Transport, addr string, clk clock.Clock, name string) *testClient {
	t.Helper()
	tc, err := tr.Dial(ctx, addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	w := ecs.NewWorld()
	tcl := &testClient{w: w, reg: replicate.NewRegistry(w), sched: ecs.NewSchedule(w, clk, 0)}
	tcl.cl, err = NewClient(tcl.sched, tcl.reg, tc, ClientConfig{Name: name, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return tcl
}

func TestHostAndThreeClientsConvergeUnderConditions(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	link := condition.Config{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.10, Reorder: 0.05}
	net, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	if err != nil {
		t.Fatal(err)
	}
	hw := ecs.NewWorld()
	hreg := replicate.NewRegistry(hw)
	hsched := ecs.NewSchedule(hw, clk, 0)
	mv := newMover(hw, 1, 200)
	hsched.Add("mover", mv)
	spawned := map[ecs.PeerID]bool{}
	host := NewHost(hsched, hreg, HostConfig{Clock: clk, OnJoin: func(p ecs.PeerID, name string) error {
		spawned[p] = true
		mv.m.NewWith(&ecs.Transform{X: 10 * float64(p)}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
		return nil
	}})
	l, err := net.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	ctx := context.Background()
	var clients []*testClient
	step := func() {
		clk.Advance(ecs.DefaultStep)
		// The accept loop runs on its own goroutine: hand connections over
		// directly so the run stays deterministic.
		acceptPending(l, host)
		hsched.Step()
		for _, c := range clients {
			c.sched.Step()
		}
	}
	for i := range 3 {
		clients = append(clients, dialClient(t, ctx, net, "host", clk, "p"+string(rune('a'+i))))
		for range 30 {
			step()
		}
	}
	for range 60 * 60 {
		step()
	}
	mv.still = true
	for range 5 * 60 {
		step()
	}
	for i, c := range clients {
		if c.cl.State() != Playing {
			t.Fatalf("client %d state %v (%v)", i, c.cl.State(), c.cl.Err())
		}
		sameImage(t, c.cl.cfg.Name, hw, hreg, c.w, c.reg)
		cs := c.cl.Replicator().Stats()
		if cs.Malformed != 0 || cs.DeltaMisses != 0 {
			t.Fatalf("client %d refused messages: %+v", i, cs)
		}
		if cs.Spawns == 0 || cs.Despawns == 0 {
			t.Fatalf("client %d saw no spawns or removals: %+v", i, cs)
		}
		st, rs, _ := host.PeerStats(c.cl.Peer())
		t.Logf("peer %d: rtt %v loss %.3f lost %d delivered %d; repl %+v", c.cl.Peer(), st.RTT, st.LossRate, st.PacketsLost, st.PacketsDelivered, rs)
		if st.PacketsLost == 0 || rs.Resent == 0 {
			t.Fatalf("no loss seen at 10%% loss: %+v", st)
		}
	}
	if len(spawned) != 3 {
		t.Fatalf("OnJoin ran for %d peers, want 3", len(spawned))
	}
	for p := range spawned {
		if len(hw.Owned(p)) != 1 {
			t.Fatalf("peer %d owns %d entities, want 1", p, len(hw.Owned(p)))
		}
	}
	// A client that leaves takes its entity with it, on the host and on the
	// others.
	gone := clients[0].cl.Peer()
	clients[0].cl.Close()
	clients = clients[1:]
	for range 3 * 60 {
		step()
	}
	if len(hw.Owned(gone)) != 0 {
		t.Fatal("a leaving peer's entity was kept")
	}
	for _, c := range clients {
		sameImage(t, c.cl.cfg.Name, hw, hreg, c.w, c.reg)
	}
}

// acceptPending hands the host every connection waiting on l, without
// blocking, so a test on a fake clock stays deterministic (no accept
// goroutine).
func acceptPending(l transport.Listener, host *Host) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 0)
		tc, err := l.Accept(ctx)
		cancel()
		if err != nil {
			return
		}
		host.Accept(tc)
	}
}

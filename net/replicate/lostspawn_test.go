package replicate

import (
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// A spawn lost while its entity, changed a little since, waits in the wheel
// (its priority then the send tick it is due) goes again at the next send
// tick, out of the wheel: not when the wait ends, nor later (priority 255
// written over the due tick read as a tick to wait for).
func TestLostSpawnOfWaitingEntityGoesAtOnce(t *testing.T) {
	host := newScene(7, 20)
	host.still = true
	h := NewHost(host.reg, HostConfig{SendEvery: 1})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	c := newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1})
	l := &link{rng: rand.New(rand.NewPCG(3, 4)), delay: 2, peer: 1}
	h.AddPeer(1, l)
	for range 60 {
		host.sched.Step()
		l.step(t, h, c)
	}
	if !c.Joined() {
		t.Fatal("not joined")
	}
	p := h.Peer(1)
	host.spawn()
	e := host.live[len(host.live)-1]
	host.sched.Step() // its spawn goes
	ni, _ := host.w.Identity(e)
	slot := -1
	for i, id := range h.ids {
		if id == ni.ID {
			slot = i
		}
	}
	s := &p.slots[slot]
	if s.flags&fSpawning == 0 {
		t.Fatalf("spawn not sent: flags %08b", s.flags)
	}
	for i := range l.inflight { // the datagram that carries it is lost
		l.inflight[i].lost = true
	}
	lostAt := -1
	for step := 0; step < 12; step++ {
		host.tf.Get(e).X += 0.01 // a creeping change: it waits
		ecs.MutateComponent(host.w, e, host.w.IDs.Transform)
		host.sched.Step()
		if lostAt >= 0 {
			t.Logf("step %d (tick %d): flags %08b wait %#x prio %d", step, h.tick, s.flags, s.wait, s.prio)
			if s.flags&fNeedSpawn == 0 {
				t.Logf("spawn went again %d step(s) after its loss was known", step-lostAt)
				if step-lostAt > 1 {
					t.Fatalf("the lost spawn of a moving entity waited %d send ticks", step-lostAt)
				}
				return
			}
		}
		l.step(t, h, c)
		if lostAt < 0 && s.flags&fNeedSpawn != 0 {
			lostAt = step
			t.Logf("loss known at step %d (tick %d): flags %08b wait %#x prio %d", step, h.tick, s.flags, s.wait, s.prio)
			if s.wait&waiting != 0 {
				t.Errorf("the entity whose spawn was lost still waits in the wheel (due at tick %d)", s.prio)
			}
		}
	}
	t.Fatal("the lost spawn never went again")
}

package replicate

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// link is a test Out: datagrams travel to a client replicator with loss,
// delay and reordering measured in steps; their fate goes back to the host
// replicator after a further delay. Lane messages are reliable and ordered.
type link struct {
	rng      *rand.Rand
	loss     float64
	delay    int // steps each way, plus jitter
	jitter   int
	now      int
	inflight []packet
	acks     []fate
	lane     [][]byte
	laneAt   []int
	peer     ecs.PeerID
	sent     int
	bytes    int
}

type packet struct {
	at      int
	kind    wire.Kind
	payload []byte
	token   uint32
	lost    bool
}

type fate struct {
	at        int
	token     uint32
	delivered bool
}

func (l *link) QueueDatagram(kind wire.Kind, payload []byte, token uint32) error {
	l.sent++
	l.bytes += len(payload)
	d := l.delay
	if l.jitter > 0 {
		d += l.rng.IntN(2*l.jitter+1) - l.jitter
	}
	l.inflight = append(l.inflight, packet{at: l.now + d, kind: kind, payload: bytes.Clone(payload), token: token, lost: l.rng.Float64() < l.loss})
	return nil
}

func (l *link) SendLane(lane transport.Lane, msg []byte) error {
	if lane != transport.LaneJoin {
		return fmt.Errorf("unexpected lane %v", lane)
	}
	l.lane = append(l.lane, bytes.Clone(msg))
	l.laneAt = append(l.laneAt, l.now+l.delay)
	return nil
}

func (l *link) LaneBuffered(lane transport.Lane) int {
	n := 0
	for _, m := range l.lane {
		n += len(m)
	}
	return n
}

// step delivers what is due to the client and fates to the host.
func (l *link) step(t testing.TB, h *HostReplicator, c *ClientReplicator) {
	l.now++
	for len(l.lane) > 0 && l.laneAt[0] <= l.now {
		if _, err := c.HandleLane(l.lane[0]); err != nil {
			t.Fatalf("lane: %v", err)
		}
		l.lane, l.laneAt = l.lane[1:], l.laneAt[1:]
	}
	if err := c.Pump(); err != nil {
		t.Fatalf("join: %v", err)
	}
	keep := l.inflight[:0]
	for _, p := range l.inflight {
		if p.at > l.now {
			keep = append(keep, p)
			continue
		}
		if !p.lost {
			if _, err := c.HandleDatagram(p.kind, p.payload); err != nil {
				t.Fatalf("datagram: %v", err)
			}
		}
		if p.token != 0 {
			l.acks = append(l.acks, fate{at: l.now + l.delay, token: p.token, delivered: !p.lost})
		}
	}
	l.inflight = keep
	ka := l.acks[:0]
	for _, a := range l.acks {
		if a.at > l.now {
			ka = append(ka, a)
			continue
		}
		if a.delivered {
			h.Delivered(l.peer, a.token)
		} else {
			h.Lost(l.peer, a.token)
		}
	}
	l.acks = ka
}

// scene is a host world whose entities move, spawn and despawn at random.
type scene struct {
	w     *ecs.World
	reg   *Registry
	sched *ecs.Schedule
	rng   *rand.Rand
	maps  generic.Map3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity]
	tf    generic.Map[ecs.Transform]
	live  []arche.Entity
	still bool
}

func newScene(seed uint64, n int) *scene {
	w := ecs.NewWorld()
	s := &scene{w: w, reg: NewRegistry(w), rng: rand.New(rand.NewPCG(seed, 1))}
	s.maps = generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	s.tf = generic.NewMap[ecs.Transform](w.Arche())
	for range n {
		s.spawn()
	}
	return s
}

func (s *scene) spawn() {
	e := s.maps.NewWith(&ecs.Transform{X: s.rng.Float64() * 1000, Y: s.rng.Float64() * 1000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	s.live = append(s.live, e)
}

// Update moves some entities, and spawns and removes a few.
func (s *scene) Update(w *ecs.World) {
	if s.still {
		return
	}
	for range 20 {
		e := s.live[s.rng.IntN(len(s.live))]
		t := s.tf.Get(e)
		t.X += s.rng.NormFloat64() * 3
		t.Y += s.rng.NormFloat64() * 3
		t.Angle = math.Mod(t.Angle+0.1, 2*math.Pi) - math.Pi
		ecs.MutateComponent(w, e, w.IDs.Transform)
	}
	if s.rng.IntN(10) == 0 {
		s.spawn()
	}
	if s.rng.IntN(10) == 0 && len(s.live) > 10 {
		i := s.rng.IntN(len(s.live))
		w.Arche().RemoveEntity(s.live[i])
		s.live[i] = s.live[len(s.live)-1]
		s.live = s.live[:len(s.live)-1]
	}
}

// checkImage asserts that the client world holds exactly the host's networked
// entities, each component equal to the host's wire image.
func checkImage(t *testing.T, host *scene, client *ecs.World, creg *Registry) {
	t.Helper()
	if host.w.Networked() != client.Networked() {
		t.Fatalf("host has %d networked entities, client %d", host.w.Networked(), client.Networked())
	}
	var qh, qc [MaxFields]int32
	for slot := int32(0); int(slot) < host.w.NetSlots(); slot++ {
		e, id, ok := host.w.SlotEntity(slot)
		if !ok {
			continue
		}
		ce, ok := client.EntityOf(id)
		if !ok {
			t.Fatalf("client lacks network id %d", id)
		}
		for c := range host.reg.comps {
			n, cid := host.reg.comps[c].fields, host.reg.comps[c].id
			if has := host.w.Arche().Has(e, cid); has != client.Arche().Has(ce, creg.comps[c].id) {
				t.Fatalf("entity %d component %s: held by the host %v, by the client %v", id, host.reg.Name(Component(c)), has, !has)
			} else if !has {
				continue
			}
			host.reg.Quantize(e, Component(c), qh[:n])
			creg.Quantize(ce, Component(c), qc[:n])
			if qh != qc {
				t.Fatalf("entity %d component %s: host %v, client %v", id, host.reg.Name(Component(c)), qh[:n], qc[:n])
			}
		}
	}
}

func runLink(t *testing.T, loss float64, delay, jitter int) {
	host := newScene(7, 300)
	h := NewHost(host.reg, HostConfig{})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	cw := ecs.NewWorld()
	creg := NewRegistry(cw)
	c := newTestClient(creg, ClientConfig{Local: 1})
	l := &link{rng: rand.New(rand.NewPCG(3, 4)), loss: loss, delay: delay, jitter: jitter, peer: 1}
	h.AddPeer(1, l)
	const minute = 60 * 60
	for range minute {
		host.sched.Step()
		l.step(t, h, c)
	}
	host.still = true
	for range 300 {
		host.sched.Step()
		l.step(t, h, c)
	}
	if !c.Joined() {
		t.Fatal("client never joined")
	}
	checkImage(t, host, cw, creg)
	st := h.Peer(1).Stats()
	cs := c.Stats()
	t.Logf("host: %+v", st)
	t.Logf("client: %+v", cs)
	if cs.Malformed != 0 || cs.DeltaMisses != 0 {
		t.Fatalf("client refused messages: %+v", cs)
	}
	if loss > 0 && st.Resent == 0 {
		t.Fatal("loss but nothing resent")
	}
	if st.Deltas == 0 {
		t.Fatal("no component went as a delta")
	}
}

func TestReplicationConvergesUnderLoss(t *testing.T) {
	runLink(t, 0.10, 3, 1)
}

func TestReplicationConvergesHighLatency(t *testing.T) {
	runLink(t, 0.2, 9, 4)
}

// newTestClient is NewClient on a fake clock that stands still unless the
// test moves it: a Pump applies every join page waiting, however slow the
// machine (the race detector), where the real clock's JoinSlice cut a
// test's one Pump short.
func newTestClient(reg *Registry, cfg ClientConfig) *ClientReplicator {
	if cfg.Clock == nil {
		cfg.Clock = clock.NewFake(time.Unix(1000, 0))
	}
	return NewClient(reg, cfg)
}

package replicate

import (
	"math/rand/v2"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// churn is a host scene whose entities' replicated components come and go:
// it moves them, adds and removes their Velocity, their hit points (a
// component that is not delta-coded) and their Transform, changes their
// owners, and spawns and removes a few.
type churn struct {
	rng    *rand.Rand
	live   []arche.Entity
	hp     arche.ID
	still  bool
	spread float64 // positions are within [0, spread)
	reown  bool    // owners change as it runs (else each is given once)
}

func (s *churn) spawn(w *ecs.World) {
	a := w.Arche()
	e := a.NewEntity(w.IDs.Transform, w.IDs.Velocity, w.IDs.NetworkIdentity)
	t := (*ecs.Transform)(a.Get(e, w.IDs.Transform))
	t.X, t.Y = s.rng.Float64()*s.spread, s.rng.Float64()*s.spread
	if !s.reown {
		ecs.SetOwner(w, e, ecs.PeerID(s.rng.IntN(3)))
	}
	s.live = append(s.live, e)
}

// toggle adds component id to e, set by set, or removes it, and reports it.
func toggle(w *ecs.World, e arche.Entity, id arche.ID, set func()) {
	a := w.Arche()
	if a.Has(e, id) {
		a.Remove(e, id)
	} else {
		a.Add(e, id)
		set()
	}
	ecs.MutateComponent(w, e, id)
}

func (s *churn) Update(w *ecs.World) {
	if s.still {
		return
	}
	a := w.Arche()
	for range 6 {
		e := s.live[s.rng.IntN(len(s.live))]
		switch s.rng.IntN(9) {
		case 0, 1:
			if a.Has(e, w.IDs.Transform) {
				t := (*ecs.Transform)(a.Get(e, w.IDs.Transform))
				t.X += s.rng.NormFloat64() * 300
				t.Y += s.rng.NormFloat64() * 300
				ecs.MutateComponent(w, e, w.IDs.Transform)
			}
		case 2:
			toggle(w, e, w.IDs.Velocity, func() { (*ecs.Velocity)(a.Get(e, w.IDs.Velocity)).X = float64(s.rng.IntN(50)) })
		case 3:
			toggle(w, e, s.hp, func() { (*hitPoints)(a.Get(e, s.hp)).HP = int32(s.rng.IntN(100)) })
		case 4:
			if a.Has(e, s.hp) {
				(*hitPoints)(a.Get(e, s.hp)).HP = int32(s.rng.IntN(100))
				ecs.MutateComponent(w, e, s.hp)
			}
		case 5:
			toggle(w, e, w.IDs.Transform, func() {
				t := (*ecs.Transform)(a.Get(e, w.IDs.Transform))
				t.X, t.Y = s.rng.Float64()*s.spread, s.rng.Float64()*s.spread
			})
		case 6:
			if s.reown {
				ecs.SetOwner(w, e, ecs.PeerID(s.rng.IntN(3)))
			}
		case 7:
			if s.rng.IntN(4) == 0 {
				s.spawn(w)
			}
		case 8:
			if s.rng.IntN(4) == 0 && len(s.live) > 10 {
				i := s.rng.IntN(len(s.live))
				a.RemoveEntity(s.live[i])
				s.live[i] = s.live[len(s.live)-1]
				s.live = s.live[:len(s.live)-1]
			}
		}
	}
}

// churnRun is one run of the churn against a client, peer 1.
type churnRun struct {
	seed     uint64
	entities int
	predicts bool // the client has an Auth handler, as a predicting one
	reown    bool
	spread   float64
	rejoinAt int // the step at which the client rejoins; -1: never
	cfg      HostConfig
}

// run churns for 30 s over a link that loses 15% and reorders, then lets
// the world fall still on a lossless link for 10 s, and checks that the
// client holds exactly the entities in its scope, with the host's owners,
// components and values (but the values of the entities it predicts,
// which its prediction owns).
func (o churnRun) run(t *testing.T) {
	t.Helper()
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	Register(reg, IntegerCodec[hitPoints]("hp"))
	s := &churn{rng: rand.New(rand.NewPCG(o.seed, 9)), hp: arche.ComponentID[hitPoints](w.Arche()), spread: o.spread, reown: o.reown}
	for range o.entities {
		s.spawn(w)
	}
	h := NewHost(reg, o.cfg)
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("churn", s).Add("replicate", h)
	cw := ecs.NewWorld()
	creg := NewRegistry(cw)
	Register(creg, IntegerCodec[hitPoints]("hp"))
	c := newTestClient(creg, ClientConfig{Local: 1})
	if o.predicts {
		c.cfg.Auth = &authSink{}
	}
	newLink := func(stream uint64) *link {
		return &link{rng: rand.New(rand.NewPCG(o.seed, stream)), loss: 0.15, delay: 3, jitter: 2, peer: 1}
	}
	l := newLink(4)
	for range 30 {
		sched.Step()
	}
	h.AddPeer(1, l)
	for i := range 1800 {
		if i == o.rejoinAt {
			h.ParkPeer(1)
			l = newLink(5)
			c.Rejoin(1, 0, 0)
			h.AddPeer(1, l)
		}
		sched.Step()
		l.step(t, h, c)
	}
	s.still = true
	l.loss = 0
	for range 600 {
		sched.Step()
		l.step(t, h, c)
	}
	if !c.Joined() {
		t.Fatal("the client never joined")
	}
	p := h.Peer(1)
	held := 0
	var qh, qc [MaxFields]int32
	for slot := int32(0); int(slot) < w.NetSlots(); slot++ {
		e, id, ok := w.SlotEntity(slot)
		if !ok {
			continue
		}
		ni, _ := w.Identity(e)
		ce, has := cw.EntityOf(id)
		if p.slots[slot].flags&fOut != 0 && ni.Owner != 1 {
			if has {
				t.Errorf("entity %d, out of scope, held by the client", id)
			}
			continue
		}
		held++
		if !has {
			t.Errorf("entity %d (owner %d), in scope, not held by the client", id, ni.Owner)
			continue
		}
		if cni, _ := cw.Identity(ce); cni.Owner != ni.Owner {
			t.Errorf("entity %d: owner %d, the client sees %d", id, ni.Owner, cni.Owner)
		}
		for ci := range reg.comps {
			hh, ch := w.Arche().Has(e, reg.comps[ci].id), cw.Arche().Has(ce, creg.comps[ci].id)
			if hh != ch {
				t.Errorf("entity %d (owner %d), component %s: the host has it %v, the client %v", id, ni.Owner, reg.Name(Component(ci)), hh, ch)
				continue
			}
			if !hh || o.predicts && ni.Owner == 1 {
				continue
			}
			n := reg.comps[ci].fields
			reg.Quantize(e, Component(ci), qh[:n])
			creg.Quantize(ce, Component(ci), qc[:n])
			if qh != qc {
				t.Errorf("entity %d (owner %d), component %s: host %v, client %v", id, ni.Owner, reg.Name(Component(ci)), qh[:n], qc[:n])
			}
		}
	}
	if cw.Networked() != held {
		t.Errorf("the client holds %d entities, want the %d in its scope", cw.Networked(), held)
	}
	checkOwned(t, h)
}

// Entities whose components come and go, whose owners change, which move
// in and out of the client's scope, over a link that loses and reorders:
// once the world falls still, the client holds what the host has, with or
// without prediction, sending every step or every third, a world in scope
// or spread past it.
func TestChurnConverges(t *testing.T) {
	for _, predicts := range []bool{false, true} {
		for seed := uint64(1); seed <= 3; seed++ {
			for _, every := range []int{1, 3} {
				for _, spread := range []float64{500, 30000} {
					o := churnRun{seed: seed, entities: 60, predicts: predicts, reown: true, spread: spread, rejoinAt: -1, cfg: HostConfig{SendEvery: every}}
					t.Run("", o.run)
				}
			}
		}
	}
}

// The same with owners given once, a larger world joined in small pages,
// and a rejoin in the middle of the churn.
func TestChurnConvergesThroughJoins(t *testing.T) {
	for _, rejoinAt := range []int{-1, 900} {
		for _, predicts := range []bool{false, true} {
			for seed := uint64(1); seed <= 4; seed++ {
				for _, spread := range []float64{500, 30000} {
					o := churnRun{seed: seed, entities: 300, predicts: predicts, spread: spread, rejoinAt: rejoinAt, cfg: HostConfig{SendEvery: 1, JoinPage: 64, JoinBytesPerStep: 300}}
					t.Run("", o.run)
				}
			}
		}
	}
}

package replicate

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// TestMaxEntities: a host that would make a client hold more networked
// entities than ClientConfig.MaxEntities is refused, in a join page and in
// a state datagram, with ErrTooManyEntities, and the client holds no more
// than the bound; a world of exactly the bound joins.
func TestMaxEntities(t *testing.T) {
	host := newScene(1, 20)
	host.still = true
	h := NewHost(host.reg, HostConfig{})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	l := &link{rng: rand.New(rand.NewPCG(1, 1)), peer: 1}
	h.AddPeer(1, l)
	for range 10 {
		host.sched.Step()
	}
	var join [][]byte
	for _, m := range l.lane {
		if k := wire.Kind(m[0]); k == wire.KindJoinPage || k == wire.KindJoinFinal {
			join = append(join, m)
		}
	}

	small := newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1, MaxEntities: 19})
	var err error
	for _, m := range join {
		if _, err = small.HandleLane(m); err != nil {
			break
		}
		for small.Waiting() > 0 && err == nil {
			err = small.Pump()
		}
		if err != nil {
			break
		}
	}
	if !errors.Is(err, ErrTooManyEntities) || small.w.Networked() > 19 {
		t.Fatalf("a join of 20 entities into a client of 19: %v, holding %d; want ErrTooManyEntities, at most 19", err, small.w.Networked())
	}

	c := joinedClient(t, join, ClientConfig{Local: 1, MaxEntities: 20})
	if n := c.w.Networked(); n != 20 {
		t.Fatalf("a join of 20 entities into a client of 20 holds %d", n)
	}
	// One more on the host: its spawn reaches the client in a datagram.
	host.spawn()
	l.inflight = l.inflight[:0]
	refused := false
	for range 10 {
		host.sched.Step()
		for _, p := range l.inflight {
			if _, err := c.HandleDatagram(p.kind, p.payload); errors.Is(err, ErrTooManyEntities) {
				refused = true
			}
		}
		l.inflight = l.inflight[:0]
	}
	if !refused || c.w.Networked() != 20 {
		t.Fatalf("a 21st entity into a client of 20: refused %v, holding %d; want refused, 20", refused, c.w.Networked())
	}
}

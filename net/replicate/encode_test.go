package replicate

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// TestEntityImageBytes: a join page's item is written byte for byte as
// varints appended one by one (wire.AppendUvarint) would write it, after
// whatever dst held, for entities with every component and with some, ids
// and owners of every length, and values at the ends of 32 bits; and the
// client's page decoder reads back the host's image.
func TestEntityImageBytes(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	both := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	pose := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.Arche())
	rng := rand.New(rand.NewPCG(7, 8))
	coord := func() float64 {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return math.MaxInt32 / PositionScale // the end of the wire's range
		case 2:
			return -math.MaxInt32 / PositionScale
		}
		return rng.Float64()*2000 - 1000
	}
	for i := range 3000 {
		tr := ecs.Transform{X: coord(), Y: coord(), Angle: rng.Float64() * 7}
		ni := ecs.NetworkIdentity{ID: ecs.NetID(1 + i*i*977%(1<<31)), Owner: ecs.PeerID(rng.IntN(1 << 16))}
		if i%3 == 0 {
			pose.NewWith(&tr, &ni)
		} else {
			both.NewWith(&tr, &ecs.Velocity{X: coord() / 64, Y: -MaxSpeed, Angular: MaxAngularSpeed}, &ni)
		}
	}
	h := NewHost(reg, HostConfig{})
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("replicate", h)
	sched.Step()
	prefix := []byte{0x83, 0xff}
	for slot := range int32(len(h.ents)) {
		e := &h.ents[slot]
		if e.flags&eLive == 0 {
			continue
		}
		want := append([]byte(nil), prefix...)
		want = wire.AppendUvarint(want, uint64(e.id))
		want = wire.AppendUvarint(want, uint64(itemSpawn)|uint64(e.has)<<itemShift)
		want = wire.AppendUvarint(want, uint64(e.owner))
		img := h.image(slot)
		for c := range reg.comps {
			if e.has&(1<<uint(c)) != 0 {
				want = appendAbsolute(want, img[reg.offset[c]:reg.offset[c]+reg.comps[c].fields])
			}
		}
		got := h.appendEntityImage(append([]byte(nil), prefix...), slot)
		if !bytes.Equal(got, want) {
			t.Fatalf("slot %d (id %d, mask %b): % x, want % x", slot, e.id, e.has, got, want)
		}
		id, flags, owner, i := pageHead(got, len(prefix))
		q := make([]int32, reg.fields)
		for c := range reg.comps {
			if flags>>itemShift&(1<<uint(c)) != 0 {
				i = pageImage(got, i, q[reg.offset[c]:reg.offset[c]+reg.comps[c].fields])
			}
		}
		if id != uint64(e.id) || owner != uint64(e.owner) || i != len(got) {
			t.Fatalf("slot %d read back as id %d owner %d, %d of %d bytes", slot, id, owner, i, len(got))
		}
		for c := range reg.comps {
			if e.has&(1<<uint(c)) == 0 {
				continue
			}
			for k := reg.offset[c]; k < reg.offset[c]+reg.comps[c].fields; k++ {
				if q[k] != img[k] {
					t.Fatalf("slot %d field %d read back as %d, the host's %d", slot, k, q[k], img[k])
				}
			}
		}
	}
}

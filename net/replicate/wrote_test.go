package replicate

import (
	"math/rand/v2"
	"slices"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// scribbler is a client WriteObserver that writes its own values into every
// replicated component after each state is applied, as a client's own
// systems write the entities it runs, and checks at the next state that the
// components it was told were written hold the host's image of the state's
// frame and the others its own values still.
type scribbler struct {
	t       *testing.T
	w       *ecs.World
	reg     *Registry
	rec     *recorder
	wrote   Components
	to      arche.Entity
	own     map[ecs.NetID][]int32 // the image of what it wrote, by entity
	checked map[Components]int    // states checked, by what they wrote
	bad     int
}

func (s *scribbler) Wrote(e arche.Entity, _ ecs.Frame, comps Components) { s.wrote, s.to = comps, e }

func (s *scribbler) Applied(e arche.Entity, f ecs.Frame) {
	told := s.to == e
	s.to = arche.Entity{}
	ni, _ := s.w.Identity(e)
	own, scribbled := s.own[ni.ID]
	if told && scribbled {
		want := s.rec.images[f][ni.ID]
		got := s.image(e)
		for c := range s.reg.comps {
			at, n := s.reg.offset[c], s.reg.comps[c].fields
			expect := own[at : at+n]
			if s.wrote.Has(Component(c)) {
				expect = want[at : at+n]
			}
			if !slices.Equal(got[at:at+n], expect) {
				if s.bad < 5 {
					s.t.Errorf("entity %d, state of frame %d told written %b: component %d holds %v, expected %v (the host's %v, the client's own %v)", ni.ID, f, s.wrote, c, got[at:at+n], expect, want[at:at+n], own[at:at+n])
				}
				s.bad++
			}
		}
		s.checked[s.wrote]++
	}
	// The client's own values, unlike any the host has.
	*(*ecs.Transform)(s.w.Arche().Get(e, s.w.IDs.Transform)) = ecs.Transform{X: -777.25, Y: 333.5, Angle: 1}
	*(*ecs.Velocity)(s.w.Arche().Get(e, s.w.IDs.Velocity)) = ecs.Velocity{X: 12, Y: -34}
	s.own[ni.ID] = s.image(e)
}

func (s *scribbler) Removed(e arche.Entity) {
	ni, _ := s.w.Identity(e)
	delete(s.own, ni.ID)
}

func (s *scribbler) image(e arche.Entity) []int32 {
	img := make([]int32, s.reg.fields)
	for c := range s.reg.comps {
		s.reg.Quantize(e, Component(c), img[s.reg.offset[c]:][:s.reg.comps[c].fields])
	}
	return img
}

// A WriteObserver is told, before each Applied of an update or a spawn,
// exactly which components the state wrote: over a lossy, reordering link,
// every component it names holds the host's image of the state's frame,
// and every other one what the client's own systems left there, states
// that wrote one of the two components and states that wrote both alike.
func TestAWriteObserverIsToldWhatAStateWrote(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	mv := newMover(w, 9, 10)
	mv.spread(80)
	rec := &recorder{reg: reg, images: map[ecs.Frame]map[ecs.NetID][]int32{}}
	h := NewHost(reg, HostConfig{})
	sched := ecs.NewSchedule(w, nil, 0)
	// A quarter of the bodies glide at a steady velocity: their states
	// bring the pose alone.
	steady := ecs.SystemFunc(func(w *ecs.World) {
		for _, e := range mv.live {
			if id, _ := w.Identity(e); id.ID%4 == 0 {
				*mv.vel.Get(e) = ecs.Velocity{X: 30}
			}
		}
	})
	sched.Add("move", mv).Add("steady", steady).Add("record", rec).Add("replicate", h)
	cw := ecs.NewWorld()
	creg := NewRegistry(cw)
	sc := &scribbler{t: t, w: cw, reg: creg, rec: rec, own: map[ecs.NetID][]int32{}, checked: map[Components]int{}}
	c := newTestClient(creg, ClientConfig{Local: 1, Observer: sc})
	l := &link{rng: rand.New(rand.NewPCG(3, 4)), loss: 0.1, delay: 5, jitter: 4, peer: 1}
	h.AddPeer(1, l)
	for range 30 * 60 {
		sched.Step()
		l.step(t, h, c)
	}
	pc, _ := creg.Lookup(cw.IDs.Transform)
	vc, _ := creg.Lookup(cw.IDs.Velocity)
	pose, vel := Components(1)<<pc, Components(1)<<vc
	t.Logf("states checked, by what they wrote: %v", sc.checked)
	if sc.checked[pose] < 100 || sc.checked[pose|vel] < 100 {
		t.Fatalf("states that wrote the pose alone: %d, both: %d; the test does not test what it says", sc.checked[pose], sc.checked[pose|vel])
	}
	if sc.bad != 0 {
		t.Fatalf("%d components not as the WriteObserver was told", sc.bad)
	}
}

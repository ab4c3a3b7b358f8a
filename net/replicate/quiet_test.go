package replicate

import (
	"math/rand/v2"
	"slices"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// frames is a FrameObserver that keeps the frames it heard.
type frames struct{ heard []ecs.Frame }

func (f *frames) Applied(arche.Entity, ecs.Frame) {}
func (f *frames) Removed(arche.Entity)            {}
func (f *frames) Heard(fr ecs.Frame)              { f.heard = append(f.heard, fr) }

// quietRig is a host scene of 50 still entities with two peers joined on
// links alike (the second packs from the first's tape), whose clients hear
// the frames of the states they apply.
type quietRig struct {
	t     *testing.T
	host  *scene
	h     *HostReplicator
	links [2]*link
	cs    [2]*ClientReplicator
	heard [2]*frames
}

func newQuietRig(t *testing.T) *quietRig {
	r := &quietRig{t: t, host: newScene(5, 50)}
	r.host.still = true
	r.h = NewHost(r.host.reg, HostConfig{})
	r.host.sched = ecs.NewSchedule(r.host.w, nil, 0)
	r.host.sched.Add("scene", r.host).Add("replicate", r.h)
	for i := range r.cs {
		r.heard[i] = &frames{}
		r.cs[i] = newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: ecs.PeerID(i + 1), Observer: r.heard[i]})
		r.links[i] = &link{rng: rand.New(rand.NewPCG(1, 2)), delay: 2, peer: ecs.PeerID(i + 1)}
		r.h.AddPeer(ecs.PeerID(i+1), r.links[i])
	}
	return r
}

func (r *quietRig) steps(n int) {
	for range n {
		r.host.sched.Step()
		for i := range r.cs {
			r.links[i].step(r.t, r.h, r.cs[i])
		}
	}
}

// stats returns peer i's counts.
func (r *quietRig) stats(i int) PeerStats { return r.h.Peer(ecs.PeerID(i + 1)).Stats() }

// When the world falls still, a peer that was being sent states gets an
// empty State on the 1st, 2nd, 4th and 8th send tick that sends it nothing
// with nothing waiting for it, and then nothing; its client applies them,
// hearing their frames. A peer is sent none before its first State after
// its join. Peers alike (the second takes the first's packing from the
// tape) are told alike.
func TestQuietTicksTellTheWorldFellStill(t *testing.T) {
	r := newQuietRig(t)
	r.steps(120) // the joins, then a still world
	for i := range r.cs {
		if !r.cs[i].Joined() {
			t.Fatalf("client %d never joined", i+1)
		}
		if st := r.stats(i); st.Quiet != 0 || st.Messages != 0 || len(r.heard[i].heard) != 0 {
			t.Fatalf("peer %d, a still world since its join: %d empty states, %d states sent, frames heard %v; want none", i+1, st.Quiet, st.Messages, r.heard[i].heard)
		}
	}
	// It moves for a second: states every send tick, no empty one.
	r.host.still = false
	r.steps(60)
	for i := range r.cs {
		if st := r.stats(i); st.Quiet != 0 || st.Messages < 25 {
			t.Fatalf("peer %d, a moving world: %d empty states, %d states; want none and a state each send tick", i+1, st.Quiet, st.Messages)
		}
		r.heard[i].heard = r.heard[i].heard[:0]
	}
	// The world stops, but for a small change of one entity, which waits
	// for a few send ticks to add up (ticks that send nothing but are not
	// quiet: its State is to come).
	r.host.still = true
	r.host.sched.Step()
	e := r.host.live[0]
	r.host.tf.Get(e).X += 0.01
	ecs.MutateComponent(r.host.w, e, r.host.w.IDs.Transform)
	for i := range r.cs {
		r.links[i].step(r.t, r.h, r.cs[i])
	}
	r.steps(120)
	var sent [2]PeerStats
	for i := range r.cs {
		sent[i] = r.stats(i)
		if sent[i].Quiet != 4 || r.cs[i].Stats().Malformed != 0 {
			t.Fatalf("peer %d, the world fell still: %d empty states sent (%d malformed on the client), want 4", i+1, sent[i].Quiet, r.cs[i].Stats().Malformed)
		}
		// The frames heard last: the last state's, then the empty
		// states', 1, 2, 4 and 8 send ticks (of 2 frames) after it.
		h := r.heard[i].heard
		if len(h) < 5 {
			t.Fatalf("peer %d heard frames %v, want a state's and the four empty states'", i+1, h)
		}
		last := h[len(h)-5]
		if want := []ecs.Frame{last, last + 2, last + 4, last + 8, last + 16}; !slices.Equal(h[len(h)-5:], want) {
			t.Fatalf("peer %d heard frames %v last, want %v: its last state's, then the empty states'", i+1, h[len(h)-5:], want)
		}
	}
	if sent[1].Reused == 0 {
		t.Fatal("the second peer never took the first's packing: the tape is not tested")
	}
	r.steps(600)
	for i := range r.cs {
		if st := r.stats(i); st.Quiet != 4 || st.Messages != sent[i].Messages {
			t.Fatalf("peer %d, ten seconds more of a still world: %d empty states, %d states more; want nothing", i+1, st.Quiet-4, st.Messages-sent[i].Messages)
		}
	}
}

// A peer sent states every few ticks, its entity's small changes waiting
// to add up, gets no empty State between them: something waits for it.
func TestQuietTicksWaitForWhatWaits(t *testing.T) {
	r := newQuietRig(t)
	r.steps(120)
	e := r.host.live[0]
	r.host.sched.AddTo(ecs.StageInput, "creep", ecs.SystemFunc(func(w *ecs.World) {
		r.host.tf.Get(e).X += 0.005 // a few wire steps a frame: a small change
		ecs.MutateComponent(w, e, w.IDs.Transform)
	}))
	r.steps(10)
	before := r.stats(0)
	const steps = 600
	r.steps(steps)
	st := r.stats(0)
	if sent := st.Messages - before.Messages; sent == 0 || sent > steps/2/3 {
		t.Fatalf("%d states in %d send ticks: want a state every few ticks, or the test tests nothing", sent, steps/2)
	}
	if st.Quiet != 0 {
		t.Fatalf("%d empty states between states of a creeping entity, want none", st.Quiet)
	}
}

// newBudgetScene is a still scene of 50 entities joined by one peer at a
// budget of 2,000 bit/s, and a function that steps it n times.
func newBudgetScene(t *testing.T) (host *scene, h *HostReplicator, c *ClientReplicator, steps func(n int)) {
	host = newScene(5, 50)
	host.still = true
	h = NewHost(host.reg, HostConfig{BitsPerSecond: 2000})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	c = newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1})
	l := &link{rng: rand.New(rand.NewPCG(1, 2)), delay: 2, peer: 1}
	h.AddPeer(1, l)
	steps = func(n int) {
		for range n {
			host.sched.Step()
			l.step(t, h, c)
		}
	}
	steps(1200) // the join, at this budget
	if !c.Joined() {
		t.Fatal("the client never joined")
	}
	return host, h, c, steps
}

// A peer whose budget holds back what is due (an item a send tick, every
// other tick) gets no empty State while items wait: only once all went.
func TestQuietTicksWaitForTheBudget(t *testing.T) {
	host, h, _, steps := newBudgetScene(t)
	for _, e := range host.live {
		host.tf.Get(e).X += 100 // every entity moves far: all due at once
		ecs.MutateComponent(host.w, e, host.w.IDs.Transform)
	}
	steps(1)
	p := h.Peer(1)
	held := 0
	for range 600 {
		steps(1)
		if len(p.dirty) > 0 && p.stats.Quiet > 0 {
			t.Fatalf("an empty State went with %d items held back by the budget", len(p.dirty))
		}
		if len(p.dirty) > 0 {
			held++
		}
	}
	if st := p.Stats(); held == 0 || st.Deferred == 0 || st.Quiet != 4 {
		t.Fatalf("%d steps with items held back (%d deferred), %d empty states after; want items held back, then 4", held, st.Deferred, st.Quiet)
	}
}

// A peer whose budget holds back removals (entities removed at once, sent
// a few a send tick) gets no empty State while one waits unsent, though no
// item waits: only once all went.
func TestQuietTicksWaitForRemovals(t *testing.T) {
	host, h, c, steps := newBudgetScene(t)
	for _, e := range host.live[:40] {
		host.w.Arche().RemoveEntity(e)
	}
	host.live = host.live[40:]
	p := h.Peer(1)
	unsent := func() int {
		n := 0
		for _, d := range p.despawns {
			if !d.flying {
				n++
			}
		}
		return n
	}
	held, idleOtherwise := 0, 0
	for range 600 {
		steps(1)
		if unsent() > 0 {
			held++
			if len(p.dirty) == 0 {
				idleOtherwise++ // nothing else waits: only the removals say it is not quiet
			}
			if p.stats.Quiet > 0 {
				t.Fatalf("an empty State went with %d removals held back by the budget", unsent())
			}
		}
	}
	if held == 0 || idleOtherwise == 0 {
		t.Fatalf("%d steps with removals held back, %d of them with no item waiting: the test tests nothing", held, idleOtherwise)
	}
	if st := p.Stats(); st.Quiet != 4 || len(p.despawns) != 0 {
		t.Fatalf("%d empty states, %d removals left after the removals went; want 4 and none", st.Quiet, len(p.despawns))
	}
	if got := c.w.Networked(); got != 10 {
		t.Fatalf("the client holds %d entities, want the 10 left", got)
	}
}

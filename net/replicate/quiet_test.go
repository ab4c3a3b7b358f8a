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

// When the world falls still, a peer that was being sent states gets an
// empty STATE on the 1st, 2nd, 4th and 8th send tick that sends it nothing,
// and then nothing; its client applies them, hearing their frames. A peer
// is sent none before its first STATE after its join, and one that keeps
// receiving states gets none.
func TestQuietTicksTellTheWorldFellStill(t *testing.T) {
	host := newScene(5, 50)
	host.still = true
	h := NewHost(host.reg, HostConfig{})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	cw := ecs.NewWorld()
	heard := &frames{}
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, Observer: heard})
	l := &link{rng: rand.New(rand.NewPCG(1, 2)), delay: 2, peer: 1}
	h.AddPeer(1, l)
	steps := func(n int) {
		for range n {
			host.sched.Step()
			l.step(t, h, c)
		}
	}
	steps(120) // the join, then a still world
	if !c.Joined() {
		t.Fatal("the client never joined")
	}
	if st := h.Peer(1).Stats(); st.Quiet != 0 || st.Messages != 0 || len(heard.heard) != 0 {
		t.Fatalf("a still world since the join: %d empty states, %d states sent, frames heard %v; want none", st.Quiet, st.Messages, heard.heard)
	}
	// It moves for a second: states every send tick, no empty one.
	host.still = false
	steps(60)
	st := h.Peer(1).Stats()
	if st.Quiet != 0 || st.Messages < 25 {
		t.Fatalf("a moving world: %d empty states, %d states; want none and a state each send tick", st.Quiet, st.Messages)
	}
	heard.heard = heard.heard[:0]
	host.still = true
	moved := host.w.Frame()
	steps(120)
	st2 := h.Peer(1).Stats()
	if st2.Quiet != 4 || c.Stats().Malformed != 0 {
		t.Fatalf("the world fell still: %d empty states sent (%d malformed on the client), want 4", st2.Quiet, c.Stats().Malformed)
	}
	// The frames heard since: the last states' (sent as the world stopped),
	// then the empty states', 1, 2, 4 and 8 send ticks (of 2 frames) after
	// the last one.
	n := len(heard.heard)
	if n < 4 {
		t.Fatalf("heard frames %v, want the four empty states'", heard.heard)
	}
	quiet := heard.heard[n-4:]
	last := quiet[0] - 2
	if want := []ecs.Frame{last + 2, last + 4, last + 8, last + 16}; !slices.Equal(quiet, want) || last < ecs.Frame(moved) {
		t.Fatalf("the empty states' frames %v (the world still from frame %d), want %v", quiet, moved, want)
	}
	steps(600)
	if st3 := h.Peer(1).Stats(); st3.Quiet != 4 || st3.Messages != st2.Messages {
		t.Fatalf("ten seconds more of a still world: %d empty states, %d states more; want nothing", st3.Quiet-4, st3.Messages-st2.Messages)
	}
}

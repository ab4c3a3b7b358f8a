package tandemtest_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/tandemtest"
)

// orderCommand is a command carrying a number, which its handler appends
// to order: the order the host ran them in.
func orderCommand(order *[]uint32) *tandem.CommandKind[uint32] {
	return tandem.NewCommand("order", u32Codec, func(w *tandem.World, p tandem.Peer, i uint32) error {
		*order = append(*order, i)
		return nil
	})
}

// u32Codec is a command codec of one uint32.
var u32Codec = tandem.CommandCodec[uint32]{
	Append: func(dst []byte, v *uint32) []byte { return binary.LittleEndian.AppendUint32(dst, *v) },
	Read:   func(r *wire.Reader, v *uint32) { *v = r.U32() },
}

// A player's commands past the host's rate wait their turn and run in the
// order sent, each once, none dropped: a strategy game's player clicking
// two orders a frame has the last one followed. (They were dropped, sent
// again two seconds later and run after newer ones: a trial's units
// followed an older order for two seconds.)
func TestCommandsPastTheRateRunInOrder(t *testing.T) {
	var order []uint32
	order32 := orderCommand(&order)
	r := tandemtest.New(t, walkersWith(order32), tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	const n = 50 // 30 a second run at once, the rest wait
	var last uint64
	for i := range uint32(n) {
		op, err := tandem.Send(ann, order32, i)
		if err != nil {
			t.Fatal(err)
		}
		last = op
		if i%2 == 1 {
			r.Step(1) // two a frame
		}
	}
	rc, ok := r.StepUntilReceipt(ann, last, 90)
	if !ok || rc.Status != tandem.ReceiptDone {
		t.Fatalf("the last order's receipt 1.5 s after it was sent: %v %v", rc, ok)
	}
	want := make([]uint32, n)
	for i := range want {
		want[i] = uint32(i)
	}
	if !slices.Equal(order, want) {
		t.Fatalf("the orders ran as %v, want each once in the order sent", order)
	}
	if st := r.Host.Stats(); st.Dropped != 0 || st.Waited == 0 {
		t.Fatalf("host: %d dropped (want 0), %d waited their turn (want some)", st.Dropped, st.Waited)
	}
}

// A player sending commands whose link breaks sends every one without a
// receipt again when she resumes, all at once: those still waiting their
// turn on the host are not taken twice, and the rest wait theirs; each runs
// once, in the order sent, none dropped, under the host's rate (15 a
// second) and past it (60). (Past the host's second's worth of waiting,
// the rest were dropped, sent again 2 s later and run after newer ones: a
// trial's builder at 15 a second saw 4 of its commands run out of order
// after a 5 s break.)
func TestCommandsResentAtAResumeRunInOrder(t *testing.T) {
	for _, every := range []int{4, 1} { // frames between two commands
		t.Run(fmt.Sprintf("every-%d-frames", every), func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) { resentInOrder(t, every) })
		})
	}
}

func resentInOrder(t *testing.T, every int) {
	var order []uint32
	order32 := orderCommand(&order)
	link := condition.Config{Latency: 30 * time.Millisecond}
	r := tandemtest.New(t, walkersWith(order32), tandem.HostConfig{Grace: 30 * time.Second},
		tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	first := r.Conn(ann)
	var sent uint32
	var last uint64
	for i := range 60 * 10 {
		if i == 60 {
			r.Cut(ann)
		}
		if i%every == 0 {
			op, err := tandem.Send(ann, order32, sent)
			if err == nil {
				sent++
				last = op
			} // else the client holds its limit: the game tries later
		}
		r.Step(1)
	}
	if r.Conn(ann) == first || ann.State() != tandem.Playing {
		t.Fatalf("ann did not resume after the cut: %v (%v)", ann.State(), ann.Err())
	}
	if rc, ok := r.StepUntilReceipt(ann, last, 60*60); !ok || rc.Status != tandem.ReceiptDone {
		t.Fatalf("the last command's receipt: %v %v", rc, ok)
	}
	want := make([]uint32, sent)
	for i := range want {
		want[i] = uint32(i)
	}
	st := r.Host.Stats()
	t.Logf("%d commands; host: %d waited, %d taken again, %d dropped; client: %+v", sent, st.Waited, st.Again, st.Dropped, ann.CommandStats())
	if !slices.Equal(order, want) {
		t.Fatalf("the %d commands ran as %v, want each once in the order sent", sent, order)
	}
	if st.Dropped != 0 {
		t.Fatalf("the host dropped %d commands", st.Dropped)
	}
}

// Commands of two players that run in the same host frame run in turns,
// the player to go first changing from frame to frame: of two builders
// racing for one cell, neither always wins. (The lower peer id won every
// race a trial ran: 20 of 20 among 8 players.) Each client gives its
// commands at its own frame, which its time sync keeps a frame or so off
// the other's: the race is judged in the frames that ran both players'.
func TestPlayersTakeTurnsInAFrame(t *testing.T) {
	type claimed struct {
		who   string
		frame ecs.Frame
	}
	var ran []claimed
	claim := tandem.NewCommand("claim", u32Codec, func(w *tandem.World, p tandem.Peer, round uint32) error {
		ran = append(ran, claimed{p.Name, w.ECS.Frame()})
		return nil
	})
	r := tandemtest.New(t, walkersWith(claim), tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	const rounds = 40
	last := map[*tandem.Client[Walk]]uint64{}
	for round := range uint32(rounds) {
		for _, c := range []*tandem.Client[Walk]{ann, bob} {
			op, err := tandem.Send(c, claim, round)
			if err != nil {
				t.Fatal(err)
			}
			last[c] = op
		}
		r.Step(1)
	}
	for c, op := range last {
		if _, ok := r.StepUntilReceipt(c, op, 120); !ok {
			t.Fatalf("peer %d's last claim has no receipt", c.Peer())
		}
	}
	if len(ran) != 2*rounds {
		t.Fatalf("%d claims ran, want %d", len(ran), 2*rounds)
	}
	wins := map[string]int{}
	races := 0
	for i := range ran {
		// The first claim of a frame that ran both players' wins its race.
		if i > 0 && ran[i-1].frame == ran[i].frame {
			continue
		}
		j := i
		for j < len(ran) && ran[j].frame == ran[i].frame && ran[j].who == ran[i].who {
			j++
		}
		if j < len(ran) && ran[j].frame == ran[i].frame {
			wins[ran[i].who]++
			races++
		}
	}
	if races < 15 || wins["ann"] < races/2-3 || wins["bob"] < races/2-3 {
		t.Fatalf("%d frames ran both players' claims; firsts %v (%v), want 15 or more, each player first about half the time", races, wins, ran)
	}
}

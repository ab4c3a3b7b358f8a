package session

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// stick is the test game's input: a direction in each axis, -1, 0 or 1.
type stick struct{ DX, DY int8 }

var stickCodec = predict.InputCodec[stick]{
	Append: func(dst []byte, in *stick) []byte { return append(dst, byte(in.DX+1)<<2|byte(in.DY+1)) },
	Read: func(r *wire.Reader, in *stick) {
		b := r.U8()
		if b&3 > 2 || b>>2 > 2 {
			r.Fail(wire.ErrInvalid)
		}
		in.DX, in.DY = int8(b>>2)-1, int8(b&3)-1
	},
	MaxSize: 1,
}

// discs is the test game: each player's disc moves at 120 units/s in the
// direction of its input, the same on host and clients.
type discs struct {
	tf  generic.Map[ecs.Transform]
	vel generic.Map[ecs.Velocity]
}

func newDiscs(w *ecs.World) discs {
	return discs{generic.NewMap[ecs.Transform](w.Arche()), generic.NewMap[ecs.Velocity](w.Arche())}
}

func (d discs) move(w *ecs.World, e arche.Entity, in *stick) {
	v, t := d.vel.Get(e), d.tf.Get(e)
	v.X, v.Y = float64(in.DX)*120, float64(in.DY)*120
	t.X += v.X / 60
	t.Y += v.Y / 60
	ecs.MutateComponent(w, e, w.IDs.Transform)
	ecs.MutateComponent(w, e, w.IDs.Velocity)
}

// botStick is a bot's input for frame f: a new direction every half second.
func botStick(peer ecs.PeerID, f ecs.Frame) stick {
	z := uint64(f/30)*0x9e3779b97f4a7c15 + uint64(peer)*0xbf58476d1ce4e5b9
	z ^= z >> 29
	return stick{DX: int8(z%3) - 1, DY: int8(z/3%3) - 1}
}

type smoothCount struct{ n int }

func (s *smoothCount) AddCorrection(arche.Entity, float64, float64, float64) { s.n++ }

type predictingClient struct {
	w     *ecs.World
	sched *ecs.Schedule
	cl    *Client
	pred  *predict.Client[stick]
	sm    *smoothCount
	stop  bool
	log   bytes.Buffer
}

// TestPredictionOverConditionedLink plays two predicting clients against a
// host over the in-memory transport at 150 ms ± 30 ms of round trip and 5%
// loss each way, on a fake clock.
func TestPredictionOverConditionedLink(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	link := condition.Config{Latency: 75 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.05, Seed: 11}
	net, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	if err != nil {
		t.Fatal(err)
	}
	hw := ecs.NewWorld()
	hreg := replicate.NewRegistry(hw)
	hsched := ecs.NewSchedule(hw, clk, 0)
	hd := newDiscs(hw)
	spawn := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](hw.Arche())
	var inputs *predict.HostInputs[stick]
	host := NewHost(hsched, hreg, HostConfig{
		Clock: clk,
		OnJoin: func(p ecs.PeerID, _ string) error {
			spawn.NewWith(&ecs.Transform{X: 100 * float64(p)}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
			return nil
		},
		OnMessage: func(p ecs.PeerID, k wire.Kind, b []byte) {
			if k != wire.KindInput {
				return
			}
			if err := inputs.Receive(p, b); errors.Is(err, predict.ErrMalformed) {
				t.Errorf("peer %d: %v", p, err)
			}
		},
		OnLeave: func(p ecs.PeerID, _ error) { inputs.RemovePeer(p) },
	})
	defer host.Close()
	inputs = predict.NewHostInputs(hw, stickCodec, predict.HostInputConfig[stick]{Replicator: host.Replicator()})
	hsched.AddTo(ecs.StageInput, "inputs", inputs)
	hsched.Add("move", ecs.SystemFunc(func(w *ecs.World) {
		for _, p := range inputs.Peers() {
			if in, ok := p.Input(); ok {
				for _, e := range w.Owned(p.ID()) {
					hd.move(w, e, in)
				}
			}
		}
	}))
	l, err := net.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var clients []*predictingClient
	for i := range 2 {
		tc, err := net.Dial(ctx, "host")
		if err != nil {
			t.Fatal(err)
		}
		c := &predictingClient{w: ecs.NewWorld(), sm: &smoothCount{}}
		reg := replicate.NewRegistry(c.w)
		c.sched = ecs.NewSchedule(c.w, clk, 0)
		c.pred = predict.NewClient(c.sched, reg, stickCodec, predict.ClientConfig[stick]{Clock: clk, Smoother: c.sm,
			Logger: slog.New(slog.NewTextHandler(&c.log, nil))})
		c.cl, err = NewClient(c.sched, reg, tc, ClientConfig{Name: string(rune('a' + i)), Clock: clk,
			Replication: replicate.ClientConfig{Auth: c.pred}})
		if err != nil {
			t.Fatal(err)
		}
		c.pred.Attach(c.cl)
		cd := newDiscs(c.w)
		c.sched.AddTo(ecs.StageInput, "input", ecs.SystemFunc(func(w *ecs.World) {
			if c.cl.State() == Playing {
				in := stick{}
				if !c.stop {
					in = botStick(c.cl.Peer(), w.Frame())
				}
				c.pred.SetInput(in)
			}
		}))
		c.sched.Add("move", ecs.SystemFunc(func(w *ecs.World) {
			if c.cl.State() == Playing {
				for _, e := range w.Owned(c.cl.Peer()) {
					cd.move(w, e, c.pred.Input())
				}
			}
		}))
		clients = append(clients, c)
	}
	hostStalled := false
	run := func(d time.Duration) {
		for end := clk.Now().Add(d); clk.Now().Before(end); {
			clk.Advance(2 * time.Millisecond)
			acceptPending(l, host)
			if !hostStalled {
				hsched.Advance()
			}
			for _, c := range clients {
				c.sched.Advance()
			}
		}
	}

	run(5 * time.Second)
	type mark struct {
		in   predict.InputStats
		pred predict.ClientStats
		sync predict.SyncStats
	}
	start := hw.Frame()
	marks := map[ecs.PeerID]mark{}
	for i, c := range clients {
		p := inputs.Peer(c.cl.Peer())
		if c.cl.State() != Playing || p == nil || !c.pred.Sync().Stats().Synced {
			t.Fatalf("client %d not playing and synchronized after 5 s: %v, %+v", i, c.cl.State(), c.pred.Sync().Stats())
		}
		marks[c.cl.Peer()] = mark{p.Stats(), c.pred.Stats(), c.pred.Sync().Stats()}
	}
	const play = 60 * time.Second
	run(play)
	frames := uint64(hw.Frame() - start)
	for _, c := range clients {
		peer := c.cl.Peer()
		m := marks[peer]
		in := inputs.Peer(peer).Stats()
		st, sy := c.pred.Stats(), c.pred.Sync().Stats()
		cs, _, _ := host.PeerStats(peer)
		t.Logf("peer %d: rtt %v loss %.3f; lead %.2f target %.2f (buffer %.0f, jitter %.2f) dilation %.3f jumps %d; inputs %+v",
			peer, cs.RTT, cs.LossRate, sy.Lead, sy.Target, sy.Buffer, sy.Jitter, sy.Dilation, sy.Jumps, in)
		t.Logf("peer %d: prediction %+v", peer, st)
		if exact := in.Exact - m.in.Exact; exact != frames || in.Repeated != m.in.Repeated || in.LateApplied != m.in.LateApplied {
			t.Errorf("peer %d: %d of %d host frames had their exact input (%d repeated, %d late)", peer, exact, frames,
				in.Repeated-m.in.Repeated, in.LateApplied-m.in.LateApplied)
		}
		if sy.Jumps != m.sync.Jumps {
			t.Errorf("peer %d: %d jumps in play", peer, sy.Jumps-m.sync.Jumps)
		}
		if st.AuthStates-m.pred.AuthStates < frames/4 {
			t.Errorf("peer %d: %d AuthStates in %d frames", peer, st.AuthStates-m.pred.AuthStates, frames)
		}
		// Every input on time and a deterministic game: the prediction never
		// needs correcting in play.
		if n := st.Corrections - m.pred.Corrections; n != 0 {
			t.Errorf("peer %d: %d corrections in %v of play (max pose %.4f)", peer, n, play, st.MaxPose)
		}
	}

	for _, c := range clients {
		if c.log.Len() != 0 {
			t.Errorf("peer %d logged in steady play: %s", c.cl.Peer(), c.log.String())
		}
	}
	// The host stalls for two seconds (its schedule drops what it cannot
	// catch up): every client falls out of step, jumps once, and says so.
	hostStalled = true
	run(2 * time.Second)
	hostStalled = false
	run(3 * time.Second)
	for _, c := range clients {
		if sy := c.pred.Sync().Stats(); sy.Jumps == 0 || !strings.Contains(c.log.String(), "frame jumped") {
			t.Errorf("peer %d: %d jumps after a host stall, log %q", c.cl.Peer(), sy.Jumps, c.log.String())
		}
	}

	// The bots let go; the host's disc and each client's own come to rest
	// at the same place.
	for _, c := range clients {
		c.stop = true
	}
	run(3 * time.Second)
	for _, c := range clients {
		peer := c.cl.Peer()
		he, ce := hw.Owned(peer)[0], c.w.Owned(peer)[0]
		cd := newDiscs(c.w)
		ht, ct := hd.tf.Get(he), cd.tf.Get(ce)
		if d := math.Hypot(ht.X-ct.X, ht.Y-ct.Y); d > 2.0/replicate.PositionScale {
			t.Errorf("peer %d: disc at %v on the host, %v on the client (%.4f apart)", peer, *ht, *ct, d)
		}
	}
}

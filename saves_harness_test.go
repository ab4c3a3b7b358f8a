package tandem

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/physics"
)

// The ledger game: every player drives a disc (push input) carrying a tally;
// "add" commands add to the player's tally and to the game's ledger, "token"
// commands drop a token disc where the player's disc is (three at most per
// player). Five host-owned discs are there from the start. It exercises a
// replicated game component, a host-only component, a saved state, physics
// rebuilt after a restore, and commands refused by the game's rules.

// tally is replicated: a player's sum, a token's value.
type tally struct{ N int64 }

// memo is host-only and saved: what the host remembers of a disc.
type memo struct {
	Seen uint32
	By   ecs.PeerID
	Last float64
}

// ledger is the game's saved state.
type ledger struct {
	Count, Sum uint64
	Tokens     [4]uint8 // by peer id, for peers 1..3
}

var tallyCodec = Exact(replicate.IntegerCodec[tally]("tally"))

// maxAdd is the most one "add" takes: its codec refuses more, as a
// game's codec refuses what a client has no business sending.
const maxAdd = 1 << 20

var errAddTooMuch = errors.New("add: at most 1,048,576 at a time")

var addCommand = NewCommand("add", CommandCodec[uint32]{
	Append: func(dst []byte, v *uint32) []byte { return binary.LittleEndian.AppendUint32(dst, *v) },
	Read: func(r *wire.Reader, v *uint32) {
		if *v = r.U32(); *v > maxAdd {
			r.Fail(errAddTooMuch)
		}
	},
}, func(w *World, p Peer, n uint32) error {
	if n == 0 {
		return Refuse("nothing to add")
	}
	l := ecs.Resource[ledger](w.ECS)
	l.Count++
	l.Sum += uint64(n)
	a := w.ECS.Arche()
	for _, e := range w.ECS.Owned(p.ID) {
		tid, mid := arche.ComponentID[tally](a), arche.ComponentID[memo](a)
		(*tally)(a.Get(e, tid)).N += int64(n)
		ecs.MutateComponent(w.ECS, e, tid)
		m := (*memo)(a.Get(e, mid))
		m.Seen++
		m.Last = float64(n) / 3
		ecs.MutateComponent(w.ECS, e, mid)
	}
	return nil
})

var tokenCommand = NewCommand("token", CommandCodec[struct{}]{}, func(w *World, p Peer, _ struct{}) error {
	l := ecs.Resource[ledger](w.ECS)
	if int(p.ID) >= len(l.Tokens) || l.Tokens[p.ID] >= 3 {
		return Refuse("three tokens at most")
	}
	owned := w.ECS.Owned(p.ID)
	if len(owned) == 0 {
		return Refuse("no disc to drop it from")
	}
	pose := *(*ecs.Transform)(w.ECS.Arche().Get(owned[0], w.ECS.IDs.Transform))
	l.Tokens[p.ID]++
	spawnDisc(w, ecs.HostPeer, pose, false, int64(l.Tokens[p.ID]), p.ID)
	return nil
})

func ledgerGame() *Game[push] {
	g := testGame()
	g.Components = []Component{
		Replicate(replicate.TransformCodec(), PredictPose),
		Replicate(replicate.VelocityCodec(), PredictVelocity),
		Replicate(tallyCodec, HostValue),
	}
	g.Saved = []Saved{SaveComponent(Plain[memo]()), SaveState(Plain[ledger]())}
	g.Commands = []Command{addCommand, tokenCommand}
	thrust := g.Setup
	g.Setup = func(w *World) {
		thrust(w)
		ecs.AddResource(w.ECS, &ledger{})
		w.Schedule.Add("physics", w.Physics)
		if w.Role == Joined || w.Restoring {
			return
		}
		for i := range 5 {
			spawnDisc(w, ecs.HostPeer, ecs.Transform{X: float64(40 * i), Y: 200}, false, int64(i), 0)
		}
		spawnDisc(w, ecs.HostPeer, ecs.Transform{X: -100, Y: 150}, true, 0, 0) // the host's own player
	}
	g.Join = func(w *World, p Peer) error {
		spawnDisc(w, p.ID, ecs.Transform{X: float64(30 * p.ID), Y: -50}, true, 0, p.ID)
		return nil
	}
	g.Arrived = func(w *World, e arche.Entity) { w.Physics.AttachCircle(e, 10, floor) }
	return g
}

// spawnDisc makes a disc at pose owned by owner, with a body, a tally and a
// memo; a player's has Input and Interpolated.
func spawnDisc(w *World, owner ecs.PeerID, pose ecs.Transform, player bool, n int64, by ecs.PeerID) arche.Entity {
	a := w.ECS.Arche()
	m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, tally, memo](a)
	e := m.NewWith(&pose, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: owner}, &tally{N: n}, &memo{By: by})
	if player {
		a.Add(e, arche.ComponentID[Input[push]](a), w.ECS.IDs.Interpolated)
		(*ecs.Interpolated)(a.Get(e, w.ECS.IDs.Interpolated)).Prev = pose
	}
	w.Physics.AttachCircle(e, 10, floor)
	return e
}

// rig is a host of the ledger game over an in-memory network, with its
// clients and raw players, stepped by hand on a fake clock.
type rig struct {
	t       testing.TB
	g       *Game[push]
	clk     *clock.Fake
	net     *mem.Network
	l       transport.Listener
	cfg     HostConfig
	host    *Host[push]
	clients []*Client[push]
	raws    []*rawPlayer
	// accepted are the host's ends of the connections it was given.
	accepted []transport.Conn
	// async lets saves run on as they would (their commit lands when the
	// disk is done, frames later); by default step waits for each commit
	// within the frame that handed it over, so runs repeat.
	async bool
}

func newRig(t testing.TB, cfg HostConfig) *rig {
	t.Helper()
	return newRigOf(t, ledgerGame(), cfg)
}

// newRigOf is newRig with game g, a variant of the ledger game.
func newRigOf(t testing.TB, g *Game[push], cfg HostConfig) *rig {
	t.Helper()
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	link := condition.Config{Latency: 5 * time.Millisecond}
	n, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	if err != nil {
		t.Fatal(err)
	}
	l, err := n.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, g: g, clk: clk, net: n, l: l, cfg: cfg}
	r.cfg.Clock = clk
	r.start()
	return r
}

// start makes the rig's host (restoring its store's save).
func (r *rig) start() {
	r.t.Helper()
	h, err := NewHost(r.g, r.cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	r.host = h
	r.t.Cleanup(func() { h.Close() })
}

// restart closes the host for a restart (CloseForRestart: its players kept
// in the save) and starts another on the same store.
func (r *rig) restart() {
	r.t.Helper()
	if err := r.host.CloseForRestart(); err != nil {
		r.t.Fatal(err)
	}
	r.clients, r.raws = nil, nil
	r.start()
}

func savePath(t testing.TB) string { return filepath.Join(t.TempDir(), "world.db") }

// step runs n host frames, with every client and raw player.
func (r *rig) step(n int) {
	for range n {
		r.clk.Advance(ecs.DefaultStep)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 0)
			tc, err := r.l.Accept(ctx)
			cancel()
			if err != nil {
				break
			}
			r.host.Accept(tc)
			r.accepted = append(r.accepted, tc)
		}
		r.host.Advance()
		if !r.async {
			r.settle()
		}
		for _, c := range r.clients {
			c.Advance()
		}
		for _, p := range r.raws {
			p.sched.Step()
		}
	}
}

// settle waits for the host's commit under way, if any, and takes its
// outcome as the host's next step would.
func (r *rig) settle() {
	h := r.host
	h.mu.Lock() // not Do: looking at the world would keep it loaded
	defer h.mu.Unlock()
	if s := h.saves; s != nil && s.committer.Busy() && h.w != nil {
		res, _ := s.committer.Wait(context.Background())
		h.saved(res)
		h.publishStatus()
	}
}

// join dials a client and steps until it plays.
func (r *rig) join(name string, cfg ClientConfig[push]) *Client[push] {
	r.t.Helper()
	c := r.dial(name, cfg, session.Playing)
	if c.State() != session.Playing {
		r.t.Fatalf("%s never played: %v", name, c.Err())
	}
	return c
}

// dial dials a client and steps until it is in state until, or closed, or
// 600 frames went by.
func (r *rig) dial(name string, cfg ClientConfig[push], until session.ClientState) *Client[push] {
	r.t.Helper()
	tc, err := r.net.Dial(context.Background(), "host")
	if err != nil {
		r.t.Fatal(err)
	}
	cfg.Name, cfg.Clock = name, r.clk
	c, err := NewClient(r.g, tc, cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	r.clients = append(r.clients, c)
	for i := 0; i <= 600 && c.State() != until && c.State() != session.Closed; i++ {
		r.step(1)
	}
	return c
}

// rawPlayer is a player that speaks the session directly: it sends command
// messages of its own making and keeps every message the host sends on the
// commands lane, byte for byte.
type rawPlayer struct {
	w     *ecs.World
	sched *ecs.Schedule
	cl    *session.Client
	got   [][]byte
}

func (r *rig) dialRaw(name string) *rawPlayer {
	r.t.Helper()
	tc, err := r.net.Dial(context.Background(), "host")
	if err != nil {
		r.t.Fatal(err)
	}
	p := &rawPlayer{w: ecs.NewWorld()}
	p.sched = ecs.NewSchedule(p.w, r.clk, 0)
	reg := r.g.registry(p.w)
	p.cl, err = session.NewClient(p.sched, reg, tc, session.ClientConfig{Name: name, Clock: r.clk, Schema: r.g.Schema(),
		OnLaneMessage: func(lane transport.Lane, msg []byte) {
			if lane == transport.LaneCommands {
				p.got = append(p.got, append([]byte(nil), msg...))
			}
		}})
	if err != nil {
		r.t.Fatal(err)
	}
	r.raws = append(r.raws, p)
	for i := 0; p.cl.State() != session.Playing; i++ {
		if i > 600 || p.cl.State() == session.Closed {
			r.t.Fatalf("%s never played: %v", name, p.cl.Err())
		}
		r.step(1)
	}
	return p
}

// send sends a command message as it is, to run as it comes.
func (p *rawPlayer) send(t testing.TB, op uint64, kind uint8, payload []byte) {
	t.Helper()
	p.sendAt(t, op, kind, payload, 0)
}

// sendAt sends a command message given at host frame frame.
func (p *rawPlayer) sendAt(t testing.TB, op uint64, kind uint8, payload []byte, frame uint32) {
	t.Helper()
	msg, err := wire.Command{Op: op, Frame: frame, Kind: kind, Payload: payload}.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cl.Conn().SendLane(transport.LaneCommands, msg); err != nil {
		t.Fatal(err)
	}
}

// receipts decodes what the player got.
func (p *rawPlayer) receipts(t testing.TB) []wire.Receipt {
	t.Helper()
	var out []wire.Receipt
	for _, m := range p.got {
		var rc wire.Receipt
		if err := rc.Decode(m); err != nil {
			t.Fatalf("the host sent % x on the commands lane: %v", m, err)
		}
		out = append(out, rc)
	}
	return out
}

func u32(n uint32) []byte { return binary.LittleEndian.AppendUint32(nil, n) }

// snapshot is everything a save holds of a world, as text: each networked
// entity's owner and saved components in their exact encodings (bits, not
// values), the ledger, the frame and the id counter.
func snapshot(h *Host[push]) string {
	var out string
	h.Do(func(w *World) { out = snapshotOf(w) })
	return out
}

// peek is snapshot without looking through Do (which keeps a world
// loaded): "" while the world is released.
func peek(h *Host[push]) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.w == nil {
		return ""
	}
	return snapshotOf(h.w)
}

func snapshotOf(w *World) string {
	var out string
	{
		s := w.ECS
		a := s.Arche()
		tr, vl := replicate.TransformCodec(), replicate.VelocityCodec()
		tc, mc := tallyCodec, Plain[memo]()
		var lines []string
		for slot := range int32(s.NetSlots()) {
			e, id, ok := s.SlotEntity(slot)
			if !ok {
				continue
			}
			ni, _ := s.Identity(e)
			line := fmt.Sprintf("%d owner %d", id, ni.Owner)
			line += fmt.Sprintf(" T%x V%x", tr.AppendExact(nil, (*ecs.Transform)(a.Get(e, s.IDs.Transform))), vl.AppendExact(nil, (*ecs.Velocity)(a.Get(e, s.IDs.Velocity))))
			line += fmt.Sprintf(" t%x m%x", tc.AppendExact(nil, (*tally)(a.Get(e, arche.ComponentID[tally](a)))), mc.Append(nil, (*memo)(a.Get(e, arche.ComponentID[memo](a)))))
			if a.Has(e, arche.ComponentID[Input[push]](a)) {
				line += fmt.Sprintf(" input bot=%v", (*Input[push])(a.Get(e, arche.ComponentID[Input[push]](a))).Bot)
			}
			if a.Has(e, s.IDs.Interpolated) {
				line += " interpolated"
			}
			if !a.Has(e, arche.ComponentID[physics.Body](a)) {
				line += " NO BODY"
			}
			lines = append(lines, line)
		}
		sort.Strings(lines)
		l := ecs.Resource[ledger](s)
		out = fmt.Sprintf("frame %d next %d ledger %+v\n%s", s.Frame(), s.NextNetID(), *l, strings.Join(lines, "\n"))
	}
	return out
}

// records returns every record of the host's store.
func records(t testing.TB, h *Host[push]) map[string]string {
	t.Helper()
	m := map[string]string{}
	if _, err := h.Store().Load(context.Background(), func(k, v []byte) error {
		m[string(k)] = string(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

package replicate

import (
	"bytes"
	"strings"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/net/wire/wiretest"
)

// capture is an Out that keeps every message it is given.
type capture struct {
	msgs   [][]byte // datagram messages: kind byte, then payload
	tokens []uint32
	lane   [][]byte
}

func (c *capture) QueueDatagram(kind wire.Kind, payload []byte, token uint32) error {
	c.msgs = append(c.msgs, append([]byte{byte(kind)}, payload...))
	c.tokens = append(c.tokens, token)
	return nil
}
func (c *capture) SendLane(_ transport.Lane, msg []byte) error {
	c.lane = append(c.lane, bytes.Clone(msg))
	return nil
}
func (c *capture) LaneBuffered(transport.Lane) int { return 0 }

// goldenScript runs the scenario of PROTOCOL.md §9 and returns each
// example's bytes by name.
func goldenScript(t *testing.T) map[string][]byte {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	h := NewHost(reg, HostConfig{SendEvery: 1})
	s := ecs.NewSchedule(w, nil, 0)
	s.Add("replicate", h)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	tf := generic.NewMap[ecs.Transform](w.Arche())
	vel := generic.NewMap[ecs.Velocity](w.Arche())
	crate := m.NewWith(&ecs.Transform{X: 4000, Y: -2}, &ecs.Velocity{X: 10}, &ecs.NetworkIdentity{})
	out := &capture{}
	h.AddPeer(1, out)
	got := map[string][]byte{}
	s.Step() // frame 1: the join, one page and FINAL
	got["join-page"], got["join-final"] = out.lane[0], out.lane[1]

	move := func(x, vx float64) {
		tf.Get(crate).X = x
		vel.Get(crate).X = vx
		ecs.MutateComponent(w, crate, w.IDs.Transform)
		ecs.MutateComponent(w, crate, w.IDs.Velocity)
	}
	move(4010, 600)
	s.Step() // frame 2: against the join page, the peer's newest image
	got["state-newest"] = out.msgs[0]
	h.Delivered(1, out.tokens[0])

	move(4020, 600)
	s.Step() // frame 3: against frame 2; its fate stays unknown
	move(4030, 600)
	s.Step() // frame 4: against frame 2 still, with an age: frame 3 is in flight
	got["state-age"] = out.msgs[2]

	w.Arche().RemoveEntity(crate)
	player := m.NewWith(&ecs.Transform{X: 4}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	s.Step() // frame 5: the crate's removal and a spawn of the peer's player
	got["state-spawn-removal"] = out.msgs[3]
	got["auth-state"] = out.msgs[4]
	h.Delivered(1, out.tokens[3])

	// Frame 6: a host-owned ball, entity 3, at x = 0. Frame 7: it is
	// teleported to x = 100, and its item says so (the snap head), so a
	// client draws the jump as one.
	// (The peer's player's state goes again in AuthState at frame 6: its
	// spawn was on its way when frame 5's went.)
	state := func() int {
		for i := len(out.msgs) - 1; i >= 0; i-- {
			if wire.Kind(out.msgs[i][0]) == wire.KindState {
				return i
			}
		}
		t.Fatal("no State message")
		return 0
	}
	ball := m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	s.Step()
	i := state()
	got["state-spawn"] = out.msgs[i]
	h.Delivered(1, out.tokens[i])
	tf.Get(ball).X = 100
	ecs.MutateComponent(w, ball, w.IDs.Transform)
	ecs.ReportTeleport(w, ball)
	s.Step()
	got["state-snap"] = out.msgs[state()]

	// Frame 8: the peer's player is teleported to x = 50; its AuthState
	// says so, with the teleport's frame.
	tf.Get(player).X = 50
	ecs.MutateComponent(w, player, w.IDs.Transform)
	ecs.ReportTeleport(w, player)
	s.Step()
	for i := len(out.msgs) - 1; i >= 0; i-- {
		if wire.Kind(out.msgs[i][0]) == wire.KindAuthState {
			got["auth-teleport"] = out.msgs[i]
			break
		}
	}

	// Frame 9: the ball loses its Velocity and is teleported to x = 200 in
	// the same frame. The peer is sent the ball again as a spawn (its mask
	// says what the ball has left), which says its pose is of a teleport.
	w.Arche().Remove(ball, w.IDs.Velocity)
	ecs.MutateComponent(w, ball, w.IDs.Velocity)
	tf.Get(ball).X = 200
	ecs.MutateComponent(w, ball, w.IDs.Transform)
	ecs.ReportTeleport(w, ball)
	s.Step()
	got["state-spawn-snap"] = out.msgs[state()]

	// A Backlog: at frame 40, 120 items held back on a budget of 256
	// kbit/s, said again every 15 frames while it lasts.
	got["backlog"] = append([]byte{byte(wire.KindBacklog)}, appendBacklog(nil, 40, 120, 256, 15)...)
	return got
}

// TestGoldenReplication ties PROTOCOL.md's replication examples to the
// encoder (the script's messages are those bytes) and to the decoder (a
// client fed those bytes holds the values the document states).
func TestGoldenReplication(t *testing.T) {
	blocks := wiretest.Blocks(t, "../wire/PROTOCOL.md", "replicate")
	got := goldenScript(t)
	for name, b := range got {
		d, ok := blocks[name]
		if !ok {
			t.Errorf("PROTOCOL.md has no replicate block %q; it should show:\n% x", name, b)
			continue
		}
		if !bytes.Equal(d, b) {
			t.Errorf("%s: encoder writes\n  % x\nPROTOCOL.md shows\n  % x", name, b, d)
		}
	}
	for name := range blocks {
		if _, ok := got[name]; !ok {
			t.Errorf("PROTOCOL.md replicate block %q is not checked", name)
		}
	}
	// Decode the document's bytes: a client ends with the script's world.
	cw := ecs.NewWorld()
	c := newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
	lane := func(name string) {
		if _, err := c.HandleLane(blocks[name]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.Pump(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	dgram := func(name string) {
		if _, err := c.HandleDatagram(wire.Kind(blocks[name][0]), blocks[name][1:]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	pose := func(id ecs.NetID) (ecs.Transform, arche.Entity, bool) {
		e, ok := cw.EntityOf(id)
		if !ok {
			return ecs.Transform{}, e, false
		}
		return *(*ecs.Transform)(cw.Arche().Get(e, cw.IDs.Transform)), e, true
	}
	lane("join-page")
	lane("join-final")
	if p, _, ok := pose(1); !ok || p.X != 4000 || p.Y != -2 {
		t.Fatalf("after the join: %v %v", p, ok)
	}
	dgram("state-newest")
	if p, _, _ := pose(1); p.X != 4010 {
		t.Fatalf("after the first update x = %v, want 4010", p.X)
	}
	dgram("state-age") // frame 3 never arrives
	if p, _, _ := pose(1); p.X != 4030 {
		t.Fatalf("after the update with an age x = %v, want 4030", p.X)
	}
	dgram("state-spawn-removal")
	if _, _, ok := pose(1); ok {
		t.Fatal("entity 1 not removed")
	}
	if p, e, ok := pose(2); !ok || p.X != 4 {
		t.Fatalf("entity 2: %v %v", p, ok)
	} else if ni, _ := cw.Identity(e); ni.Owner != 1 {
		t.Fatalf("entity 2 owner %d, want 1", ni.Owner)
	}
	dgram("auth-state")
	// The teleport's AuthState, to a prediction: the pose of frame 8, of
	// a teleport at frame 8.
	auth := &authRecorder{}
	c.cfg.Auth = auth
	dgram("auth-teleport")
	c.cfg.Auth = nil
	if len(auth.seen) != 1 || auth.seen[0] != (authSeen{x: 50 * PositionScale, tele: 8, ok: true}) {
		t.Fatalf("auth-teleport reads %+v, want x 50 of a teleport at frame 8", auth.seen)
	}

	// A client draws entity 3 interpolated: the snap head marks its new pose
	// a teleport, and a later copy of the same teleport (resent, or
	// overtaken) is no news.
	ow := ecs.NewWorld()
	other := newTestClient(NewRegistry(ow), ClientConfig{Local: 7})
	for _, name := range []string{"join-page", "join-final"} {
		if _, err := other.HandleLane(blocks[name]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := other.Pump(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"state-newest", "state-age", "state-spawn-removal", "state-spawn", "state-snap"} {
		if _, err := other.HandleDatagram(wire.Kind(blocks[name][0]), blocks[name][1:]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	e, ok := ow.EntityOf(3)
	if !ok {
		t.Fatal("entity 3 missing on the other client")
	}
	ip := (*ecs.Interpolated)(ow.Arche().Get(e, ow.IDs.Interpolated))
	if p := *(*ecs.Transform)(ow.Arche().Get(e, ow.IDs.Transform)); p.X != 100 || !ip.Snap || ip.Prev != p {
		t.Fatalf("after state-snap: pose %v, %+v; want x 100 marked as a teleport", p, *ip)
	}
	ip.Snap = false
	if _, err := other.HandleDatagram(wire.Kind(blocks["state-snap"][0]), blocks["state-snap"][1:]); err != nil {
		t.Fatal(err)
	}
	if ip.Snap || other.Stats().Snaps != 1 {
		t.Fatalf("the same teleport again marked a second one (snaps %d)", other.Stats().Snaps)
	}
	// The ball's spawn of frame 9, to a client that holds it, marks its
	// new pose a teleport too, and takes its Velocity away.
	if _, err := other.HandleDatagram(wire.Kind(blocks["state-spawn-snap"][0]), blocks["state-spawn-snap"][1:]); err != nil {
		t.Fatal(err)
	}
	ip = (*ecs.Interpolated)(ow.Arche().Get(e, ow.IDs.Interpolated)) // moved with the Velocity's removal
	if p := *(*ecs.Transform)(ow.Arche().Get(e, ow.IDs.Transform)); p.X != 200 || !ip.Snap || ip.Prev != p || other.Stats().Snaps != 2 {
		t.Fatalf("after state-spawn-snap: pose %v, %+v, snaps %d; want x 200 marked as a teleport", p, *ip, other.Stats().Snaps)
	}
	if ow.Arche().Has(e, ow.IDs.Velocity) {
		t.Fatal("after state-spawn-snap the ball still has its Velocity")
	}
	// The Backlog: the client says what it says.
	dgram("backlog")
	if held, kbit := c.Backlog(); held != 120 || kbit != 256 {
		t.Fatalf("after backlog: Backlog %d, %d; want 120, 256", held, kbit)
	}

	// The bit tables of the State examples are what the messages say.
	tables := wiretest.Tables(t, "../wire/PROTOCOL.md", "replicate-bits")
	for name, b := range got {
		if wire.Kind(b[0]) != wire.KindState {
			continue
		}
		want, ok := tables[name]
		if !ok {
			t.Errorf("PROTOCOL.md has no replicate-bits table %q; it should read:\n%s", name, strings.Join(describeState(t, c.reg, b[1:]), "\n"))
			continue
		}
		if gotLines := describeState(t, c.reg, b[1:]); strings.Join(gotLines, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: the message reads\n%s\nPROTOCOL.md says\n%s", name, strings.Join(gotLines, "\n"), strings.Join(want, "\n"))
		}
	}
}

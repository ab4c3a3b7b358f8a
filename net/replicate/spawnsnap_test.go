package replicate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A spawn's snap, read by a client, at its edges: the age that names the
// teleport the client drew already, the one after it, the largest age, a
// snap on a spawn whose mask lacks the Transform, and a snap on a spawn of
// an entity the client does not hold. The messages are the golden script's
// (PROTOCOL.md §9.3), state-spawn-snap's bits changed where its table says
// they are: the mask at bits 51-52, the snap at 53, its age at 54-60.
func TestSpawnSnapEdges(t *testing.T) {
	got := goldenScript(t)
	spawnSnap := got["state-spawn-snap"][1:] // the payload: frame 9, then the bits
	// set returns spawnSnap with n bits from bit at (of the bits after the
	// frame) set to v, least significant first.
	set := func(b []byte, at, n int, v uint64) []byte {
		b = bytes.Clone(b)
		for i := range n {
			k := 8 + at + i // one byte of frame first
			b[k/8] = b[k/8]&^(1<<(k%8)) | byte(v>>i&1)<<(k%8)
		}
		return b
	}
	if set(spawnSnap, 54, 7, 0)[0] != 9 || !bytes.Equal(set(spawnSnap, 53, 1, 1), spawnSnap) {
		t.Fatal("state-spawn-snap is not the message its table describes")
	}
	// held returns a client that drew the ball's teleport of frame 7 as a
	// jump (state-snap), as the golden test's other client does.
	held := func() (*ClientReplicator, *ecs.World) {
		cw := ecs.NewWorld()
		c := newTestClient(NewRegistry(cw), ClientConfig{Local: 7})
		for _, name := range []string{"join-page", "join-final"} {
			if _, err := c.HandleLane(got[name]); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := c.Pump(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		for _, name := range []string{"state-newest", "state-age", "state-spawn-removal", "state-spawn", "state-snap"} {
			if _, err := c.HandleDatagram(wire.KindState, got[name][1:]); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if c.Stats().Snaps != 1 {
			t.Fatalf("%d snaps before the spawn, want 1", c.Stats().Snaps)
		}
		return c, cw
	}
	ball := func(t *testing.T, cw *ecs.World) (ecs.Transform, *ecs.Interpolated) {
		t.Helper()
		e, ok := cw.EntityOf(3)
		if !ok {
			t.Fatal("the client does not hold the ball")
		}
		ip := (*ecs.Interpolated)(cw.Arche().Get(e, cw.IDs.Interpolated))
		return *(*ecs.Transform)(cw.Arche().Get(e, cw.IDs.Transform)), ip
	}
	for _, tc := range []struct {
		name string
		age  uint64
		jump bool
	}{
		{"of frame 9", 0, true},
		{"of frame 8, after the one drawn", 1, true},
		{"of frame 7, the one drawn", 2, false},
		{"of frame 3, before it", 6, false},
		{"the largest age, before frame 0", 127, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cw := held()
			_, ip := ball(t, cw)
			ip.Snap = false
			if _, err := c.HandleDatagram(wire.KindState, set(spawnSnap, 54, 7, tc.age)); err != nil {
				t.Fatal(err)
			}
			p, ip := ball(t, cw)
			if p.X != 200 {
				t.Fatalf("the ball is at x %v, want 200", p.X)
			}
			want := uint64(1)
			if tc.jump {
				want = 2
			}
			if ip.Snap != tc.jump || c.Stats().Snaps != want {
				t.Fatalf("drawn as a jump %v, %d snaps; want %v, %d", ip.Snap, c.Stats().Snaps, tc.jump, want)
			}
		})
	}
	t.Run("without a Transform", func(t *testing.T) {
		c, cw := held()
		msg := set(set(spawnSnap, 51, 1, 0), 52, 1, 1) // mask: Velocity alone
		_, err := c.HandleDatagram(wire.KindState, msg)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "without a Transform") {
			t.Fatalf("a snap on a spawn without a Transform: %v, want ErrMalformed", err)
		}
		if p, _ := ball(t, cw); p.X != 100 {
			t.Fatalf("the refused spawn moved the ball to x %v", p.X)
		}
		// The same mask without the snap is refused for what follows (its
		// fields are in streams the message does not use), not for a snap.
		if _, err := c.HandleDatagram(wire.KindState, set(msg, 53, 1, 0)); strings.Contains(fmt.Sprint(err), "Transform") {
			t.Fatalf("the spawn without a snap is refused for one: %v", err)
		}
	})
	t.Run("of an entity the client does not hold", func(t *testing.T) {
		cw := ecs.NewWorld()
		c := newTestClient(NewRegistry(cw), ClientConfig{Local: 7})
		for _, name := range []string{"join-page", "join-final"} {
			c.HandleLane(got[name])
			if err := c.Pump(); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok := cw.EntityOf(3); ok {
			t.Fatal("the client holds the ball before its spawn")
		}
		spawns := c.Stats().Spawns
		if _, err := c.HandleDatagram(wire.KindState, spawnSnap); err != nil {
			t.Fatal(err)
		}
		p, ip := ball(t, cw)
		if p.X != 200 || !ip.Snap || ip.Prev != p || c.Stats().Snaps != 0 || c.Stats().Spawns != spawns+1 {
			t.Fatalf("pose %v, %+v, %d snaps, %d spawns; want x 200 drawn where it is, no snap counted", p, *ip, c.Stats().Snaps, c.Stats().Spawns-spawns)
		}
	})
}

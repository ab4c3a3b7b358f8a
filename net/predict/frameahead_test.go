package predict

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// emptyState returns an empty State message body of frame f for reg: no
// item, no stream used, the common mask 0 and base the newest image
// (PROTOCOL.md §9.3).
func emptyState(reg *replicate.Registry, f uint32) []byte {
	fields := 0
	for c := range replicate.Component(reg.Len()) {
		fields += reg.Fields(c)
	}
	var w wire.BitWriter
	w.Reset(wire.AppendUvarint(nil, uint64(f)))
	w.WriteExpGolomb(0, 0) // no item
	for range 2 + 2*fields {
		w.WriteBits(0, 1) // stream not used
	}
	w.WriteBits(0, uint(reg.Len())) // common mask
	w.WriteBits(1, 1)               // common base: the newest image
	return w.Finish()
}

// joinedToAnEmptyWorld returns a rig whose client follows the frames of
// the States its replicator takes (ClientConfig.HostFrame), joined to a
// host's empty world, its notices logged to log as text.
func joinedToAnEmptyWorld(t *testing.T, log *bytes.Buffer) (*rig, *replicate.ClientReplicator) {
	t.Helper()
	var repl *replicate.ClientReplicator
	r := newRig(t, 1, ClientConfig[pad]{
		HostFrame: func() ecs.Frame { return repl.Frame() },
		Logger:    slog.New(slog.NewTextHandler(log, nil)),
	})
	repl = replicate.NewClient(r.reg, replicate.ClientConfig{Local: localPeer, Auth: r.pred})
	for _, m := range [][]byte{{byte(wire.KindJoinPage), 1, 0, 0}, {byte(wire.KindJoinFinal), 1, 1, 0, 0}} {
		if _, err := repl.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	repl.Pump()
	return r, repl
}

// One State of frame 2³²−1 from a host at frame 260 is refused as
// malformed (a frame past the newest by more than 2²⁴): the replicator's
// Frame, and the time synchronization that follows it, go on with the
// host's honest States. (Taken as it came, it held the replicator's Frame
// at 2³²−1 until the next join, so every later host frame was ignored as
// old, the client's frame was set far behind the host's, its inputs landed
// in the host's past and a jump was counted every frame.)
func TestAStateOfAFrameFarAheadIsRefused(t *testing.T) {
	var log bytes.Buffer
	r, repl := joinedToAnEmptyWorld(t, &log)
	host := uint32(200)
	r.w.SetFrame(ecs.Frame(host))
	hostStep := func() {
		host++
		if _, err := repl.HandleDatagram(wire.KindState, emptyState(r.reg, host)); err != nil {
			t.Fatal(err)
		}
		r.steps(1)
	}
	for range 60 {
		hostStep()
	}
	if s := r.pred.Sync().Stats(); !s.Synced || s.Jumps != 0 {
		t.Fatalf("before: %+v", s)
	}
	// One hostile State.
	if _, err := repl.HandleDatagram(wire.KindState, emptyState(r.reg, 1<<32-1)); !errors.Is(err, replicate.ErrMalformed) {
		t.Fatalf("a State of frame 2^32-1 at host frame %d: %v, want ErrMalformed", host, err)
	}
	jumps := r.pred.Sync().Stats().Jumps
	for range 120 {
		hostStep()
	}
	s := r.pred.Sync().Stats()
	t.Logf("after one State of frame 2^32-1 and 120 honest ones: replicator Frame %d (host at %d), client frame %d, %d jumps, %d log lines",
		repl.Frame(), host, r.w.Frame(), s.Jumps-jumps, bytes.Count(log.Bytes(), []byte("\n")))
	if repl.Frame() != ecs.Frame(host) || s.Jumps-jumps > 1 || r.w.Frame() < ecs.Frame(host) {
		t.Fatalf("one State of frame 2^32-1 wedged the replicator's Frame at %d, the client's frame at %d behind the host's %d, %d jumps counted in 120 frames", repl.Frame(), r.w.Frame(), host, s.Jumps-jumps)
	}
}

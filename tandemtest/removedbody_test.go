package tandemtest_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// Foe is an enemy standing in the player's way; the host does not let an
// Armored one be killed, which its clients do not know.
type Foe struct{ Armored, Heavy int8 }

// foeX is where the foe stands, in the player's walk from x 400; a player
// within killReach of it kills it.
const (
	foeX      = 560
	killReach = 60
)

// foeScene is what foes plays: a foe the host does not let her kill
// (armored); a foe killed at the host frame *timed sets, not by reach (she
// walks into it first and stands against it; never while it is 0); the
// host moving her 5 units aside at frame *nudge, which her client does not
// predict (a correction, replayed); and the kill in her client's Replay
// (replayKill) or in its ordinary steps alone.
type foeScene struct {
	armored, replayKill bool
	heavy               bool // the foe is a heavy dynamic body she pushes, not a static one
	timed, nudge        *ecs.Frame
}

// nudgeAhead is how many frames before a timed kill the host moves her.
const nudgeAhead = 4

// foes is a player walking at up to 200 units a second into a foe's static
// body, killing it when she comes within killReach (or at *sc.timed): the
// same system on the host and on her client, before the physics step,
// removing the foe it iterates (World.Remove under the query). The
// returned replay is her client's Game.Replay.
func foes(sc foeScene) (g *tandem.Game[Pedal], replay func(*tandem.World)) {
	walk := func(b *cp.Body, in Pedal, dt float64) ecs.Velocity {
		// Up to 200 units a second, from what she has: against the foe,
		// what the contact left her.
		return ecs.Velocity{X: min(200, b.Velocity().X+3000*dt*float64(in.Throttle))}
	}
	drive := driveWith(walk)
	kill := func(w *tandem.World) {
		var players []ecs.Transform
		pq := generic.NewFilter2[tandem.Input[Pedal], ecs.Transform]().Query(w.ECS.Arche())
		for pq.Next() {
			_, pose := pq.Get()
			players = append(players, *pose)
		}
		fq := generic.NewFilter2[Foe, ecs.Transform]().Query(w.ECS.Arche())
		for fq.Next() {
			foe, pose := fq.Get()
			if w.Removed(fq.Entity()) || w.Refused(fq.Entity()) || w.Role == tandem.Hosting && foe.Armored != 0 {
				continue // gone, or a kill the host refused her: left to the host
			}
			if sc.timed != nil {
				if *sc.timed != 0 && w.ECS.Frame() >= *sc.timed {
					w.Remove(fq.Entity())
				}
				continue
			}
			for _, p := range players {
				if math.Hypot(p.X-pose.X, p.Y-pose.Y) < killReach {
					w.Remove(fq.Entity())
					break
				}
			}
		}
	}
	nudge := func(w *tandem.World) {
		if sc.nudge == nil || w.Role != tandem.Hosting || w.ECS.Frame() != *sc.nudge {
			return
		}
		for _, e := range w.ECS.Owned(1) {
			p := w.Physics.BodyOf(e).Position()
			w.Physics.SetPose(e, ecs.Transform{X: p.X, Y: p.Y + 5})
		}
	}
	attach := func(w *tandem.World, e arche.Entity) {
		if foe := generic.NewMap[Foe](w.ECS.Arche()); foe.Has(e) {
			m := physics.Material{Static: true}
			if foe.Get(e).Heavy != 0 {
				m = physics.Material{Mass: 8, Velocity: physics.GroundFriction(800)}
			}
			w.Physics.AttachBox(e, 32, 120, 0, m)
			return
		}
		w.Physics.AttachCircle(e, 16, physics.Material{Mass: 4})
	}
	g = bodyGame(ecs.Transform{X: 400, Y: 600}, walk, attach)
	g.Components = append(g.Components, tandem.Replicate(replicate.IntegerCodec[Foe]("Foe"), tandem.HostValue))
	setup := g.Setup
	g.Setup = func(w *tandem.World) {
		w.Schedule.Add("kill", ecs.SystemFunc(func(*ecs.World) { kill(w) }))
		w.Schedule.Add("nudge", ecs.SystemFunc(func(*ecs.World) { nudge(w) }))
		setup(w)
		if w.Role != tandem.Hosting || w.Restoring {
			return
		}
		pose := ecs.Transform{X: foeX, Y: 600}
		m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Foe](w.ECS.Arche())
		attach(w, m.NewWith(&pose, &ecs.Velocity{}, &ecs.NetworkIdentity{}, &ecs.Interpolated{Prev: pose}, &Foe{Armored: b2i(sc.armored), Heavy: b2i(sc.heavy)}))
	}
	if sc.replayKill {
		return g, func(w *tandem.World) { kill(w); drive(w) }
	}
	return g, drive
}

func b2i(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// A player who kills a foe standing in her way walks on through where it
// stood on her own client, as she does on the host, which removed it at
// once: a predicted removal takes the foe's body out of her physics
// (physics.Space.SetSolid) until the host's removal comes. Before, its body
// stopped her at x 528 until then (60 ms each way) and the host's states
// then pulled her on: up to 20.8 units from the host's player, after 26
// pose corrections (1, replayed). So it goes when her client replays
// corrections; and a replay from before the kill of a foe she stood
// against steps its body there in the replayed frames before the kill:
// she begins each at most 0.06 units past where the host had her (0.8
// before a replay gave her body the push its contact gave it at the
// frame replayed from, Space.SetPush; with the body out of them, 2.4). A foe the host does not let her
// kill shows again (World.Refused names it, and her kill system leaves it
// to the host), its body solid again, and her player, who walked on
// through it meanwhile, put back where the host has her, stopped by it:
// she then stands against it where the host has her, after 8 pose
// corrections. Before, made solid with her past it, it kept her on its
// far side, 45.5 units from the host's player, after 81.
func TestAKilledFoeDoesNotBlockHerOnHerClient(t *testing.T) {
	for _, c := range []struct {
		what     string
		sc       foeScene
		replayed bool
	}{
		{what: "predicted"},
		{what: "replayed", sc: foeScene{replayKill: true}, replayed: true},
		{what: "stood against, replayed", sc: foeScene{timed: new(ecs.Frame), nudge: new(ecs.Frame)}, replayed: true},
	} {
		t.Run(c.what, func(t *testing.T) {
			k := walkIntoFoe(t, c.sc, c.replayed)
			worst, wf := 0.0, ecs.Frame(0)
			for f, x := range k.annX {
				if hx, ok := k.hostX[f]; ok && f > k.killed && math.Abs(x-hx) > worst {
					worst, wf = math.Abs(x-hx), f
				}
			}
			last := k.annX[k.killed+100]
			for f := k.killed + 100; last == 0 && f < k.killed+110; f++ {
				last = k.annX[f] // a client may step two frames at once
			}
			t.Logf("killed at frame %d; her player at %.1f 100 frames on (the host's %.1f); largest gap to the host's %.2f at frame %d; %d pose corrections",
				k.killed, last, k.hostX[k.killed+100], worst, wf, k.corrected)
			if last < foeX+100 {
				t.Fatalf("her player stopped at %.1f, before the foe's place at %d", last, foeX)
			}
			if c.sc.timed == nil && (worst > 0.5 || k.corrected > 0) {
				t.Errorf("she walked %.2f units from the host's player, with %d pose corrections", worst, k.corrected)
			}
			if c.sc.timed == nil {
				return
			}
			// The replayed frames before the kill: each begins where the
			// host's player ended the frame before, against the foe.
			n, past := 0, 0.0
			for _, s := range k.replayedAt {
				if hx, ok := k.hostX[s.f-1]; ok && s.f <= k.killed {
					n++
					past = max(past, s.x-hx)
				}
			}
			t.Logf("%d replayed frames before the kill; at most %.2f units past the host's player", n, past)
			if n == 0 {
				t.Fatal("no frame before the kill was replayed")
			}
			if past > 0.3 {
				t.Errorf("a replay walked her %.2f units past where the host had her against the foe", past)
			}
		})
	}
	for _, replayed := range []bool{false, true} {
		t.Run(fmt.Sprintf("armored, replayed %v", replayed), func(t *testing.T) {
			k := walkIntoFoe(t, foeScene{armored: true}, replayed)
			both := k.last
			for ; both > 0 && k.hostX[both] == 0; both-- {
			}
			end := k.annX[both] - k.hostX[both]
			t.Logf("%d removals undone; her player %.2f units from the host's at the end; %d pose corrections", k.undone, end, k.corrected)
			if k.undone != 1 || !k.shown || !k.solidAgain {
				t.Errorf("a foe the host kept: %d removals undone, shown again %v, its body solid again %v; want 1, true, true", k.undone, k.shown, k.solidAgain)
			}
			if math.Abs(end) > 1 {
				t.Errorf("at the end she is %.2f units from the host's player, who stands against the foe", end)
			}
		})
	}
	// A heavy foe the host keeps, which she pushes on: her client puts her
	// back behind it and holds it (simulates it itself) as she pushes it,
	// and, once the corrections of the undo are made, leaves her be.
	// Before, they went on for as long as she pushed, at every state (the
	// last 100 frames: 50 and 50): the hold began from a state of the foe
	// the host sent long before (its small moves go seldom) and kept it a
	// unit behind the host's, as the hold's tolerance allows; a correction
	// of hers dropped the push apart the contact gave her, sinking her
	// into it; and a replay put the foe on the host's stale state at every
	// replayed frame.
	for _, replayed := range []bool{false, true} {
		t.Run(fmt.Sprintf("armored and heavy, replayed %v", replayed), func(t *testing.T) {
			k := walkIntoFoe(t, foeScene{armored: true, heavy: true}, replayed)
			both := k.last
			for ; both > 0 && k.hostX[both] == 0; both-- {
			}
			end := k.annX[both] - k.hostX[both]
			t.Logf("%d removals undone; %d pose corrections, %d in the last 60 frames; at the end %.3f units from the host's player", k.undone, k.corrected, k.late, end)
			if k.undone != 1 {
				t.Fatalf("%d removals undone, want 1", k.undone)
			}
			if k.late > 0 || math.Abs(end) > 0.01 {
				t.Errorf("pushing the foe the host kept, she was corrected %d times in the last 60 frames, and ends %.3f units from the host's player", k.late, end)
			}
		})
	}
}

// foeWalk is what walkIntoFoe saw.
type foeWalk struct {
	killed      ecs.Frame             // the frame her client killed the foe at
	last        ecs.Frame             // her client's last frame
	annX, hostX map[ecs.Frame]float64 // her player's x on her client, on the host
	replayedAt  []framedX             // her player's x as each replayed frame began
	corrected   uint64                // her client's pose corrections while she walked
	late        uint64                // of those, in the last 60 frames
	replays     uint64                // and its replays
	undone      uint64                // NetStats.RemovalsUndone
	shown       bool                  // the killed foe showed again on her client
	solidAgain  bool                  // its body was in her physics again after
}

// framedX is an x at a frame.
type framedX struct {
	f ecs.Frame
	x float64
}

// walkIntoFoe walks a player into the foe of scene sc over a 60 ms link,
// her client replaying its corrections if replayed.
func walkIntoFoe(t *testing.T, sc foeScene, replayed bool) foeWalk {
	g, replay := foes(sc)
	k := foeWalk{annX: map[ecs.Frame]float64{}, hostX: logHostX(g)}
	link := condition.Config{Latency: 60 * time.Millisecond}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	cfg := tandem.ClientConfig[Pedal]{}
	var peer ecs.PeerID // hers, once she joined
	if replayed {
		cfg.Replay = func(w *tandem.World) {
			if owned := w.ECS.Owned(peer); peer != 0 && len(owned) > 0 {
				k.replayedAt = append(k.replayedAt, framedX{w.ECS.Frame(), w.Physics.BodyOf(owned[0]).Position().X})
			}
			replay(w)
		}
	}
	ann := r.Join("ann", cfg)
	peer = ann.Peer()
	r.Step(60)
	if sc.timed != nil {
		// She reaches the foe about 30 frames after she sets off, and
		// stands against it about 40 before it dies.
		r.Host.Do(func(w *tandem.World) { *sc.timed = w.ECS.Frame() + 70 })
	}
	if sc.nudge != nil {
		r.Host.Do(func(w *tandem.World) { *sc.nudge = w.ECS.Frame() + 70 - nudgeAhead })
	}
	before := ann.NetStats().Predict
	ann.SetInput(Pedal{Throttle: 1})
	foe := generic.NewFilter1[Foe]()
	hidden := false
	var lateFrom uint64
	for i := range 260 {
		if i == 200 {
			lateFrom = ann.NetStats().Predict.PoseCorrections
		}
		r.Step(1)
		ann.Do(func(w *tandem.World) {
			f := w.ECS.Frame()
			k.last = f
			k.annX[f] = w.Physics.BodyOf(w.ECS.Owned(ann.Peer())[0]).Position().X
			q := foe.Query(w.ECS.Arche())
			for q.Next() {
				removed := w.Removed(q.Entity())
				if k.killed == 0 && removed {
					k.killed = f
				}
				if hidden && !removed {
					k.shown = true
				}
				if k.shown && w.Physics.Solid(q.Entity()) {
					k.solidAgain = true
				}
				hidden = removed
			}
		})
	}
	if k.killed == 0 && (sc.timed == nil || *sc.timed != 0) {
		t.Fatal("her client never killed the foe")
	}
	st := ann.NetStats()
	k.corrected = st.Predict.PoseCorrections - before.PoseCorrections
	k.late = st.Predict.PoseCorrections - lateFrom
	k.replays = st.Predict.Replays - before.Replays
	k.undone = st.RemovalsUndone
	return k
}

// A player standing against a wall whom the host moves aside once, which
// her client replays (Game.Replay), settles where the host's does, and the
// replays end: the replay puts her body back where its recorded frame had
// it keeping the push apart the contact gave it at every step
// (physics.Space.MoveKeepingPush). Put back with the push dropped, the
// first replayed frame sank her into the wall by her velocity's step, she
// settled deeper than the host's player, and every state after was a
// correction and a replay: 60 pose corrections and 60 replays in the last
// 2 s, 0.235 units from the host's player.
func TestAReplayAgainstAWallSettlesAsTheHostDoes(t *testing.T) {
	sc := foeScene{timed: new(ecs.Frame), nudge: new(ecs.Frame)}
	g, replay := foes(sc)
	hostX := logHostX(g)
	link := condition.Config{Latency: 60 * time.Millisecond}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Pedal]{Replay: replay})
	r.Step(60)
	r.Host.Do(func(w *tandem.World) { *sc.nudge = w.ECS.Frame() + 70 }) // 40 frames into standing against the wall
	ann.SetInput(Pedal{Throttle: 1})
	r.Step(120)
	before := ann.NetStats().Predict
	var x float64
	var f ecs.Frame
	r.Step(120)
	ann.Do(func(w *tandem.World) { f, x = w.ECS.Frame(), w.Physics.BodyOf(w.ECS.Owned(ann.Peer())[0]).Position().X })
	st := ann.NetStats().Predict
	for ; f > 0 && hostX[f] == 0; f-- { // her client is ahead of the host
	}
	t.Logf("the last 2 s: %d pose corrections, %d replays; at the end %.3f units from the host's player", st.PoseCorrections-before.PoseCorrections, st.Replays-before.Replays, x-hostX[f])
	if n := st.PoseCorrections - before.PoseCorrections; n > 2 {
		t.Errorf("standing against the wall after the host moved her, she took %d pose corrections in 2 s", n)
	}
}

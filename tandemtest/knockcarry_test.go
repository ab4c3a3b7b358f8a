package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// A player at rest whom the host knocks away on ground friction is
// corrected on her own client to the speed the host's friction has left her
// by then, not the speed of the knock: friction slows the host's moving
// body and not her resting one, so the difference of the knock's frame,
// added as it was, left her faster than the host's, and each state after
// corrected her again (here 10 velocity corrections and 28 in all over a
// 120 ms link; a brawler trial's player was set to 680 units a second where
// the host's had slowed to 500, and ran 29 units past it). Her client now
// carries the host's velocity and its own of that frame to the present as
// the friction does (predict.VelocityCarrier), and her pose by what the two
// travelled apart since: 1 velocity and 1 pose correction (the velocity's
// carried alone, 9 pose corrections followed as the host's body ran on).
func TestAKnockFromRestIsCorrectedToTheSpeedFrictionLeaves(t *testing.T) {
	k := knockFromRest(t, knockScene{})
	rest := k.hostX[k.at+100]
	t.Logf("knocked at 700 units/s from x 400: the host's car stopped at %.1f; %d velocity, %d pose and %d corrections in all", rest, k.st.VelocityCorrections, k.st.PoseCorrections, k.st.Corrections)
	if math.Abs(k.annX[k.at+120]-rest) > 1 {
		t.Fatalf("her car settled at %.1f, the host's at %.1f", k.annX[k.at+120], rest)
	}
	if k.st.VelocityCorrections > 1 || k.st.PoseCorrections > 1 {
		t.Errorf("a knock from rest took %d velocity and %d pose corrections to settle", k.st.VelocityCorrections, k.st.PoseCorrections)
	}
}

// A player knocked from rest into a wall, or into another player standing
// in her way, is not drawn past it on her own client: her pose's correction
// carries the knock's travel to the present (carryPose), which stops where
// a sweep of her body meets what it moves into, as the host's stopped there
// (physics.Space.ClampTravel), and so does her velocity into it, not along
// it. Corrected by the knock's frame alone, the states after took her to
// 653, through the wall's face at 600 (the host's stopped at 584.5); with
// the travel carried whole, not stopped, the contact threw her back from
// 593; swept by the line of her centre alone (cp's own query), a wall her
// body reached and her centre did not was missed where the space held
// another static shape; with other players passed through, she was put at
// 678 through the player at 540 the host's stopped against at 591; with
// her velocity stopped along the travel, not the wall's normal, a slanting
// knock stopped her dead where the host's slid on along the wall (14
// velocity corrections).
func TestAKnockedPlayerStopsAtWhatSheMeetsOnHerClient(t *testing.T) {
	for _, sc := range []knockScene{
		{what: "a wall", wall: true},
		{what: "a wall at a slant", wall: true, knock: ecs.Velocity{X: 700, Y: 350}},
		{what: "a player", bob: true},
	} {
		k := knockFromRest(t, sc)
		hostMax, annMax := math.Inf(-1), math.Inf(-1)
		for f := k.at; f < k.at+120; f++ {
			hostMax, annMax = max(hostMax, k.hostX[f]), max(annMax, k.annX[f])
		}
		t.Logf("knocked from x 400 into %s: the host's player reached x %.1f, hers %.1f; %d velocity, %d pose and %d corrections in all",
			sc.what, hostMax, annMax, k.st.VelocityCorrections, k.st.PoseCorrections, k.st.Corrections)
		if stop := float64(wallX - knockRadius); sc.wall && hostMax < stop-1 {
			t.Fatalf("the host's player reached %.1f only: the knock did not take him to the wall", hostMax)
		}
		if annMax > hostMax+1 {
			t.Errorf("knocked into %s, her client drew her at x %.1f, the host's player stopped at %.1f", sc.what, annMax, hostMax)
		}
		if k.st.VelocityCorrections > 3 {
			t.Errorf("knocked into %s, she took %d velocity corrections", sc.what, k.st.VelocityCorrections)
		}
		if rest, now := k.hostPose[k.at+100], k.annPose[k.at+120]; math.Hypot(now.X-rest.X, now.Y-rest.Y) > 1 {
			t.Errorf("knocked into %s, she settled at (%.1f, %.1f), the host's player at (%.1f, %.1f)", sc.what, now.X, now.Y, rest.X, rest.Y)
		}
	}
}

// The wall of the knock into a wall, the player standing in the way, and
// the knocked player's radius.
const (
	wallX       = 600
	bobX        = 540
	knockRadius = 16
)

// knockScene is a knock from rest: the knock's velocity (700 along x if
// zero), and what stands in the way: a wall across the floor at wallX, or
// another player standing at bobX. The floor always has another static
// shape far off (cp's index of static shapes is then a tree).
type knockScene struct {
	what      string
	knock     ecs.Velocity
	wall, bob bool
}

// knocked is what knockFromRest saw.
type knocked struct {
	at                ecs.Frame                   // the knock's frame
	hostX, annX       map[ecs.Frame]float64       // the player's x on the host, on her client
	hostPose, annPose map[ecs.Frame]ecs.Transform // and her pose
	st                predict.ClientStats         // her client's corrections
}

// knockFromRest has the host knock a player at rest on ground friction
// over a 120 ms link, in scene sc.
func knockFromRest(t *testing.T, sc knockScene) knocked {
	if sc.knock == (ecs.Velocity{}) {
		sc.knock = ecs.Velocity{X: 700}
	}
	floor := physics.Material{Mass: 4, Velocity: physics.GroundFriction(600)}
	coast := func(b *cp.Body, _ Pedal, _ float64) ecs.Velocity {
		v := b.Velocity()
		return ecs.Velocity{X: v.X, Y: v.Y}
	}
	g := bodyGame(ecs.Transform{X: 400, Y: 600}, coast, func(w *tandem.World, e arche.Entity) { w.Physics.AttachCircle(e, knockRadius, floor) })
	k := knocked{hostX: map[ecs.Frame]float64{}, annX: map[ecs.Frame]float64{}, hostPose: map[ecs.Frame]ecs.Transform{}, annPose: map[ecs.Frame]ecs.Transform{}}
	pose := func(b *cp.Body) ecs.Transform { p := b.Position(); return ecs.Transform{X: p.X, Y: p.Y} }
	setup := g.Setup
	g.Setup = func(w *tandem.World) {
		setup(w)
		w.Physics.StaticSegment(cp.Vector{X: -5000, Y: 5000}, cp.Vector{X: 5000, Y: 5000}, 0, physics.Material{})
		if sc.wall {
			w.Physics.StaticSegment(cp.Vector{X: wallX, Y: 0}, cp.Vector{X: wallX, Y: 1200}, 0, physics.Material{})
		}
		if w.Role != tandem.Hosting {
			return
		}
		w.Schedule.Add("knock", ecs.SystemFunc(func(ew *ecs.World) {
			if owned := ew.Owned(1); len(owned) > 0 && ew.Frame() == k.at {
				w.Physics.SetVelocity(owned[0], sc.knock)
			}
		}))
		w.Schedule.AddTo(ecs.StageOutput, "log", ecs.SystemFunc(func(ew *ecs.World) {
			if owned := ew.Owned(1); len(owned) > 0 {
				k.hostPose[ew.Frame()] = pose(w.Physics.BodyOf(owned[0]))
				k.hostX[ew.Frame()] = k.hostPose[ew.Frame()].X
			}
		}))
	}
	link := condition.Config{Latency: 120 * time.Millisecond}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Pedal]{})
	if sc.bob {
		bob := r.Join("bob", tandem.ClientConfig[Pedal]{})
		r.Step(10)
		r.Host.Do(func(w *tandem.World) {
			w.Physics.SetPose(w.ECS.Owned(bob.Peer())[0], ecs.Transform{X: bobX, Y: 600})
		})
	}
	r.Step(60)
	r.Host.Do(func(w *tandem.World) { k.at = w.ECS.Frame() + 5 })
	for range 150 {
		r.Step(1)
		ann.Do(func(w *tandem.World) {
			if owned := w.ECS.Owned(ann.Peer()); len(owned) > 0 {
				k.annPose[w.ECS.Frame()] = pose(w.Physics.BodyOf(owned[0]))
				k.annX[w.ECS.Frame()] = k.annPose[w.ECS.Frame()].X
			}
		})
	}
	k.st = ann.NetStats().Predict
	return k
}

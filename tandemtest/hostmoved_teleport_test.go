package tandemtest_test

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// The host teleports ann's unit (marked HostMoved on her client) 5,000
// units on: ann, its owner, draws it jumping, as bob, another player, does.
// (Ann drew it sliding across the 5,000 units: the AuthState's teleport
// was dropped.)
func TestAHostMovedUnitTeleportedIsDrawnJumping(t *testing.T) {
	link := condition.Config{Latency: 40 * time.Millisecond}
	r := tandemtest.New(t, units(true), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	r.Step(60)
	var id ecs.NetID
	var from float64
	r.Host.Do(func(w *tandem.World) {
		a := w.ECS.Arche()
		for _, e := range w.ECS.Owned(ann.Peer()) {
			if a.Has(e, arche.ComponentID[Unit](a)) {
				ni, _ := w.ECS.Identity(e)
				id = ni.ID
				tf := (*ecs.Transform)(a.Get(e, w.ECS.IDs.Transform))
				from = tf.X
				tf.X += 5000
				ecs.MutateComponent(w.ECS, e, w.ECS.IDs.Transform)
				ecs.ReportTeleport(w.ECS, e)
			}
		}
	})
	between := map[string]int{}
	for range 90 {
		r.Step(1)
		for name, c := range map[string]*tandem.Client[Walk]{"ann": ann, "bob": bob} {
			c.View(r.Clock.Now(), func(v *tandem.View) {
				e, ok := v.World.ECS.EntityOf(id)
				if !ok {
					return
				}
				if p, ok := v.Pose(e); ok && p.X > from+500 && p.X < from+4500 {
					between[name]++
				}
			})
		}
	}
	if between["bob"] != 0 || between["ann"] != 0 {
		t.Fatalf("drawn frames between the teleport's ends (more than 500 units from both): ann (owner, HostMoved) %d, bob %d; want 0 for both", between["ann"], between["bob"])
	}
}

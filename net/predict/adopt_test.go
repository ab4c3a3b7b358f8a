package predict

import (
	"fmt"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A newcomer made at a past frame (a respawn, a squad given at once) is
// replayed from that frame with the inputs recorded since: it ends where an
// entity owned since that frame, from the same state, is. The replay makes
// room for more owned entities than the history held (it had room for 4,
// the first stride: a fifth owned entity, or five made at once for a client
// owning none, panicked).
func TestAdoptedNewcomersArePredictedFromTheirMaking(t *testing.T) {
	for _, tc := range []struct{ owned, made int }{{0, 1}, {4, 1}, {0, 5}, {3, 6}} {
		t.Run(fmt.Sprintf("%d owned, %d made", tc.owned, tc.made), func(t *testing.T) {
			r := newRig(t, tc.owned, ClientConfig[pad]{Reconcile: Replay})
			r.steps(10)
			// Twins: owned since frame at, as the newcomers will be made.
			var twins []arche.Entity
			for i := range tc.made {
				twins = append(twins, r.g.add(localPeer, float64(100+10*i), 5))
			}
			r.steps(1)
			at := r.w.Frame()
			r.steps(6)
			var made []arche.Entity
			for _, tw := range twins {
				e := r.g.add(localPeer, 0, 0)
				*r.g.tf.Get(e) = predicted[ecs.Transform](t, r.pred, at, tw, 0)
				*r.g.vel.Get(e) = predicted[ecs.Velocity](t, r.pred, at, tw, 1)
				*r.g.chg.Get(e) = predicted[charge](t, r.pred, at, tw, 2)
				r.pred.Adopt(e, at)
				made = append(made, e)
			}
			r.pred.AdoptArrived(r.w)
			if st := r.pred.Stats(); st.Adopted != uint64(tc.made) || st.NotAdopted != 0 {
				t.Fatalf("adopted %d, not adopted %d; want %d adopted", st.Adopted, st.NotAdopted, tc.made)
			}
			for i, e := range made {
				if got, want := *r.g.tf.Get(e), *r.g.tf.Get(twins[i]); got != want {
					t.Fatalf("newcomer %d is at %+v after its adoption, its twin owned since frame %d at %+v", i, got, at, want)
				}
				if got, want := *r.g.chg.Get(e), *r.g.chg.Get(twins[i]); got != want {
					t.Fatalf("newcomer %d's charge is %+v, its twin's %+v", i, got, want)
				}
			}
		})
	}
}

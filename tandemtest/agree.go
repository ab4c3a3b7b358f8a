package tandemtest

import (
	"fmt"
	"slices"
	"strings"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
)

// Agree reports whether client c holds what host h sends it: nil, or an
// error that names the differences (the first few of each kind, and how
// many in all). They agree when the networked entities in c's scope on h
// (Host.InScope) are the ones c holds (but those it keeps drawing out to
// their removal, ecs.Departing), each with h's owner, and each with h's
// replicated components and, in every field, h's value as its codec sends
// it (World.AppendWireImage: equal within each codec's precision).
//
// A body c predicts (ecs.Predicted) runs ahead of the host: it is compared
// as c had it at the host's frame (World.AppendWireImageAt), so a moving
// platform agrees when c predicted it right.
//
// Otherwise it checks a world at rest, or at rest where c looks: a moving
// entity's newest state is on its way to c, and a client's own entities
// are ahead of the host. A world whose entities in c's scope never stop
// moving never agrees: leave out the values of what moves (AgreeExcept), or
// give the game a pause flag its systems check and set it before stepping
// until Agree. So a test steps until they agree, and fails if they never
// do:
//
//	if !r.StepUntil(600, func() bool { return tandemtest.Agree(r.Host, c) == nil }) {
//		t.Fatal(tandemtest.Agree(r.Host, c))
//	}
//
// It works on a Rig's host and clients and on a Loopback's. Call it from
// the test's goroutine, not from inside a callback (it takes each world in
// turn, with Do).
func Agree[I comparable](h *tandem.Host[I], c *tandem.Client[I]) error {
	return AgreeExcept(h, c, nil)
}

// AgreeExcept is Agree for a world that never rests: the entities moving
// names are checked for being held, and with h's owner, but not for their
// values. moving is called on h's world (inside its Do) with each networked
// entity in c's scope; nil names none, and AgreeExcept is then Agree. So a
// test of a world whose animals wander checks that each client holds its
// scope, and the values of all that stands still:
//
//	animal := func(w *tandem.World, e arche.Entity) bool { return w.ECS.Arche().Has(e, animalID) }
//	if !r.StepUntil(600, func() bool { return tandemtest.AgreeExcept(r.Host, c, animal) == nil }) {
//		t.Fatal(tandemtest.AgreeExcept(r.Host, c, animal))
//	}
//
// A moving entity can still be missing or extra for a few steps where it
// crosses the edge of c's scope, its entry or exit on its way: step until
// they agree, as with Agree.
func AgreeExcept[I comparable](h *tandem.Host[I], c *tandem.Client[I], moving func(w *tandem.World, e arche.Entity) bool) error {
	peer := c.Peer()
	want := map[ecs.NetID]held{}
	var frame ecs.Frame
	h.Do(func(w *tandem.World) {
		frame = w.ECS.Frame()
		eachNetworked(w, func(e arche.Entity, ni ecs.NetworkIdentity) {
			if !h.InScope(peer, e) {
				return
			}
			if moving != nil && moving(w, e) {
				want[ni.ID] = held{owner: ni.Owner, moving: true}
				return
			}
			want[ni.ID] = held{owner: ni.Owner, image: w.AppendWireImage(nil, e)}
		})
	})
	got := map[ecs.NetID]held{}
	var missing, extra, owners, values, unrecorded differences
	c.Do(func(w *tandem.World) {
		eachNetworked(w, func(e arche.Entity, ni ecs.NetworkIdentity) {
			if w.ECS.Arche().Has(e, w.ECS.IDs.Departing) {
				return
			}
			image, ok := w.AppendWireImageAt(nil, e, frame)
			got[ni.ID] = held{owner: ni.Owner, image: image, unrecorded: !ok}
		})
	})
	for _, id := range sortedIDs(want) {
		hw := want[id]
		cw, ok := got[id]
		switch {
		case !ok:
			missing.add(fmt.Sprintf("%d", id))
		case cw.owner != hw.owner:
			owners.add(fmt.Sprintf("%d: owner %d on the host, %d on the client", id, hw.owner, cw.owner))
		case hw.moving:
		case cw.unrecorded:
			unrecorded.add(fmt.Sprintf("%d", id))
		case !slices.Equal(cw.image, hw.image):
			values.add(fmt.Sprintf("%d: %v on the host, %v on the client", id, hw.image, cw.image))
		}
	}
	for _, id := range sortedIDs(got) {
		if _, ok := want[id]; !ok {
			extra.add(fmt.Sprintf("%d", id))
		}
	}
	if missing.n+extra.n+owners.n+values.n+unrecorded.n == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tandemtest: client %s does not hold what the host sends it (%d entities in its scope, %d held)", peerName(h, peer), len(want), len(got))
	missing.say(&b, "in its scope and not held (entity ids)")
	extra.say(&b, "held and not in its scope (entity ids)")
	owners.say(&b, "with another owner")
	values.say(&b, "with other values (wire images: per component, 1 and its fields, or 0 and zeros)")
	unrecorded.say(&b, fmt.Sprintf("predicted with no record of the host's frame %d (entity ids)", frame))
	return fmt.Errorf("%s", b.String())
}

// held is what a machine holds of one networked entity.
type held struct {
	owner ecs.PeerID
	image []int32
	// unrecorded: a predicted body with no record of the host's frame.
	unrecorded bool
	// moving: on the host, an entity whose values AgreeExcept leaves out.
	moving bool
}

// eachNetworked calls f with each networked entity of w and its identity.
func eachNetworked(w *tandem.World, f func(arche.Entity, ecs.NetworkIdentity)) {
	a := w.ECS.Arche()
	q := a.Query(arche.All(w.ECS.IDs.NetworkIdentity))
	var es []arche.Entity
	var ids []ecs.NetworkIdentity
	for q.Next() {
		es = append(es, q.Entity())
		ids = append(ids, *(*ecs.NetworkIdentity)(q.Get(w.ECS.IDs.NetworkIdentity)))
	}
	// Outside the query: f may look at the world as it likes.
	for i, e := range es {
		f(e, ids[i])
	}
}

// sortedIDs returns m's ids in order.
func sortedIDs(m map[ecs.NetID]held) []ecs.NetID {
	ids := make([]ecs.NetID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// differences collects the first few of one kind of difference, and counts
// them all.
type differences struct {
	n     int
	first []string
}

// sayFirst is how many differences of a kind an error names.
const sayFirst = 5

func (d *differences) add(s string) {
	d.n++
	if len(d.first) < sayFirst {
		d.first = append(d.first, s)
	}
}

func (d *differences) say(b *strings.Builder, what string) {
	if d.n == 0 {
		return
	}
	fmt.Fprintf(b, "; %d %s: %s", d.n, what, strings.Join(d.first, ", "))
	if d.n > len(d.first) {
		b.WriteString(", …")
	}
}

// peerName names peer as the host knows it: "ann (peer 2)", or "peer 2" if
// the host does not know it any more. It reads the host's stats on its
// goroutine (Do): a Loopback's host writes them meanwhile.
func peerName[I comparable](h *tandem.Host[I], peer ecs.PeerID) string {
	var stats []tandem.PeerStats
	h.Do(func(*tandem.World) { stats = h.AppendPeerStats(nil) })
	for _, st := range stats {
		if st.Peer == peer && st.Name != "" {
			return fmt.Sprintf("%s (peer %d)", st.Name, peer)
		}
	}
	return fmt.Sprintf("peer %d", peer)
}

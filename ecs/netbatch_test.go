package ecs

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/ecs/event"
)

// seenListener records the networked entities it hears created, and
// whether the index held each one when it heard of it.
type seenListener struct {
	w       *World
	mask    arche.Mask
	created []arche.Entity
	indexed int
}

func (l *seenListener) Notify(_ *arche.World, evt arche.EntityEvent) {
	if !evt.Contains(event.EntityCreated) {
		return
	}
	l.created = append(l.created, evt.Entity)
	if _, ok := l.w.NetSlot(evt.Entity); ok {
		l.indexed++
	}
}

func (l *seenListener) Subscriptions() event.Subscription { return event.EntityCreated }
func (l *seenListener) Components() *arche.Mask           { return &l.mask }

// TestNewNetworkedIndexes: a NetBatch's entities are indexed with the
// identities given (or a fresh id for ID 0), journaled as spawned, and
// listeners hear of them after the index has them; the world's listener
// works as before afterwards, with and without a listener added.
func TestNewNetworkedIndexes(t *testing.T) {
	for _, withListener := range []bool{false, true} {
		w := NewWorld()
		var l *seenListener
		if withListener {
			l = &seenListener{w: w, mask: arche.All(w.IDs.NetworkIdentity)}
			w.AddListener(l)
		}
		const n = 5000 // more than a chunk of the index's tables
		b := w.NewNetworked(n, w.IDs.NetworkIdentity, w.IDs.Transform)
		k := 0
		var made []arche.Entity
		for b.Next() {
			(*Transform)(b.Get(w.IDs.Transform)).X = float64(k)
			switch {
			case k%3 == 0:
				// Left to Next: indexed with what the component holds.
				(*NetworkIdentity)(b.Get(w.IDs.NetworkIdentity)).ID = NetID(100 + k)
			case k%3 == 1:
				slot := b.Identify(NetworkIdentity{ID: NetID(100 + k), Owner: PeerID(k % 7)})
				if got, ok := w.NetSlot(b.Entity()); !ok || got != slot {
					t.Fatalf("Identify's slot %d, NetSlot %d %v", slot, got, ok)
				}
			}
			made = append(made, b.Entity())
			k++
		}
		if k != n || w.Networked() != n {
			t.Fatalf("iterated %d, networked %d, want %d", k, w.Networked(), n)
		}
		ids := map[NetID]bool{}
		for k, e := range made {
			ni, ok := w.Identity(e)
			if !ok {
				t.Fatalf("entity %d not indexed", k)
			}
			if ni.ID == 0 || ids[ni.ID] {
				t.Fatalf("entity %d: id %d is zero or given twice", k, ni.ID)
			}
			ids[ni.ID] = true
			switch k % 3 {
			case 2: // a fresh id
			case 1:
				if ni != (NetworkIdentity{ID: NetID(100 + k), Owner: PeerID(k % 7)}) {
					t.Fatalf("entity %d: identity %+v", k, ni)
				}
			default:
				if ni.ID != NetID(100+k) {
					t.Fatalf("entity %d: id %d", k, ni.ID)
				}
			}
			if got, ok := w.EntityOf(ni.ID); !ok || got != e {
				t.Fatalf("EntityOf(%d) = %v %v", ni.ID, got, ok)
			}
			if got := (*Transform)(w.Arche().Get(e, w.IDs.Transform)).X; got != float64(k) {
				t.Fatalf("entity %d: X %v", k, got)
			}
		}
		if got := len(w.Journal().Spawned(w)); got != n {
			t.Fatalf("journal holds %d spawns, want %d", got, n)
		}
		owned := 0
		for p := range PeerID(7) {
			owned += len(w.Owned(p))
		}
		if owned != n {
			t.Fatalf("owner lists hold %d entities, want %d", owned, n)
		}
		if withListener && (len(l.created) != n || l.indexed != n) {
			t.Fatalf("listener heard %d creations, %d of them indexed; want %d", len(l.created), l.indexed, n)
		}
		// The world's listener is back: ordinary creation and removal are
		// indexed.
		e := w.Arche().NewEntity(w.IDs.NetworkIdentity)
		if _, ok := w.NetSlot(e); !ok {
			t.Fatal("an entity created after the batch is not indexed")
		}
		ni, _ := w.Identity(made[1])
		w.Arche().RemoveEntity(made[1])
		if _, ok := w.EntityOf(ni.ID); ok || w.Networked() != n {
			t.Fatalf("removal after the batch: still found, or %d networked", w.Networked())
		}
	}
}

func TestNewNetworkedWithoutIdentityPanics(t *testing.T) {
	w := NewWorld()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	w.NewNetworked(1, w.IDs.Transform)
}

// TestNewNetworkedShards: batches that together pass many shards leave no
// archetype larger than a shard (arche never copies more than half of one
// as it grows), index every entity, and a filter naming the components
// finds them all.
func TestNewNetworkedShards(t *testing.T) {
	w := NewWorld()
	total := 0
	for _, n := range []int{700, shardSize - 700 + 5, 3 * shardSize, 1, 999} {
		b := w.NewNetworked(n, w.IDs.NetworkIdentity, w.IDs.Transform)
		for b.Next() {
			total++
			b.Identify(NetworkIdentity{ID: NetID(total)})
		}
	}
	if got := w.Networked(); got != total {
		t.Fatalf("the index holds %d entities, want %d", got, total)
	}
	q := w.Arche().Query(arche.All(w.IDs.NetworkIdentity, w.IDs.Transform))
	if got := q.Count(); got != total {
		q.Close()
		t.Fatalf("a filter of the components finds %d entities, want %d", got, total)
	}
	q.Close()
	shards := 0
	for _, node := range w.Arche().Stats().Nodes {
		for _, a := range node.Archetypes {
			if a.Size > 0 {
				shards++
			}
			if a.Capacity > shardSize {
				t.Errorf("an archetype of %d entities has grown to %d, past a shard (%d)", a.Size, a.Capacity, shardSize)
			}
		}
	}
	if want := (total + shardSize - 1) / shardSize; shards != want {
		t.Fatalf("%d entities in %d archetypes, want %d shards", total, shards, want)
	}
}

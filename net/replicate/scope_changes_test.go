package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// TestScopeChangesArePeersChanges checks the changes the grid hands each
// peer against the tick's changes and the peer's records, every send tick
// of a world where entities wander, spawn, leave and change owners, with
// more than 64 peers (two words of peers a cell) that come and go: each
// cell's peers are exactly those whose squares cover it, and each peer is
// handed, in order, exactly the changes in the cells it covers or in none,
// among them every change of an entity in its scope. Cells are given back
// and reused on the way.
func TestScopeChangesArePeersChanges(t *testing.T) {
	cfg := InterestConfig{CellSize: 100, Radius: 450}
	s := newScopeWorld(11, cfg)
	for range 300 {
		s.spawn(0)
	}
	// Entities without a position are in every scope: their changes go to
	// every peer, from no cell.
	vel := generic.NewMap[ecs.Velocity](s.w.Arche())
	loose := generic.NewMap2[ecs.Velocity, ecs.NetworkIdentity](s.w.Arche())
	var unplaced []arche.Entity
	for range 20 {
		unplaced = append(unplaced, loose.NewWith(&ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	s.sched.AddTo(ecs.StageInput, "stir unplaced", ecs.SystemFunc(func(w *ecs.World) { // before the replicator
		for i, e := range unplaced {
			if (int(w.Frame())+i)%3 == 0 {
				vel.Get(e).X++
				ecs.MutateComponent(w, e, w.IDs.Velocity)
			}
		}
	}))
	outs := map[ecs.PeerID]*ackOut{}
	next := ecs.PeerID(1)
	add := func() {
		id := next
		next++
		s.spawn(id)
		outs[id] = &ackOut{}
		s.h.AddPeer(id, outs[id])
	}
	for range 70 {
		add()
	}
	handed, uncelled, reused, free := 0, 0, 0, 0
	for step := range 400 {
		switch {
		case step%37 == 5: // the first peer goes, its bit is freed
			first := next
			for id := range outs {
				first = min(first, id)
			}
			s.h.RemovePeer(first)
			delete(outs, first)
		case step%37 == 20: // a peer comes, into a free bit
			add()
		}
		joining := map[ecs.PeerID]bool{} // a join ending in the step packs from the next
		for id := range outs {
			joining[id] = s.h.Peer(id).Joining()
		}
		s.sched.Step()
		for id, o := range outs {
			for _, tok := range o.tokens {
				s.h.Delivered(id, tok)
			}
			o.tokens = o.tokens[:0]
		}
		h := s.h
		g := &h.grid
		if len(g.free) < free {
			reused++
		}
		free = len(g.free)
		for _, p := range g.peers {
			sc := &p.scope
			if g.bits[sc.bit] != p {
				t.Fatalf("step %d: peer %d's bit %d names another peer", step, p.id, sc.bit)
			}
			for ci := range g.cells {
				seen := g.seen[ci*g.words+sc.bit/64]&(1<<(sc.bit%64)) != 0
				if seen != (sc.cover[ci] > 0) {
					t.Fatalf("step %d: peer %d, cell %d: seen %v, cover %d", step, p.id, ci, seen, sc.cover[ci])
				}
			}
			if joining[p.id] || len(sc.own) == 0 {
				continue
			}
			if sc.tick != h.tick {
				t.Fatalf("step %d: peer %d was handed no changes this send tick", step, p.id)
			}
			var want []change
			for _, ch := range h.changes {
				if ci := h.ents[ch.slot].cell; ci < 0 || sc.cover[ci] > 0 {
					want = append(want, ch)
				} else if ch.owner != p.id && p.slots[ch.slot].flags&fOut == 0 {
					t.Fatalf("step %d: peer %d, entity %d in scope, in a cell it does not cover", step, p.id, ch.id)
				}
			}
			got := g.changesFor(p, h.changes)
			if len(got) != len(want) {
				t.Fatalf("step %d: peer %d handed %d changes, want %d", step, p.id, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("step %d: peer %d, change %d: %+v, want %+v", step, p.id, i, got[i], want[i])
				}
				if h.ents[got[i].slot].cell < 0 {
					uncelled++
				}
			}
			handed += len(got)
		}
	}
	if g := &s.h.grid; g.words != 2 {
		t.Fatalf("%d words of peers a cell, want 2 for %d peers", g.words, len(g.peers))
	}
	if handed == 0 || uncelled == 0 || reused == 0 {
		t.Fatalf("%d changes handed to peers (%d of entities without a position), cells reused in %d steps: the test tests nothing", handed, uncelled, reused)
	}
	t.Logf("%d changes handed to peers (%d of entities without a position); cells reused in %d steps", handed, uncelled, reused)
}

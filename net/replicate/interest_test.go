package replicate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// The package's tests run with the interest grid's checks of its own
// bookkeeping on: a fault panics where it happens.
func init() { strictGrid = true }

// scopeWorld is a world of entities wandering over a grid, some owned by
// peers, for checking the interest grid against its definition.
type scopeWorld struct {
	w     *ecs.World
	reg   *Registry
	h     *HostReplicator
	sched *ecs.Schedule
	rng   *rand.Rand
	tf    generic.Map[ecs.Transform]
	m     generic.Map3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity]
	live  []arche.Entity
	cfg   InterestConfig
	quiet bool // wander does nothing
	// cells is the cell of every live entity by the definition's rule: the
	// cell its position lies in when it appears, kept until its position is
	// a margin or more past the cell's edge (track).
	cells map[arche.Entity][2]int64
}

// newScopeWorld makes a host world with interest cfg (its defaults filled
// in) and no entity yet.
func newScopeWorld(seed uint64, cfg InterestConfig) *scopeWorld {
	cfg.defaults()
	w := ecs.NewWorld()
	s := &scopeWorld{w: w, reg: NewRegistry(w), rng: rand.New(rand.NewPCG(seed, 3)), cfg: cfg, cells: map[arche.Entity][2]int64{}}
	s.tf = generic.NewMap[ecs.Transform](w.Arche())
	s.m = generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	s.h = NewHost(s.reg, HostConfig{SendEvery: 1, Interest: cfg})
	s.sched = ecs.NewSchedule(w, nil, 0)
	s.sched.Add("wander", ecs.SystemFunc(s.wander)).Add("replicate", s.h).Add("track", ecs.SystemFunc(s.track))
	return s
}

// track brings every live entity's cell up to date (scopeWorld.cells):
// along each axis an entity keeps its cell's row or column while its
// position, in wire steps, lies within it widened by the margin (rounded to
// whole steps) on either side, else takes the one it is in.
func (s *scopeWorld) track(*ecs.World) {
	steps := int64(s.cfg.CellSize * s.cfg.StepsPerUnit)
	margin := int64(math.Round(max(s.cfg.Margin, 0) * s.cfg.StepsPerUnit))
	axis := func(p, c int64, known bool) int64 {
		if known && p >= c*steps-margin && p < (c+1)*steps+margin {
			return c
		}
		return int64(math.Floor(float64(p) / float64(steps)))
	}
	cells := make(map[arche.Entity][2]int64, len(s.live))
	for _, e := range s.live {
		var q [3]int32
		s.reg.Quantize(e, 0, q[:])
		c, ok := s.cells[e]
		cells[e] = [2]int64{axis(int64(q[0]), c[0], ok), axis(int64(q[1]), c[1], ok)}
	}
	s.cells = cells
}

func (s *scopeWorld) spawn(owner ecs.PeerID) arche.Entity {
	e := s.m.NewWith(&ecs.Transform{X: s.rng.Float64() * 3000, Y: s.rng.Float64() * 3000}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: owner})
	s.live = append(s.live, e)
	return e
}

// wander moves a third of the entities by up to 60 units, jumps a few far,
// spawns and removes some, now and then removes every entity of a peer, and
// gives peers squares of the game's (Focus) and takes them away.
func (s *scopeWorld) wander(w *ecs.World) {
	if s.quiet {
		return
	}
	for i, e := range s.live {
		if s.rng.IntN(3) != 0 {
			continue
		}
		t := s.tf.Get(e)
		if s.rng.IntN(100) == 0 {
			t.X, t.Y = s.rng.Float64()*3000, s.rng.Float64()*3000
		} else {
			t.X += s.rng.NormFloat64() * 60
			t.Y += s.rng.NormFloat64() * 60
		}
		ecs.MutateComponent(w, e, w.IDs.Transform)
		_ = i
	}
	if s.rng.IntN(5) == 0 {
		s.spawn(ecs.PeerID(s.rng.IntN(4))) // 0: the host's
	}
	if s.rng.IntN(5) == 0 && len(s.live) > 50 {
		i := s.rng.IntN(len(s.live))
		w.Arche().RemoveEntity(s.live[i])
		s.live[i] = s.live[len(s.live)-1]
		s.live = s.live[:len(s.live)-1]
	}
	if s.rng.IntN(40) == 0 {
		e := s.live[s.rng.IntN(len(s.live))]
		ecs.SetOwner(w, e, ecs.PeerID(s.rng.IntN(4)))
	}
	if s.rng.IntN(50) == 0 {
		// The game gives a peer a square of its own, moves it, or takes it.
		p := ecs.PeerID(1 + s.rng.IntN(3))
		if s.rng.IntN(3) == 0 {
			s.h.Unfocus(p)
		} else {
			s.h.Focus(p, s.rng.Float64()*3000, s.rng.Float64()*3000)
		}
	}
	if s.rng.IntN(60) == 0 {
		// Every entity of one peer goes (a player between lives).
		p := ecs.PeerID(1 + s.rng.IntN(3))
		for _, e := range slices.Clone(w.Owned(p)) {
			i := slices.Index(s.live, e)
			s.live = slices.Delete(s.live, i, i+1)
			w.Arche().RemoveEntity(e)
		}
	}
}

// wantInScope is the definition: no position, owned, a peer without squares
// (it never owned anything, and the game gave it none), or within the
// radius (in cells, along each axis) of what it owns, of the game's square
// (Focus), or of what it owned last when it owns nothing now.
func (s *scopeWorld) wantInScope(p ecs.PeerID, e arche.Entity) bool {
	ni, _ := s.w.Identity(e)
	if ni.Owner == p {
		return true
	}
	cell := func(e arche.Entity) (float64, float64) {
		c, ok := s.cells[e]
		if !ok {
			panic("an entity the model does not track: step the schedule (track) first")
		}
		return float64(c[0]), float64(c[1])
	}
	r := math.Ceil(s.cfg.Radius / s.cfg.CellSize)
	x, y := cell(e)
	near := func(cx, cy int32) bool { return math.Abs(float64(cx)-x) <= r && math.Abs(float64(cy)-y) <= r }
	// The grid's records of the cells of the game's square (Focus) and of
	// the square held of what the peer owned last (TestFocus and
	// TestScopeHeldBetweenLives check the cells themselves).
	sc := &s.h.Peer(p).scope
	if sc.pinned && near(sc.px, sc.py) {
		return true
	}
	owned := s.w.Owned(p)
	if len(owned) == 0 {
		if sc.held {
			return near(sc.hx, sc.hy)
		}
		return !sc.pinned
	}
	for _, o := range owned {
		ox, oy := cell(o)
		if math.Abs(ox-x) <= r && math.Abs(oy-y) <= r {
			return true
		}
	}
	return false
}

// TestInterestGridMatchesItsDefinition moves entities and players over a
// grid for a thousand steps and checks, every step, every peer's scope of
// every entity against the definition, and at the end that each client holds
// exactly the entities in its scope.
func TestInterestGridMatchesItsDefinition(t *testing.T) {
	cfg := InterestConfig{CellSize: 100, Radius: 450}
	s := newScopeWorld(9, cfg)
	for range 300 {
		s.spawn(0)
	}
	type peer struct {
		c   *ClientReplicator
		cap *capture
		cw  *ecs.World
	}
	var peers []peer
	for id := ecs.PeerID(1); id <= 3; id++ {
		s.spawn(id)
		cw := ecs.NewWorld()
		c := newTestClient(NewRegistry(cw), ClientConfig{Local: id})
		out := &capture{}
		s.h.AddPeer(id, out)
		peers = append(peers, peer{c, out, cw})
	}
	deliver := func() {
		for i, p := range peers {
			for _, m := range p.cap.lane {
				if _, err := p.c.HandleLane(m); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.c.Pump(); err != nil {
				t.Fatal(err)
			}
			for k, m := range p.cap.msgs {
				if _, err := p.c.HandleDatagram(wireKind(m[0]), m[1:]); err != nil {
					t.Fatalf("peer %d: %v", i+1, err)
				}
				if p.cap.tokens[k] != 0 {
					s.h.Delivered(ecs.PeerID(i+1), p.cap.tokens[k])
				}
			}
			p.cap.lane, p.cap.msgs, p.cap.tokens = nil, nil, nil
		}
	}
	var entered, left uint64
	heldSteps, pinnedSteps := 0, 0
	for step := range 1000 {
		s.sched.Step()
		deliver()
		for i := range peers {
			id := ecs.PeerID(i + 1)
			hp := s.h.Peer(id)
			if hp.scope.held {
				heldSteps++
			}
			if hp.scope.pinned {
				pinnedSteps++
			}
			for _, e := range s.live {
				slot, _ := s.w.NetSlot(e)
				got := hp.slots[slot].flags&fOut == 0
				if want := s.wantInScope(id, e); got != want {
					ni, _ := s.w.Identity(e)
					t.Fatalf("step %d: peer %d, entity %d: in scope %v, want %v", step, id, ni.ID, got, want)
				}
			}
		}
	}
	s.sched.Step()
	deliver()
	for i, p := range peers {
		id := ecs.PeerID(i + 1)
		want := 0
		for _, e := range s.live {
			ni, _ := s.w.Identity(e)
			_, held := p.cw.EntityOf(ni.ID)
			if in := s.wantInScope(id, e); in != held {
				t.Fatalf("peer %d: entity %d in scope %v, held by the client %v", id, ni.ID, in, held)
			}
			if s.wantInScope(id, e) {
				want++
			}
		}
		if p.cw.Networked() != want {
			t.Fatalf("peer %d holds %d entities, %d are in its scope", id, p.cw.Networked(), want)
		}
		st := s.h.Peer(id).Stats()
		entered += st.Entered
		left += st.Left
	}
	if entered == 0 || left == 0 || heldSteps == 0 || pinnedSteps == 0 {
		t.Fatalf("nothing entered (%d) or left (%d) any scope, or no peer was left owning nothing (%d peer-steps) or had a square of the game's (%d)", entered, left, heldSteps, pinnedSteps)
	}
	t.Logf("%d entered, %d left, %d peer-steps owning nothing, %d with a square of the game's", entered, left, heldSteps, pinnedSteps)
}

func wireKind(b byte) wire.Kind { return wire.Kind(b) }

// TestInterestScopeUnderLoss: over lossy, reordering links, entities wander
// in and out of three peers' scopes (and jump, spawn, go, change owner);
// once the world is still and the links settle, every client holds exactly
// the entities in its scope, each as the host has it.
func TestInterestScopeUnderLoss(t *testing.T) {
	for seed := uint64(11); seed < 11+scopeSeeds; seed++ {
		scopeUnderLoss(t, seed)
	}
}

var scopeSeeds uint64 = 5

func scopeUnderLoss(t *testing.T, seed uint64) {
	cfg := InterestConfig{CellSize: 100, Radius: 450}
	s := newScopeWorld(seed, cfg)
	for range 300 {
		s.spawn(0)
	}
	type peer struct {
		c  *ClientReplicator
		l  *link
		cw *ecs.World
	}
	var peers []peer
	for id := ecs.PeerID(1); id <= 3; id++ {
		s.spawn(id)
		cw := ecs.NewWorld()
		c := newTestClient(NewRegistry(cw), ClientConfig{Local: id})
		l := &link{rng: rand.New(rand.NewPCG(uint64(id), seed)), loss: 0.2, delay: 3, jitter: 3, peer: id}
		s.h.AddPeer(id, l)
		peers = append(peers, peer{c, l, cw})
	}
	step := func() {
		s.sched.Step()
		for _, p := range peers {
			p.l.step(t, s.h, p.c)
		}
	}
	for range 600 {
		step()
	}
	s.quiet = true
	for range 300 {
		step()
	}
	var left uint64
	for i, p := range peers {
		id := ecs.PeerID(i + 1)
		want := 0
		for _, e := range s.live {
			ni, _ := s.w.Identity(e)
			ce, held := p.cw.EntityOf(ni.ID)
			in := s.wantInScope(id, e)
			if in != held {
				t.Fatalf("seed %d: peer %d: entity %d (owner %d) in scope %v, held by the client %v", seed, id, ni.ID, ni.Owner, in, held)
			}
			if !in {
				continue
			}
			want++
			var hq, cq [3]int32
			s.reg.Quantize(e, 0, hq[:])
			p.c.reg.Quantize(ce, 0, cq[:])
			if hq != cq {
				t.Fatalf("seed %d: peer %d: entity %d (owner %d) at %v on the client, %v on the host", seed, id, ni.ID, ni.Owner, cq, hq)
			}
		}
		if p.cw.Networked() != want {
			q := generic.NewFilter1[ecs.NetworkIdentity]().Query(p.cw.Arche())
			for q.Next() {
				ni := q.Get()
				if _, ok := s.w.EntityOf(ni.ID); !ok {
					cs, _ := p.cw.NetSlot(q.Entity())
					t.Logf("extra: id %d owner %d slot %+v", ni.ID, ni.Owner, p.c.slots.peek(cs))
				}
			}
			t.Fatalf("peer %d holds %d entities, %d are in its scope", id, p.cw.Networked(), want)
		}
		left += s.h.Peer(id).Stats().Left
	}
	if left == 0 {
		t.Fatal("nothing left any scope")
	}
}

// TestGridGivesBackEmptyCells runs an entity across 20,000 cells, and back
// into a player's square: the grid holds a bounded number of cells, not
// every cell visited, and scope stays what its definition says through the
// cells given back and reused.
func TestGridGivesBackEmptyCells(t *testing.T) {
	cfg := InterestConfig{CellSize: 10, Radius: 30}
	s := newScopeWorld(4, cfg)
	s.quiet = true
	for range 50 {
		s.spawn(0)
	}
	player := s.spawn(1)
	s.h.AddPeer(1, &capture{})
	runner := s.spawn(0)
	check := func(step int) {
		t.Helper()
		hp := s.h.Peer(1)
		for _, e := range s.live {
			slot, _ := s.w.NetSlot(e)
			if got, want := hp.slots[slot].flags&fOut == 0, s.wantInScope(1, e); got != want {
				ni, _ := s.w.Identity(e)
				t.Fatalf("step %d: entity %d in scope %v, want %v", step, ni.ID, got, want)
			}
		}
	}
	most := 0
	for step := range 20_000 {
		t := s.tf.Get(runner)
		t.X, t.Y = float64(step)*cfg.CellSize, 1500
		ecs.MutateComponent(s.w, runner, s.w.IDs.Transform)
		s.sched.Step()
		most = max(most, len(s.h.grid.cells))
		if step%997 == 0 {
			check(step)
		}
	}
	// At most the occupied cells (the 52 others' and the runner's), as many
	// empty ones as occupied or minEmptyCells, and the one just made.
	if bound := 2*(52+1) + minEmptyCells + 1; most > bound {
		t.Fatalf("the grid held %d cells at most (20,000 visited), want at most %d", most, bound)
	}
	// Back beside the player: in its scope again, through reused cells.
	pt := s.tf.Get(player)
	rt := s.tf.Get(runner)
	rt.X, rt.Y = pt.X+cfg.CellSize, pt.Y
	ecs.MutateComponent(s.w, runner, s.w.IDs.Transform)
	s.sched.Step()
	check(20_000)
	if slot, _ := s.w.NetSlot(runner); s.h.Peer(1).slots[slot].flags&fOut != 0 {
		t.Fatal("the runner beside the player is out of its scope")
	}
}

// propField is a scope world of cells of 100 units (a margin of 12.5) and a
// radius of one cell (a square of 3×3 cells), with a prop at the middle of
// each cell of the 8×8 from the origin.
type propField struct{ *scopeWorld }

func newPropField() propField {
	f := propField{newScopeWorld(1, InterestConfig{CellSize: 100, Radius: 100})}
	f.quiet = true
	for i := range 8 {
		for j := range 8 {
			f.put(f.spawn(0), 50+100*float64(i), 50+100*float64(j))
		}
	}
	return f
}

// put moves e to (x, y), reported.
func (f propField) put(e arche.Entity, x, y float64) {
	tf := f.tf.Get(e)
	tf.X, tf.Y = x, y
	ecs.MutateComponent(f.w, e, f.w.IDs.Transform)
}

// inScope reports whether e is in peer's scope.
func (f propField) inScope(peer ecs.PeerID, e arche.Entity) bool {
	slot, _ := f.w.NetSlot(e)
	return f.h.Peer(peer).slots[slot].flags&fOut == 0
}

// TestScopeHoldsAtACellEdge: a player wavering across the edge of its cell,
// and an entity wavering across the edge of the player's square, by less
// than the margin, enter and leave nothing; once the player goes a margin
// past the edge, its square moves.
func TestScopeHoldsAtACellEdge(t *testing.T) {
	f := newPropField()
	player := f.spawn(1)
	f.put(player, 150, 150)
	rocker := f.spawn(0)
	f.put(rocker, 299, 150) // in cell (2, 1): the edge of the player's square
	f.h.AddPeer(1, &capture{})
	f.sched.Step()
	if !f.inScope(1, rocker) {
		t.Fatal("the entity at the square's edge is out of the player's scope")
	}
	hp := f.h.Peer(1)
	before := hp.Stats()
	for step := range 40 {
		d := float64(step%2)*2 - 1 // −1, +1, …: across x = 200 and x = 300
		f.put(player, 200+10*d, 150)
		f.put(rocker, 300+10*d, 150)
		f.sched.Step()
		if !f.inScope(1, rocker) {
			t.Fatalf("step %d: the wavering entity left the player's scope", step)
		}
	}
	if st := hp.Stats(); st.Entered != before.Entered || st.Left != before.Left {
		t.Fatalf("wavering by less than the margin: %d entered and %d left the player's scope, want none", st.Entered-before.Entered, st.Left-before.Left)
	}
	f.put(player, 213, 150) // a margin past the edge: cell (2, 1)
	f.sched.Step()
	if st := hp.Stats(); st.Entered-before.Entered != 3 || st.Left-before.Left != 3 {
		t.Fatalf("a cell to the east: %d entered and %d left, want the 3 of a column each", st.Entered-before.Entered, st.Left-before.Left)
	}
	for _, e := range f.live {
		if got, want := f.inScope(1, e), f.wantInScope(1, e); got != want {
			ni, _ := f.w.Identity(e)
			t.Fatalf("entity %d: in scope %v, want %v", ni.ID, got, want)
		}
	}
}

// TestWalkAlongACellEdge: a player walking east along the edge between two
// rows, wavering across it by less than the margin, keeps its row: each
// column it enters brings the 3 props of a column and takes 3 away, and no
// row comes and goes.
func TestWalkAlongACellEdge(t *testing.T) {
	f := newPropField()
	player := f.spawn(1)
	f.put(player, 150, 210) // cell (1, 2), 10 units from the row edge at y = 200
	f.h.AddPeer(1, &capture{})
	f.sched.Step()
	hp := f.h.Peer(1)
	before := hp.Stats()
	slot, _ := f.w.NetSlot(player)
	row := f.h.grid.cells[f.h.ents[slot].cell].y
	columns := 0
	col := f.h.grid.cells[f.h.ents[slot].cell].x
	for step := range 80 {
		f.put(player, 150+7*float64(step), 200+5*float64(step%2*2-1)) // y 195, 205, …
		f.sched.Step()
		c := f.h.grid.cells[f.h.ents[slot].cell]
		if c.y != row {
			t.Fatalf("step %d: the player wavering 5 units about a row edge changed row (%d, was %d)", step, c.y, row)
		}
		if c.x != col {
			columns, col = columns+1, c.x
		}
	}
	if columns == 0 {
		t.Fatal("the player changed no column: the test walks nowhere")
	}
	if st := hp.Stats(); st.Entered-before.Entered != uint64(3*columns) || st.Left-before.Left != uint64(3*columns) {
		t.Fatalf("%d columns walked: %d entered and %d left, want %d each", columns, st.Entered-before.Entered, st.Left-before.Left, 3*columns)
	}
}

// TestFocusHoldsAtACellEdge: a camera square (Focus) following a point that
// wavers across a cell edge by less than the margin does not move; moved a
// margin past it, it does.
func TestFocusHoldsAtACellEdge(t *testing.T) {
	f := newPropField()
	f.spawn(1) // the peer's own entity, far from the camera's
	f.h.AddPeer(1, &capture{})
	f.h.Focus(1, 550, 550)
	f.sched.Step()
	hp := f.h.Peer(1)
	before := hp.Stats()
	for step := range 40 {
		f.h.Focus(1, 600+8*float64(step%2*2-1), 600-8*float64(step%2*2-1))
		f.sched.Step()
	}
	if st := hp.Stats(); st.Entered != before.Entered || st.Left != before.Left {
		t.Fatalf("a camera wavering by less than the margin: %d entered and %d left, want none", st.Entered-before.Entered, st.Left-before.Left)
	}
	if sc := &hp.scope; sc.px != 5 || sc.py != 5 {
		t.Fatalf("the camera's square is at cell (%d, %d), want (5, 5)", sc.px, sc.py)
	}
	f.h.Focus(1, 614, 550) // 14 units past the edge: cell (6, 5)
	f.sched.Step()
	if sc := &hp.scope; sc.px != 6 || sc.py != 5 {
		t.Fatalf("moved past the margin, the camera's square is at cell (%d, %d), want (6, 5)", sc.px, sc.py)
	}
}

// TestCellMargin: an entity stays in its cell while less than the margin
// past its edge, with a whole number of wire steps to a cell and without.
func TestCellMargin(t *testing.T) {
	none := InterestConfig{CellSize: 100, Margin: -1}
	none.defaults()
	none.defaults() // as HostReplicator.Config's result, given to a host again
	var g grid
	g.init(&none)
	if none.Margin >= 0 || g.margin != 0 || g.fmargin != 0 {
		t.Fatalf("a negative margin read back as %v (in steps %d): want none", none.Margin, g.margin)
	}
	for _, size := range []float64{100, 100.3} {
		cfg := InterestConfig{CellSize: size}
		cfg.defaults()
		var g grid
		g.init(&cfg)
		if whole := size == 100; (g.isteps > 0) != whole {
			t.Fatalf("cell size %v: whole steps %v, want %v", size, g.isteps > 0, whole)
		}
		c := cell{x: 2, y: -1, x0: 2 * g.isteps, y0: -g.isteps}
		steps := size * PositionScale
		m := cfg.Margin * PositionScale
		for _, u := range []float64{-0.5, -0.12, -0.13, 0, 0.5, 0.99, 1.12, 1.13, 1.5} {
			for _, v := range []float64{-0.12, 0.5, 1.13} {
				x, y := (2+u)*steps, (-1+v)*steps
				img := []int32{int32(math.Floor(x)), int32(math.Floor(y)), 0}
				in := func(p, lo float64) bool { return p >= lo-m && p < lo+steps+m }
				want := in(float64(img[0]), 2*steps) && in(float64(img[1]), -steps)
				got := g.follow(float64(img[0]), c.x) == c.x && g.follow(float64(img[1]), c.y) == c.y
				if got != want {
					t.Errorf("cell size %v: (%v, %v) cells from the corner: stays %v, want %v", size, u, v, got, want)
				}
				if fx := math.Floor(float64(img[0]) / steps); !in(float64(img[0]), 2*steps) && g.follow(float64(img[0]), c.x) != int32(fx) {
					t.Errorf("cell size %v: %v cells from the corner along x: column %d, want %v", size, u, g.follow(float64(img[0]), c.x), fx)
				}
				if g.isteps > 0 && g.stays(img[:2], &c) != got {
					t.Errorf("cell size %v: (%v, %v) cells from the corner: stays %v by the quick check, %v by follow", size, u, v, !got, got)
				}
			}
		}
	}
}

// Settings out of range are brought to their bounds, as NewHost does with
// the others, and the grid works with them: a radius past 65,536 cells,
// infinite too (it panicked, making a table of weights as long), one or a
// cell size that is not a number (their defaults), a cell smaller than a
// wire step (one step).
func TestInterestConfigBounds(t *testing.T) {
	for name, cfg := range map[string]InterestConfig{
		"radius 1e12":    {Radius: 1e12},
		"radius +Inf":    {Radius: math.Inf(1)},
		"radius NaN":     {Radius: math.NaN()},
		"cell NaN":       {CellSize: math.NaN()},
		"cell +Inf":      {CellSize: math.Inf(1), Radius: math.Inf(1)},
		"cell 1e-9":      {CellSize: 1e-9, Radius: 1},
		"cell and 1e300": {CellSize: 1e300, Radius: 1e300},
		"steps +Inf":     {StepsPerUnit: math.Inf(1)},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, HostConfig{Interest: cfg})
			r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
			near := r.m.NewWith(&ecs.Transform{X: 1.0 / PositionScale}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			r.settle()
			got := r.h.Config().Interest
			if !(got.Radius/got.CellSize <= maxRadiusCells) || got.CellSize < 1.0/PositionScale || r.h.grid.r > maxRadiusCells {
				t.Errorf("radius %v, cell size %v (%d cells); want at most %d cells, of a wire step at least", got.Radius, got.CellSize, r.h.grid.r, maxRadiusCells)
			}
			if _, held := r.cw.EntityOf(mustID(r.w, near)); !held {
				t.Error("the entity a wire step from the peer's own is not held")
			}
		})
	}
}

// Cells of a wire step span the int32s: the cells at the two ends of the
// position range are near 2^32 apart, not neighbours (their difference
// wrapped), and a square at an end of the int32s, walked cell by cell,
// holds the cells within the radius on the inner side (the walk stopped at
// once, its last coordinate wrapped past the end).
func TestCellsAtTheEndsOfTheRange(t *testing.T) {
	const step = 1.0 / PositionScale
	t.Run("ends apart", func(t *testing.T) {
		r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: step, Radius: 2}})
		r.m.NewWith(&ecs.Transform{X: 5e6}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
		other := r.m.NewWith(&ecs.Transform{X: -5e6}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		r.settle()
		if r.inScopeOf(1, other) {
			t.Error("the entity at one end of the range is in scope of the peer's own at the other")
		}
	})
	t.Run("square at an end", func(t *testing.T) {
		cfg := InterestConfig{CellSize: step, Radius: step}
		cfg.defaults()
		var g grid
		g.init(&cfg)
		xs := []int32{math.MinInt32, math.MinInt32 + 1, math.MaxInt32 - 2, math.MaxInt32 - 1, math.MaxInt32}
		for x := range int32(10) { // more cells than a square's 9: it is walked cell by cell
			xs = append(xs, x)
		}
		for _, x := range xs {
			g.cellAt(x, 0)
		}
		for _, end := range []int32{math.MaxInt32, math.MinInt32} {
			var got []int32
			g.eachSquareCell(end, 0, func(ci int32) { got = append(got, g.cells[ci].x) })
			slices.Sort(got)
			want := []int32{end - 1, end}
			if end < 0 {
				want = []int32{end, end + 1}
			}
			if !slices.Equal(got, want) {
				t.Errorf("the square around cell (%d, 0) holds the cells at x %v, want %v", end, got, want)
			}
		}
	})
}

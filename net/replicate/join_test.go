package replicate

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// pacedLane is a test Out whose join lane drains a fixed number of bytes per
// step, like a stream limited by flow control.
type pacedLane struct {
	link
	rate    int // bytes per step
	queued  [][]byte
	credit  int
	maxHeld int
}

func (l *pacedLane) SendLane(lane transport.Lane, msg []byte) error {
	l.queued = append(l.queued, append([]byte(nil), msg...))
	return nil
}

func (l *pacedLane) LaneBuffered(lane transport.Lane) int {
	n := 0
	for _, m := range l.queued {
		n += len(m)
	}
	l.maxHeld = max(l.maxHeld, n)
	return n
}

func (l *pacedLane) drain(t *testing.T, c *ClientReplicator) {
	l.credit += l.rate
	for len(l.queued) > 0 && l.credit >= len(l.queued[0]) {
		l.credit -= len(l.queued[0])
		if _, err := c.HandleLane(l.queued[0]); err != nil {
			t.Fatalf("lane: %v", err)
		}
		l.queued = l.queued[1:]
	}
	if err := c.Pump(); err != nil {
		t.Fatalf("join: %v", err)
	}
	if len(l.queued) == 0 {
		l.credit = 0
	}
}

// joinedLane runs a host of an n-entity still world (bigWorld) until it has
// sent one peer's whole join, and returns what the peer's connection was
// handed: the join's pages, then FINAL, on its lane.
func joinedLane(n int) *capture {
	_, reg, sched := bigWorld(n, 0)
	h := NewHost(reg, HostConfig{})
	sched.Add("replicate", h)
	out := &capture{}
	h.AddPeer(1, out)
	for len(out.lane) == 0 || wire.Kind(out.lane[len(out.lane)-1][0]) != wire.KindJoinFinal {
		sched.Step()
	}
	return out
}

// steppedHost makes a still world of n networked entities (bigWorld) with a
// host replicator that has taken it in at a first step, before any peer.
func steppedHost(n int) (*HostReplicator, *ecs.Schedule) {
	_, reg, sched := bigWorld(n, 0)
	h := NewHost(reg, HostConfig{})
	sched.Add("replicate", h)
	sched.Step() // the host takes in the world
	return h, sched
}

// bigWorld makes n networked entities and a system that moves `changes` of
// them, at random, every step.
func bigWorld(n, changes int) (*ecs.World, *Registry, *ecs.Schedule) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	q := m.NewBatchQ(n)
	es := make([]arche.Entity, 0, n)
	i := 0
	for q.Next() {
		t, _, _ := q.Get()
		t.X, t.Y = float64(i%1000), float64(i/1000)
		es = append(es, q.Entity())
		i++
	}
	tf := generic.NewMap[ecs.Transform](w.Arche())
	rng := rand.New(rand.NewPCG(1, 2))
	s := ecs.NewSchedule(w, nil, 0)
	s.Add("move", ecs.SystemFunc(func(w *ecs.World) {
		for range changes {
			e := es[rng.IntN(len(es))]
			tf.Get(e).X += 0.5
			ecs.MutateComponent(w, e, w.IDs.Transform)
		}
	}))
	return w, reg, s
}

func TestJoinLargeWorldWhileChanging(t *testing.T) {
	if testing.Short() {
		t.Skip("large world")
	}
	const n = 200_000
	w, reg, sched := bigWorld(n, 1000)
	// A window of 256 KiB on a lane draining 1 MiB a step: the join takes
	// many steps, in which the world changes.
	h := NewHost(reg, HostConfig{BitsPerSecond: 100_000_000, JoinWindow: 256 << 10})
	sched.Add("replicate", h)
	cw := ecs.NewWorld()
	creg := NewRegistry(cw)
	c := newTestClient(creg, ClientConfig{Local: 1})
	l := &pacedLane{link: link{rng: rand.New(rand.NewPCG(5, 6)), delay: 3, peer: 1}, rate: 1 << 20}
	p := h.AddPeer(1, l)
	steps := 0
	for !c.Joined() {
		sched.Step()
		l.drain(t, c)
		l.link.step(t, h, c)
		if p.Err() != nil {
			t.Fatalf("peer dropped: %v", p.Err())
		}
		if steps++; steps > 2000 {
			got, total := c.Progress()
			t.Fatalf("join not finished after %d steps: %d of %d", steps, got, total)
		}
	}
	if got, total := c.Progress(); got < n || total != n {
		t.Fatalf("progress %d of %d, want at least %d of %d", got, total, n, n)
	}
	// Let replication carry what changed after FINAL, then stop changing.
	sched = ecs.NewSchedule(w, nil, 0)
	sched.Add("replicate", h)
	for range 120 {
		sched.Step()
		l.drain(t, c)
		l.link.step(t, h, c)
	}
	checkImage(t, &scene{w: w, reg: reg}, cw, creg)
	st := p.Stats()
	t.Logf("join: %d steps, %d pages, %d bytes, %d rounds, lane peak %d bytes", steps, st.JoinPages, st.JoinBytes, st.JoinRounds, l.maxHeld)
	if st.JoinRounds < 2 {
		t.Fatalf("a world changing during a multi-tick join needs catch-up rounds; got %d", st.JoinRounds)
	}
	if l.maxHeld > h.Config().JoinWindow+h.Config().JoinPage+1024 {
		t.Fatalf("join lane held %d bytes, window %d", l.maxHeld, h.Config().JoinWindow)
	}
}

func TestJoinSmallWorldInOneTick(t *testing.T) {
	w, reg, sched := bigWorld(1000, 0)
	h := NewHost(reg, HostConfig{})
	sched.Add("replicate", h)
	cw := ecs.NewWorld()
	creg := NewRegistry(cw)
	// A clock that stands still: the client's one Pump applies the whole
	// join whatever the machine's speed (its slices are timed elsewhere).
	c := NewClient(creg, ClientConfig{Local: 1, Clock: clock.NewFake(time.Unix(0, 0))})
	l := &pacedLane{link: link{rng: rand.New(rand.NewPCG(5, 6)), peer: 1}, rate: 1 << 30}
	p := h.AddPeer(1, l)
	if r := p.Stats().JoinRounds; r != 1 {
		t.Fatalf("a join begun reads %d rounds, want 1", r)
	}
	sched.Step()
	if p.Joining() {
		t.Fatal("a world within one tick's window must join in one tick")
	}
	if r := p.Stats().JoinRounds; r != 1 {
		t.Fatalf("a join in one round reads %d rounds, want 1", r)
	}
	l.drain(t, c)
	if !c.Joined() {
		t.Fatal("client did not see FINAL")
	}
	checkImage(t, &scene{w: w, reg: reg}, cw, creg)
}

func TestJoinTooSlowIsDropped(t *testing.T) {
	w, reg, sched := bigWorld(20_000, 5000)
	_ = w
	h := NewHost(reg, HostConfig{JoinWindow: 32 << 10, JoinPage: 8 << 10})
	sched.Add("replicate", h)
	cw := ecs.NewWorld()
	c := newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
	l := &pacedLane{link: link{rng: rand.New(rand.NewPCG(5, 6)), peer: 1}, rate: 32 << 10}
	p := h.AddPeer(1, l)
	for range 5000 {
		sched.Step()
		l.drain(t, c)
		if p.Err() != nil {
			break
		}
	}
	if !errors.Is(p.Err(), ErrJoinTooSlow) {
		t.Fatalf("peer error %v, want ErrJoinTooSlow", p.Err())
	}
	if p.Stats().JoinRounds != h.Config().MaxJoinRounds {
		t.Fatalf("dropped after %d rounds, want %d", p.Stats().JoinRounds, h.Config().MaxJoinRounds)
	}
	if c.Joined() {
		t.Fatal("client joined a world it could not keep up with")
	}
}

// joinedClient returns a client of a world of its own that joined with the
// join messages seedJoin (pages and FINAL, in order).
func joinedClient(t *testing.T, seedJoin [][]byte, cfg ClientConfig) *ClientReplicator {
	t.Helper()
	c := NewClient(NewRegistry(ecs.NewWorld()), cfg)
	for _, m := range seedJoin {
		c.HandleLane(m)
	}
	for c.Waiting() > 0 {
		c.Pump()
	}
	if !c.Joined() {
		t.Fatal("the seed world did not join")
	}
	return c
}

func FuzzClientDatagram(f *testing.F) {
	host := newScene(1, 20)
	h := NewHost(host.reg, HostConfig{})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	l := &link{rng: rand.New(rand.NewPCG(1, 1)), peer: 1}
	h.AddPeer(1, l)
	for range 10 {
		host.sched.Step()
	}
	for _, p := range l.inflight {
		f.Add(byte(p.kind), p.payload)
	}
	// An AuthState of entity 1 with a teleport (PROTOCOL.md §9.4).
	f.Add(byte(wire.KindAuthState), []byte{5, 1, 0x0d, 3, 0, 0, 0, 0, 0, 0})
	// A spawn of entity 3, which the client holds, whose pose is of a
	// teleport (PROTOCOL.md §9.3, state-spawn-snap).
	f.Add(byte(wire.KindState), []byte{9, 0x0a, 0x00, 0x22, 0x91, 0x08, 0xb2, 0x16, 0x00, 0x00, 0x42, 0x80, 0x0c, 0x01})
	// A Backlog (PROTOCOL.md §9.6).
	f.Add(byte(wire.KindBacklog), appendBacklog(nil, 40, 120, 256, 15))
	var seedJoin [][]byte // the pages and FINAL
	for _, m := range l.lane {
		f.Add(m[0], m)
		if k := wire.Kind(m[0]); k == wire.KindJoinPage || k == wire.KindJoinFinal {
			seedJoin = append(seedJoin, m)
		}
	}
	// The seed world's entities, and one more: a State may spawn one new
	// entity, a second is refused (ErrTooManyEntities).
	seedWorld := seedClient(seedJoin, ClientConfig{Local: 1}).w.Networked()
	f.Fuzz(func(t *testing.T, kind byte, payload []byte) {
		// Join with the seed world first, so updates and deltas meet entities
		// that exist; then the fuzzed input on every path. Each call is
		// counted as it says and the world stays whole and within bounds
		// (clientcheck_fuzz_test.go).
		c := joinedClient(t, seedJoin, ClientConfig{Local: 1, MaxHeld: 4, MaxEntities: seedWorld + 1})
		fuzzDatagram(t, c, wire.Kind(kind), payload)
		checkClientWorld(t, c)
		// And as join messages of a client still joining, whose bound is
		// below the seed world: its join page is refused whole.
		c = newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1, MaxHeld: 4, MaxEntities: seedWorld - 4})
		fuzzLane(t, c, payload)
		fuzzLane(t, c, append([]byte{byte(wire.KindJoinPage)}, payload...))
		fuzzPump(t, c)
		checkClientWorld(t, c)
	})
}

// stepClock is a clock that moves on by step at every reading.
type stepClock struct {
	now  time.Time
	step time.Duration
}

func (c *stepClock) Now() time.Time {
	c.now = c.now.Add(c.step)
	return c.now
}

// TestClientAppliesJoinInSlices: join pages that arrived all at once are
// applied a bounded slice per Pump (the frame's share), every entity in the
// end, and the join is done only when the last slice applies FINAL; the
// Pumps that make room for the join first are one for a world of fewer than
// splitFrom entities, four for a larger one.
func TestClientAppliesJoinInSlices(t *testing.T) {
	for _, n := range []int{20000, 40000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { joinInSlices(t, n) })
	}
}

// joinInSlices is TestClientAppliesJoinInSlices for a world of n entities.
func joinInSlices(t *testing.T, n int) {
	out := joinedLane(n)
	pages := len(out.lane) - 1
	// Each page "takes" 0.6 ms of the 2 ms slice: three pages a Pump, as a
	// fourth would end past it.
	clk := &stepClock{now: time.Unix(0, 0), step: 600 * time.Microsecond}
	cw := ecs.NewWorld()
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, JoinSlice: 2 * time.Millisecond, Clock: clk})
	for _, m := range out.lane {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	pumps := 0
	for !c.Joined() {
		before := c.Stats().Pages
		room, _ := cw.EntityRoom()
		owned, chunks := cap(cw.Owned(0)), len(c.slots.chunks)
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
		pumps++
		applied := c.Stats().Pages - before
		grown, _ := cw.EntityRoom()
		if applied == 0 && !c.Joined() && grown <= room && cap(cw.Owned(0)) == owned && len(c.slots.chunks) == chunks {
			t.Fatalf("pump %d applied nothing with %d bytes waiting, and grew nothing", pumps, c.Waiting())
		}
		if applied > 3 {
			t.Fatalf("pump %d applied %d pages in one slice", pumps, applied)
		}
		if d := c.Stats().LongestSlice; d > 2*time.Millisecond {
			t.Fatalf("pump %d took %v, past its 2 ms slice", pumps, d)
		}
		if got, _ := c.Progress(); !c.Joined() && got != cw.Networked() {
			t.Fatalf("progress %d, world %d", got, cw.Networked())
		}
		if pumps > pages {
			t.Fatal("the join never ends")
		}
	}
	if cw.Networked() != n {
		t.Fatalf("client holds %d of %d entities", cw.Networked(), n)
	}
	// Fewer than splitFrom entities: one Pump more, which makes room in
	// arche's index and pool for the world the first page announced and
	// the first chunk of the client's tables (TestMidSizeJoinMakesRoomOnce);
	// then the pages and FINAL, three a Pump. More: five more, two for
	// arche's index and pool (TestJoinMakesRoomForItsEntitiesFirst), one
	// for the first chunk, the first page applied alone, and the Pump after
	// it for the owner list (TestJoinMakesRoomForTheAnnouncedWorld); then
	// the other pages and FINAL, three a Pump.
	want := 1 + (pages+1+2)/3
	if n >= splitFrom {
		want = 5 + (pages+2)/3
	}
	if pumps != want {
		t.Fatalf("%d pumps for %d pages and FINAL, want %d", pumps, pages, want)
	}
	if c.Waiting() != 0 {
		t.Fatalf("%d bytes still waiting after the join", c.Waiting())
	}
}

// TestJoinSliceDefaultsToAMillisecond: with JoinSlice unset, pages that
// take 0.4 ms each are applied two a Pump: a third would end past 1 ms.
func TestJoinSliceDefaultsToAMillisecond(t *testing.T) {
	out := joinedLane(8000)
	clk := &stepClock{now: time.Unix(0, 0), step: 400 * time.Microsecond}
	c := NewClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1, Clock: clk})
	for _, m := range out.lane {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	if got := c.Stats().Pages; got != 2 {
		t.Fatalf("a Pump applied %d pages of 0.4 ms, want 2 in the default slice", got)
	}
}

// TestJoinMakesRoomForItsEntitiesFirst: the first Pumps of a join of
// 40,000 entities into a world that holds a few of its own (a game's local
// scenery) make room in arche's index and pool for all of them, as the
// first page announced, one reallocation a Pump, and apply no page; the
// next makes the first chunk of the client's tables; no later Pump
// reallocates arche's index or pool.
func TestJoinMakesRoomForItsEntitiesFirst(t *testing.T) {
	const n = 40000
	out := joinedLane(n)
	cw := ecs.NewWorld()
	for range 3 {
		cw.Arche().NewEntity(cw.IDs.Transform)
	}
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, JoinSlice: time.Hour, Clock: &stepClock{now: time.Unix(0, 0)}})
	for _, m := range out.lane {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 { // the index, then the pool
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	room, _ := cw.EntityRoom()
	if c.Stats().Pages != 0 || room < n {
		t.Fatalf("the first two Pumps applied %d pages and left room for %d entities, want none and room for %d", c.Stats().Pages, room, n)
	}
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	if c.Stats().Pages != 0 || len(c.slots.chunks) != 1 || len(c.anchors.chunks) != 1 {
		t.Fatalf("the third Pump applied %d pages and made %d chunks of slots, %d of anchors, want none and the first", c.Stats().Pages, len(c.slots.chunks), len(c.anchors.chunks))
	}
	held := cw.Networked()
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	if c.Stats().Pages != 1 || len(c.slots.chunks) != 1 || len(c.anchors.chunks) != 1 {
		t.Fatalf("the fourth Pump applied %d pages and left %d chunks of slots, %d of anchors, want the first page in the first chunk", c.Stats().Pages, len(c.slots.chunks), len(c.anchors.chunks))
	}
	room -= cw.Networked() - held
	for !c.Joined() {
		held := cw.Networked()
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
		made := cw.Networked() - held
		if after, _ := cw.EntityRoom(); after != room-made {
			t.Fatalf("a Pump of pages from %d to %d entities reallocated arche's index (room %d, then %d)", held, held+made, room, after)
		}
		room -= made
	}
	if cw.Networked() != n {
		t.Fatalf("the join ended with %d entities, want %d", cw.Networked(), n)
	}
}

// announcing returns the join page with its count of the host's entities
// replaced by total.
func announcing(t *testing.T, page []byte, total int) []byte {
	r := wire.NewReader(page[1:])
	frame := r.Uvarint32()
	r.Count(1 << 30)
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	out := wire.AppendUvarint([]byte{page[0]}, uint64(frame))
	out = wire.AppendUvarint(out, uint64(total))
	return append(out, page[1+r.Offset():]...)
}

// growing rewrites the join pages of lane as a world that grows while the
// client joins would send them: each page announces only the entities
// brought up to it (a scratch client counts them).
func growing(t *testing.T, lane [][]byte) {
	cw := ecs.NewWorld()
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, JoinSlice: time.Hour, Clock: &stepClock{now: time.Unix(0, 0)}})
	for i, m := range lane {
		if wire.Kind(m[0]) != wire.KindJoinPage {
			continue
		}
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
		for c.Waiting() > 0 {
			if err := c.Pump(); err != nil {
				t.Fatal(err)
			}
		}
		lane[i] = announcing(t, m, cw.Networked())
	}
}

// TestJoinGrowsTheEntityIndexAlone: in a join whose world grows as the
// client joins (each page announcing only the entities up to it), with time
// to spare in every slice, a Pump still ends before a page that would have
// arche reallocate its index of entities or its pool of ids, from 16,384
// entities on, and the next Pumps do those reallocations (one a Pump) and
// nothing else, so no page pays for them: every Pump that applies pages
// there leaves both as it found them.
func TestJoinGrowsTheEntityIndexAlone(t *testing.T) {
	const n = 40000
	out := joinedLane(n)
	growing(t, out.lane)
	cw := ecs.NewWorld()
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, JoinSlice: time.Hour, Clock: &stepClock{now: time.Unix(0, 0)}})
	for _, m := range out.lane {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	var ends []int
	var grew []int // the world when a Pump grew the index or pool
	runFrom := -1  // the room when a run of Pumps applying nothing began
	for !c.Joined() {
		room, ok := cw.EntityRoom()
		if !ok {
			t.Fatal("EntityRoom cannot read arche's index")
		}
		held := cw.Networked()
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
		after, _ := cw.EntityRoom()
		made := cw.Networked() - held
		switch {
		case made == 0 && !c.Joined():
			// The room is the smaller of the two's: growing the other
			// leaves it as it was, so it is checked once the run of
			// such Pumps ends.
			if after < room {
				t.Fatalf("a Pump applied nothing at %d entities and left room for %d (was %d)", held, after, room)
			}
			if runFrom < 0 {
				runFrom = room
			}
			grew = append(grew, held)
		case runFrom >= 0 && (room <= runFrom || room < c.lastPage):
			t.Fatalf("Pumps applying nothing at %d entities took arche's room from %d to %d, short of a page of %d", held, runFrom, room, c.lastPage)
		case held+made >= growsFrom && after != room-made:
			t.Fatalf("a Pump of pages from %d to %d entities reallocated arche's index or pool (room %d, then %d)", held, held+made, room, after)
		}
		if made > 0 {
			runFrom = -1
		}
		ends = append(ends, cw.Networked())
		if len(ends) > 12 {
			t.Fatalf("more than twelve Pumps: the world after each %v", ends)
		}
	}
	// Twice as much room each time from about 16,384, for the index and
	// the pool: at most three times each.
	if len(grew) == 0 || len(grew) > 6 || grew[0] >= growsFrom {
		t.Fatalf("the index and pool grew alone at %v entities, want one to six Pumps from below 16,384 (the world after each Pump %v)", grew, ends)
	}
	if ends[len(ends)-1] != n {
		t.Fatalf("the join ended with %d entities, want %d", ends[len(ends)-1], n)
	}
}

// TestJoinMakesRoomForTheAnnouncedWorld: the first page's count of the
// host's entities, splitFrom or more, has the owner's list made that long
// by the Pump after that page, alone, so the join copies it never after
// (its array then holds the whole world); a count past maxReserve reserves
// no more than maxReserve.
func TestJoinMakesRoomForTheAnnouncedWorld(t *testing.T) {
	const n = 40000
	c, cw := pageAPump(t, joinedLane(n).lane)
	pumpToPage(t, c)
	if got := cap(cw.Owned(0)); got >= n {
		t.Fatalf("the first page's Pump made the owner list room for %d of %d: that is the next Pump's", got, n)
	}
	held := cw.Networked()
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	first := cw.Owned(0)
	if c.Stats().Pages != 1 || cw.Networked() != held || len(first) == 0 || cap(first) < n {
		t.Fatalf("the Pump after the first page applied %d pages (%d entities): %d of the host's entities in a list of room %d, want room for %d and nothing applied", c.Stats().Pages-1, cw.Networked()-held, len(first), cap(first), n)
	}
	for !c.Joined() {
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if all := cw.Owned(0); len(all) != n || unsafe.SliceData(all) != unsafe.SliceData(first) {
		t.Fatalf("the owner list holds %d of %d entities; copied during the join: %v", len(all), n, unsafe.SliceData(all) != unsafe.SliceData(first))
	}

	// One entity, and a count of a billion.
	page := []byte{byte(wire.KindJoinPage), 1}
	page = wire.AppendUvarint(page, 1<<30)
	page = append(page, 0, 1, 0x0d, 0, 0, 0, 0, 0, 0, 0)
	cw = ecs.NewWorld()
	c = newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
	if _, err := c.HandleLane(page); err != nil {
		t.Fatal(err)
	}
	pumpToPage(t, c)
	if err := c.Pump(); err != nil { // the owner list
		t.Fatal(err)
	}
	if got := cap(cw.Owned(0)); got < maxReserve-1 || got > maxReserve {
		t.Fatalf("a page announcing 2^30 entities made the owner list room for %d, want the bound %d", got, maxReserve)
	}
	if room, ok := cw.EntityRoom(); !ok || room < maxReserve-1 || room > maxReserve {
		t.Fatalf("a page announcing 2^30 entities left arche's index room for %d (%v), want the bound %d", room, ok, maxReserve)
	}
	// Idle Pumps make room for the rest of the claim, and no more than the
	// bound: what a host's claim makes a client hold ahead is maxReserve
	// entities' tables, however large the claim.
	for range 4 * maxReserve / chunkLen {
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if got, bound := len(c.slots.chunks), maxReserve/chunkLen; got > bound || len(c.anchors.chunks) > bound {
		t.Fatalf("idle Pumps after a claim of 2^30 entities made %d chunks of slots and %d of anchors, past the bound of %d", got, len(c.anchors.chunks), bound)
	}
	if !cw.ReserveNetworked(maxReserve + chunkLen) {
		t.Fatal("the world's index was made ready past the bound")
	}
}

// TestFirstPageReservesForItsMostOwner: a first page whose first entity is
// the client's own (its player, say) and the rest the host's makes the
// host's owner list as long as the world, not the client's.
func TestFirstPageReservesForItsMostOwner(t *testing.T) {
	const n = 5000
	page := []byte{byte(wire.KindJoinPage), 1}
	page = wire.AppendUvarint(page, n) // the world's entities
	page = append(page, 0)             // no removals
	for id := 1; id <= 40; id++ {
		owner := byte(0)
		if id == 1 {
			owner = 1 // the client's own, first
		}
		page = append(page, byte(id), 0x0d, owner, 0, 0, 0, 0, 0, 0)
	}
	cw := ecs.NewWorld()
	c := newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
	if _, err := c.HandleLane(page); err != nil {
		t.Fatal(err)
	}
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	if len(cw.Owned(0)) != 39 || len(cw.Owned(1)) != 1 {
		t.Fatalf("the page made %d of the host's entities and %d of the client's, want 39 and 1", len(cw.Owned(0)), len(cw.Owned(1)))
	}
	if got := cap(cw.Owned(0)); got < n-1 {
		t.Fatalf("the host's owner list has room for %d, want the world's %d", got, n-1)
	}
}

// TestMidSizeJoinMakesRoomOnce: a join of fewer than splitFrom entities has
// its room made in one Pump, applying nothing (arche's index and pool, the
// first chunk of the client's tables), and the owner list's with the first
// page; every later Pump applies pages, and none reallocates arche's index
// or pool or the owner list.
func TestMidSizeJoinMakesRoomOnce(t *testing.T) {
	const n = 20000
	c, cw := pageAPump(t, joinedLane(n).lane)
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	room, _ := cw.EntityRoom()
	if c.Stats().Pages != 0 || room < n || len(c.slots.chunks) != 1 {
		t.Fatalf("the first Pump applied %d pages, left room for %d and made %d chunks of slots; want none, room for %d and the first chunk", c.Stats().Pages, room, len(c.slots.chunks), n)
	}
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	owned := cw.Owned(0)
	if c.Stats().Pages != 1 || cap(owned) < n {
		t.Fatalf("the second Pump applied %d pages and made the owner list room for %d, want the first page and room for %d", c.Stats().Pages, cap(owned), n)
	}
	room -= cw.Networked()
	for !c.Joined() {
		pages, held := c.Stats().Pages, cw.Networked()
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
		made := cw.Networked() - held
		if c.Stats().Pages == pages && !c.Joined() {
			t.Fatalf("a Pump at %d entities applied no page", held)
		}
		if after, _ := cw.EntityRoom(); after != room-made {
			t.Fatalf("a Pump of pages from %d to %d entities reallocated arche's index or pool (room %d, then %d)", held, held+made, room, after)
		}
		room -= made
	}
	if all := cw.Owned(0); len(all) != n || unsafe.SliceData(all) != unsafe.SliceData(owned) {
		t.Fatalf("the owner list holds %d of %d entities; copied during the join: %v", len(all), n, unsafe.SliceData(all) != unsafe.SliceData(owned))
	}
}

// TestOwnerListWaitsForItsPump: a join announcing a little more than
// splitFrom entities, whose first page brings more than the excess, has
// the owner list's room made in the Pump after that page, alone, as arche's
// and the tables' were before it, not with the page.
func TestOwnerListWaitsForItsPump(t *testing.T) {
	out := joinedLane(3000)
	total := splitFrom + 500
	first := announcing(t, out.lane[0], total)
	cw := ecs.NewWorld()
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, JoinSlice: time.Hour, Clock: &stepClock{now: time.Unix(0, 0)}})
	if _, err := c.HandleLane(first); err != nil {
		t.Fatal(err)
	}
	if _, err := c.HandleLane(out.lane[1]); err != nil {
		t.Fatal(err)
	}
	pumpToPage(t, c)
	held := cw.Networked()
	if held <= 500 || c.Stats().Pages != 1 {
		t.Fatalf("the first page brought %d entities (%d pages), want more than 500 and one page", held, c.Stats().Pages)
	}
	if got := cap(cw.Owned(0)); got >= total {
		t.Fatalf("the first page's Pump made the owner list room for %d of %d", got, total)
	}
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	if c.Stats().Pages != 1 || cw.Networked() != held {
		t.Fatalf("the Pump after the first page applied %d pages", c.Stats().Pages-1)
	}
	if got := cap(cw.Owned(0)); got < total {
		t.Fatalf("the Pump after the first page left the owner list room for %d, want %d", got, total)
	}
}

// TestMostOwnerIsTheMajority: the owner list made long at a join's first
// page is that of the owner of most of the page, wherever its entities are.
func TestMostOwnerIsTheMajority(t *testing.T) {
	for _, tc := range []struct {
		owners []ecs.PeerID
		want   ecs.PeerID
	}{
		{[]ecs.PeerID{0}, 0},
		{[]ecs.PeerID{3, 0, 0, 0, 5}, 0},
		{[]ecs.PeerID{3, 3, 0, 0, 0}, 0},
		{[]ecs.PeerID{0, 0, 7, 7, 7}, 7},
		{[]ecs.PeerID{1, 2, 1, 3, 1, 4, 1}, 1},
	} {
		if got := mostOwner(tc.owners); got != tc.want {
			t.Errorf("mostOwner(%v) = %d, want %d", tc.owners, got, tc.want)
		}
	}
}

// TestIdlePumpGrowsTheEntityIndex: a Pump with no page waiting, when the
// next page would have arche reallocate its index of entities or its pool
// of ids, does that reallocation, so the page then is applied at once, with
// no Pump of its own for it and no reallocation in it. (Each idle Pump
// reallocates one of the two.)
func TestIdlePumpGrowsTheEntityIndex(t *testing.T) {
	const n = 20000
	out := joinedLane(n)
	// The first page announces less than the world (it grew since), so no
	// room is made for it first.
	out.lane[0] = announcing(t, out.lane[0], 1000)
	cw := ecs.NewWorld()
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, JoinSlice: time.Hour, Clock: &stepClock{now: time.Unix(0, 0)}})
	next := 0
	for !c.outgrows(c.total) {
		if next == len(out.lane)-1 {
			t.Fatal("no page of the join would grow the index")
		}
		if _, err := c.HandleLane(out.lane[next]); err != nil {
			t.Fatal(err)
		}
		next++
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	room, _ := cw.EntityRoom()
	for range 2 {
		c.Pump() // nothing waiting: the index, then the pool if it is short
	}
	grown, _ := cw.EntityRoom()
	if grown <= room || grown < c.lastPage {
		t.Fatalf("two idle Pumps before a page of %d left room for %d (was %d)", c.lastPage, grown, room)
	}
	if _, err := c.HandleLane(out.lane[next]); err != nil {
		t.Fatal(err)
	}
	held, pages := cw.Networked(), c.Stats().Pages
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	made := cw.Networked() - held
	if c.Stats().Pages != pages+1 || made == 0 {
		t.Fatalf("the Pump after the idle one applied %d pages, %d entities", c.Stats().Pages-pages, made)
	}
	if after, _ := cw.EntityRoom(); after != grown-made {
		t.Fatalf("the page reallocated the index: room %d, then %d after %d entities", grown, after, made)
	}
}

// TestIdlePumpsMakeRoomForTheJoin: Pumps with no page waiting, after the
// first page said how large the world is, allocate the client's tables and
// the world's index a chunk a call; the rest of the join then adds no chunk
// to them.
func TestIdlePumpsMakeRoomForTheJoin(t *testing.T) {
	const n = 20000
	out := joinedLane(n)
	cw := ecs.NewWorld()
	c := newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
	if _, err := c.HandleLane(out.lane[0]); err != nil {
		t.Fatal(err)
	}
	pumpToPage(t, c)
	chunks := (n + chunkLen - 1) / chunkLen
	c.Pump() // nothing waiting: the owner list first
	for range chunks {
		c.Pump() // then room for what the join announced
	}
	slots, anchors := len(c.slots.chunks), len(c.anchors.chunks)
	if slots != chunks || anchors != chunks {
		t.Fatalf("after idle Pumps: %d and %d chunks of slots and anchors, want %d", slots, anchors, chunks)
	}
	if cw.ReserveNetworked(n - cw.Networked()) {
		t.Fatal("the world's index was not made ready by the idle Pumps")
	}
	for _, m := range out.lane[1:] {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	for !c.Joined() {
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if cw.Networked() != n || len(c.slots.chunks) != slots || len(c.anchors.chunks) != anchors {
		t.Fatalf("joined %d entities; chunks of slots %d → %d, anchors %d → %d", cw.Networked(), slots, len(c.slots.chunks), anchors, len(c.anchors.chunks))
	}
	c.Pump() // joined: nothing more is made
	if len(c.slots.chunks) != slots {
		t.Fatal("a Pump after the join made room")
	}
}

// A world whose entities were made before the replicator's first step with
// the frame ended after them (a world restored from a save: its journal
// reports nothing) is joined whole all the same.
func TestJoinOfAWorldMadeBeforeTheFirstStep(t *testing.T) {
	w, reg, sched := bigWorld(500, 0)
	w.EndFrame() // the spawns are journaled to nobody
	h := NewHost(reg, HostConfig{})
	sched.Add("replicate", h)
	cw := ecs.NewWorld()
	creg := NewRegistry(cw)
	c := newTestClient(creg, ClientConfig{Local: 1})
	l := &link{rng: rand.New(rand.NewPCG(7, 8)), delay: 1, peer: 1}
	h.AddPeer(1, l)
	for range 30 {
		sched.Step()
		l.step(t, h, c)
	}
	if !c.Joined() {
		t.Fatal("client never joined")
	}
	checkImage(t, &scene{w: w, reg: reg}, cw, creg)
}

// TestStepPacesAJoinToppedUpBetweenSteps: once StartJoin tops a join up
// between steps, a step queues no more of its first round than a top-up
// (where a join nobody tops up gets the whole window at its step); the
// join still ends, every entity sent and FINAL sent (between steps by
// StartJoin, or at a step).
func TestStepPacesAJoinToppedUpBetweenSteps(t *testing.T) {
	const n = 60000 // about 900 KB of pages
	for _, paced := range []bool{false, true} {
		h, sched := steppedHost(n)
		s := &sink{}
		p := h.AddPeer(1, s)
		if paced && !h.StartJoin(1) {
			t.Fatal("StartJoin reports nothing more to send of a 60,000-entity world")
		}
		s.queued = 0
		sched.Step()
		limit := joinTopUp + h.cfg.JoinPage + 1024
		switch {
		case paced && s.queued > limit:
			t.Fatalf("a paced join's step queued %d bytes, more than a top-up (%d) and a page", s.queued, joinTopUp)
		case paced && s.queued < joinTopUp:
			t.Fatalf("a paced join's step queued %d bytes, less than a top-up (%d) with the round unsent", s.queued, joinTopUp)
		case !paced && s.queued < 2*limit:
			t.Fatalf("a join nobody tops up got %d bytes at its step; want the world up to the window", s.queued)
		}
		if !paced {
			continue
		}
		for calls := 0; !s.final; calls++ {
			s.queued = 0 // the transport took it all
			if !h.StartJoin(1) {
				sched.Step() // the round is sent: FINAL comes at the step
			}
			if calls > n/100 {
				t.Fatal("the join never ends")
			}
		}
		if got := p.Stats().JoinEntities; got != n {
			t.Fatalf("the paced join sent %d of %d entities", got, n)
		}
	}
}

// TestJoinPageRefusesAnIDTwice: an id twice in one page is malformed,
// whether the page's ids ascend or not; distinct ids in any order are not.
func TestJoinPageRefusesAnIDTwice(t *testing.T) {
	page := func(ids ...uint64) []byte {
		b := []byte{byte(wire.KindJoinPage), 1, byte(len(ids)), 0}
		for _, id := range ids {
			b = wire.AppendUvarint(b, id)
			b = append(b, 0x0d, 0, 0, 0, 0, 0, 0, 0) // spawn {Transform, Velocity}, host-owned, at 0
		}
		return b
	}
	for _, tc := range []struct {
		ids  []uint64
		fail bool
	}{
		{[]uint64{3, 5, 9}, false},
		{[]uint64{9, 5, 3, 7}, false},
		{[]uint64{3, 5, 5}, true},
		{[]uint64{3, 9, 5, 9}, true},
		{[]uint64{3, 9, 5, 3}, true},
	} {
		cw := ecs.NewWorld()
		c := newTestClient(NewRegistry(cw), ClientConfig{Local: 1})
		if _, err := c.HandleLane(page(tc.ids...)); err != nil {
			t.Fatal(err)
		}
		err := c.Pump()
		if got := errors.Is(err, ErrMalformed); got != tc.fail {
			t.Errorf("page of ids %v: Pump %v, want malformed %v", tc.ids, err, tc.fail)
		}
		if !tc.fail && cw.Networked() != len(tc.ids) {
			t.Errorf("page of ids %v: client holds %d entities", tc.ids, cw.Networked())
		}
	}
}

// TestStartJoinTopsUpBetweenSteps: between steps a join sends one page at
// its first call, then keeps at most joinTopUp bytes of pages queued on its
// lane, sends more at each call as
// the lane drains, and says so until its first round is sent; the call that
// finds it sent sends FINAL, with no step.
func TestStartJoinTopsUpBetweenSteps(t *testing.T) {
	const n = 60000 // about 900 KB of pages
	h, _ := steppedHost(n)
	s := &sink{}
	p := h.AddPeer(1, s)
	calls := 0
	for more := true; more; calls++ {
		more = h.StartJoin(1)
		if s.queued > joinTopUp+h.cfg.JoinPage+1024 {
			t.Fatalf("call %d left %d bytes queued, more than %d and a page", calls, s.queued, joinTopUp)
		}
		switch {
		case calls == 0 && (!more || s.pages != 1):
			t.Fatalf("the first call sent %d pages (more %v); want one page, and more", s.pages, more)
		case calls > 0 && more && s.queued < joinTopUp:
			t.Fatalf("call %d stopped at %d bytes queued with pages left", calls, s.queued)
		}
		queued := s.queued
		if again := h.StartJoin(1); calls > 0 && (s.queued != queued || again != more) {
			t.Fatalf("call %d again with nothing drained: %d bytes queued, was %d; more %v, was %v", calls, s.queued, queued, again, more)
		}
		s.queued = 0 // the transport took it all
		if calls > n/100 {
			t.Fatal("the first round never ends")
		}
	}
	if calls < 3 {
		t.Fatalf("the whole round went in %d calls: nothing was left for later ones", calls)
	}
	if got := p.Stats().JoinEntities; got != n || !s.final || p.Joining() {
		t.Fatalf("between steps: %d of %d entities sent, FINAL %v, joining %v; want all, FINAL, done", got, n, s.final, p.Joining())
	}
	if got := int(p.Stats().JoinPages); got+1 != s.pages {
		t.Fatalf("the join counts %d pages, the lane got %d messages with FINAL", got, s.pages)
	}
	if h.StartJoin(1) {
		t.Fatal("StartJoin reports more with the join done")
	}
}

// TestStartJoinLeavesACatchUpToTheStep: entities a join paged that change
// at a step before its round is sent are caught up by a round the next
// step begins: StartJoin sends no FINAL while they are pending.
func TestStartJoinLeavesACatchUpToTheStep(t *testing.T) {
	const n = 60000
	_, reg, sched := bigWorld(n, 500)
	h := NewHost(reg, HostConfig{})
	sched.Add("replicate", h)
	sched.Step()
	s := &sink{}
	p := h.AddPeer(1, s)
	h.StartJoin(1)
	s.queued = 0
	sched.Step() // 500 changes, some of them to entities already paged
	for h.StartJoin(1) {
		s.queued = 0
	}
	if s.final {
		t.Fatal("StartJoin sent FINAL with changed entities to catch up")
	}
	for steps := 0; !s.final; steps++ {
		s.queued = 0
		sched.Step()
		if steps > 100 {
			t.Fatal("the join never ends")
		}
	}
	if st := p.Stats(); st.JoinRounds < 2 || int(st.JoinPages)+1 != s.pages {
		t.Fatalf("rounds %d, pages %d counted and %d messages sent with FINAL; want a catch-up round, every page counted", st.JoinRounds, st.JoinPages, s.pages)
	}
}

// TestStartJoinWaitsForAnOwnerChangedBetweenSteps gives the joining peer an
// entity between steps (as OnJoin may): its scope is the square around that
// entity, which the last step did not know, so StartJoin leaves the join to
// the next step rather than page the whole world as if the peer owned
// nothing.
func TestStartJoinWaitsForAnOwnerChangedBetweenSteps(t *testing.T) {
	w, reg, sched := bigWorld(20000, 0)
	h := NewHost(reg, HostConfig{Interest: InterestConfig{CellSize: 10, Radius: 30}})
	sched.Add("replicate", h)
	sched.Step()
	e, _, _ := w.SlotEntity(0)
	s := &sink{}
	p := h.AddPeer(1, s)
	ecs.SetOwner(w, e, 1) // between steps
	if h.StartJoin(1) {
		t.Fatal("StartJoin has more to send for a peer given an entity since the last step")
	}
	if got := p.Stats().JoinEntities; got != 0 {
		t.Fatalf("StartJoin paged %d entities before the step took in the peer's entity", got)
	}
	for range 5 {
		s.queued = 0
		sched.Step()
	}
	held := p.Held()
	if held == 0 || held >= 20000/2 {
		t.Fatalf("the peer holds %d of 20,000 entities; want its square's share", held)
	}
	if paged := p.Stats().JoinEntities; paged > uint64(2*held) {
		t.Fatalf("the join paged %d entities for a peer whose scope holds %d", paged, held)
	}
}

// TestRejoinOfAHeldWorldMakesNoRoom: a rejoin into a world the client
// holds whole applies its first page in its first Pump, making no room in
// arche's index or pool (the entities are there); a rejoin into a world
// that grew by more than growsFrom entities makes room for them first.
func TestRejoinOfAHeldWorldMakesNoRoom(t *testing.T) {
	const n = 20000
	out := joinedLane(n)
	cw := ecs.NewWorld()
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, JoinSlice: time.Hour, Clock: &stepClock{now: time.Unix(0, 0)}})
	join := func(lane [][]byte) {
		t.Helper()
		for _, m := range lane {
			if _, err := c.HandleLane(m); err != nil {
				t.Fatal(err)
			}
		}
		for range 8 {
			if err := c.Pump(); err != nil {
				t.Fatal(err)
			}
		}
		if !c.Joined() || cw.Networked() != n {
			t.Fatalf("joined %v with %d of %d entities", c.Joined(), cw.Networked(), n)
		}
	}
	join(out.lane)

	c.Rejoin(1, 0, 0)
	for _, m := range out.lane {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	room, _ := cw.EntityRoom()
	pages := c.Stats().Pages
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	if c.Stats().Pages == pages {
		t.Fatal("the first Pump of a rejoin into the world the client holds applied no page")
	}
	if after, _ := cw.EntityRoom(); after != room {
		t.Fatalf("a rejoin into the world the client holds changed arche's room from %d to %d", room, after)
	}
	for !c.Joined() {
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if cw.Networked() != n {
		t.Fatalf("the rejoin left %d of %d entities", cw.Networked(), n)
	}

	// The host's world now announces growsFrom more than the client holds.
	c.Rejoin(1, 0, 0)
	grown := append([][]byte{announcing(t, out.lane[0], n+growsFrom)}, out.lane[1:]...)
	for _, m := range grown {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	pages = c.Stats().Pages
	if err := c.Pump(); err != nil { // fewer than splitFrom: all the room at once
		t.Fatal(err)
	}
	if room, _ := cw.EntityRoom(); c.Stats().Pages != pages || room < growsFrom {
		t.Fatalf("the first Pump of a rejoin announcing %d more entities applied %d pages and left room for %d, want none and room for them", growsFrom, c.Stats().Pages-pages, room)
	}
}

// pumpToPage pumps c until a Pump applies a join page, failing past three
// Pumps that apply none (room made for the join first: arche's index, its
// pool, the first chunk of the tables).
func pumpToPage(t *testing.T, c *ClientReplicator) {
	t.Helper()
	pages := c.Stats().Pages
	for range 4 {
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
		if c.Stats().Pages != pages {
			return
		}
	}
	t.Fatal("four Pumps applied no join page")
}

// pageAPump returns a client of a new world with the join messages of lane
// queued, each page of which "takes" the whole 1 ms slice: one page a Pump.
func pageAPump(t *testing.T, lane [][]byte) (*ClientReplicator, *ecs.World) {
	t.Helper()
	cw := ecs.NewWorld()
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, JoinSlice: time.Millisecond, Clock: &stepClock{now: time.Unix(0, 0), step: time.Millisecond}})
	for _, m := range lane {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	return c, cw
}

// tradeScene is a host with interest whose peer 1, joining in small pages,
// owns two entities: near, beside x (the first entity paged), and far,
// among n props. Trading their places takes x out of the peer's scope and
// brings it back within one step.
type tradeScene struct {
	w            *ecs.World
	h            *HostReplicator
	s            *ecs.Schedule
	tf           generic.Map[ecs.Transform]
	x, near, far arche.Entity
	cw           *ecs.World
	c            *ClientReplicator
	out          *capture
}

func newTradeScene(props int) *tradeScene {
	w := ecs.NewWorld()
	sc := &tradeScene{w: w, h: NewHost(NewRegistry(w), HostConfig{SendEvery: 1, JoinPage: 64, JoinBytesPerStep: 256, Interest: InterestConfig{CellSize: 100, Radius: 100}})}
	sc.s = ecs.NewSchedule(w, nil, 0)
	sc.s.Add("replicate", sc.h)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	sc.tf = generic.NewMap[ecs.Transform](w.Arche())
	sc.x = m.NewWith(&ecs.Transform{X: 5050, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	for i := range props {
		m.NewWith(&ecs.Transform{X: 10 + float64(i), Y: 10}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	}
	sc.near = m.NewWith(&ecs.Transform{X: 5050, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	sc.far = m.NewWith(&ecs.Transform{X: 50, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	sc.s.Step()
	sc.cw = ecs.NewWorld()
	sc.c = newTestClient(NewRegistry(sc.cw), ClientConfig{Local: 1})
	sc.out = &capture{}
	sc.h.AddPeer(1, sc.out)
	return sc
}

// put moves e to x and reports it.
func (sc *tradeScene) put(e arche.Entity, x float64) {
	sc.tf.Get(e).X = x
	ecs.MutateComponent(sc.w, e, sc.w.IDs.Transform)
}

// step steps the host and hands the client all it sent, acknowledged.
func (sc *tradeScene) step(t *testing.T) {
	t.Helper()
	sc.s.Step()
	for _, msg := range sc.out.lane {
		if _, err := sc.c.HandleLane(msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.c.Pump(); err != nil {
		t.Fatal(err)
	}
	for k, msg := range sc.out.msgs {
		if _, err := sc.c.HandleDatagram(wire.Kind(msg[0]), msg[1:]); err != nil {
			t.Fatal(err)
		}
		if sc.out.tokens[k] != 0 {
			sc.h.Delivered(1, sc.out.tokens[k])
		}
	}
	sc.out.lane, sc.out.msgs, sc.out.tokens = nil, nil, nil
}

// An entity already paged to a joining peer that leaves its scope and comes
// back within a step (one of the peer's entities moves away from it as
// another moves next to it) is held by the peer when the join ends: its
// removal, still queued, is taken back, where it went after the entity's
// new page, or in a page of the same frame, which the client ignores as
// older than the removal: the join ended incomplete.
func TestJoinTakesBackARemovalOfAnEntityBackInScope(t *testing.T) {
	sc := newTradeScene(40)
	traded := false
	for range 100 {
		if p := sc.h.Peer(1); !traded && p.join != nil && p.join.cursor >= 32 {
			sc.put(sc.near, 60)
			sc.put(sc.far, 5060)
			traded = true
		}
		sc.step(t)
	}
	if !traded {
		t.Fatal("the join ended before the two traded places")
	}
	if _, held := sc.cw.EntityOf(mustID(sc.w, sc.x)); !sc.c.Joined() || !held || sc.cw.Networked() != sc.w.Networked() {
		t.Fatalf("joined %v, holds x %v, %d of the host's %d entities", sc.c.Joined(), held, sc.cw.Networked(), sc.w.Networked())
	}
}

// An entity whose removal a join took back (it came back into the peer's
// scope) and that then goes, removed from the world or out of the scope
// again before its new page, is removed from the peer: the join ends
// complete, without it.
func TestJoinTakenBackRemovalGoesAgain(t *testing.T) {
	for _, mode := range []string{"removed", "left"} {
		t.Run(mode, func(t *testing.T) {
			sc := newTradeScene(200)
			xid := mustID(sc.w, sc.x)
			stage := 0
			for range 400 {
				switch p := sc.h.Peer(1); {
				case stage == 0 && p.join != nil && p.join.cursor >= 32:
					sc.put(sc.near, 60)
					sc.put(sc.far, 5060)
					stage = 1
				case stage == 1:
					if p.join == nil || p.join.round != 1 {
						t.Fatal("the join moved on before x could go again")
					}
					if mode == "removed" {
						sc.w.Arche().RemoveEntity(sc.x)
					} else {
						sc.put(sc.far, 50) // x leaves again
					}
					stage = 2
				}
				sc.step(t)
			}
			if stage != 2 || !sc.c.Joined() {
				t.Fatalf("stage %d, joined %v", stage, sc.c.Joined())
			}
			if _, held := sc.cw.EntityOf(xid); held {
				t.Fatal("the client still holds x, gone from its scope")
			}
			if got, want := sc.cw.Networked(), sc.h.Peer(1).Held(); got != want {
				t.Fatalf("the client holds %d entities, the host counts %d", got, want)
			}
		})
	}
}

// A join into a world larger than the peer's scope announces what it
// brings, the entities in that scope, not the host's whole count: the
// client's progress ends full (it stopped at 325 of 100,001 in a trial's
// world of props, and the client made room for all of them).
func TestAScopedJoinAnnouncesItsScope(t *testing.T) {
	w, reg, sched := bigWorld(20000, 0)
	h := NewHost(reg, HostConfig{Interest: InterestConfig{CellSize: 10, Radius: 30}})
	sched.Add("replicate", h)
	sched.Step()
	e, _, _ := w.SlotEntity(0)
	ecs.SetOwner(w, e, 1)
	out := &capture{}
	p := h.AddPeer(1, out)
	for i := 0; p.Joining(); i++ {
		if i > 600 {
			t.Fatal("the join did not end in 600 steps")
		}
		sched.Step()
	}
	held := p.Held()
	if held == 0 || held >= 20000/2 {
		t.Fatalf("the peer holds %d of 20,000 entities; want its square's share", held)
	}
	cw := ecs.NewWorld()
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, JoinSlice: time.Hour, Clock: &stepClock{now: time.Unix(0, 0)}})
	for _, m := range out.lane {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
		if _, total := c.Progress(); total > held {
			t.Fatalf("a page announced %d entities for a peer whose scope holds %d", total, held)
		}
	}
	for range 8 {
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if got, total := c.Progress(); !c.Joined() || got != held || total != held {
		t.Fatalf("joined %v with progress %d of %d; the peer's scope holds %d", c.Joined(), got, total, held)
	}
}

// TestJoinProgressCountsWhatTheClientHolds: a join's progress is of the
// entities its pages brought that the client still holds: one paged again
// in a catch-up round counts once, one the host removed meanwhile no more.
// (It counted every entity a page applied: with a world replacing its
// entities as the join ran, the bar read full while the join still had
// entities to bring.)
func TestJoinProgressCountsWhatTheClientHolds(t *testing.T) {
	const n = 20_000
	_, reg, sched := bigWorld(n, 0)
	rng := rand.New(rand.NewPCG(7, 8))
	sched.Add("churn", ecs.SystemFunc(func(w *ecs.World) {
		// Each step 100 entities go and 100 come.
		var gone []arche.Entity
		q := w.Arche().Query(arche.All(w.IDs.NetworkIdentity))
		for q.Next() {
			if rng.IntN(n/100) == 0 {
				gone = append(gone, q.Entity())
			}
		}
		for _, e := range gone {
			w.Arche().RemoveEntity(e)
		}
		b := w.NewNetworked(len(gone)+1, w.IDs.Transform, w.IDs.NetworkIdentity)
		for b.Next() {
			(*ecs.Transform)(b.Get(w.IDs.Transform)).X = rng.Float64() * 1000
		}
	}))
	h := NewHost(reg, HostConfig{JoinWindow: 16 << 10, JoinPage: 4 << 10})
	sched.Add("replicate", h)
	cw := ecs.NewWorld()
	c := NewClient(NewRegistry(cw), ClientConfig{Local: 1, Clock: clock.NewFake(time.Unix(0, 0))})
	l := &pacedLane{link: link{rng: rand.New(rand.NewPCG(5, 6)), peer: 1}, rate: 32 << 10}
	p := h.AddPeer(1, l)
	for steps := 0; !c.Joined(); steps++ {
		sched.Step()
		l.drain(t, c)
		if p.Err() != nil || steps > 5000 {
			t.Fatalf("after %d steps: %v", steps, p.Err())
		}
		if got, total := c.Progress(); !c.Joined() && got != cw.Networked() {
			t.Fatalf("step %d: progress %d of %d while the client holds %d entities", steps, got, total, cw.Networked())
		}
	}
	if got, total := c.Progress(); got != total || got != cw.Networked() {
		t.Fatalf("joined: progress %d of %d, the client holds %d entities", got, total, cw.Networked())
	}
	if st := p.Stats(); st.JoinRounds < 2 || c.Stats().Despawns == 0 {
		t.Fatalf("%d rounds, %d removals: the world did not change under the join", st.JoinRounds, c.Stats().Despawns)
	}
}

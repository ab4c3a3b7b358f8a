package tandem

import (
	"math"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/physics"
)

// NetPhysics tunes how a client's physics treats networked bodies. A client
// simulates only what it predicts, but what it predicts must collide with
// everything else, so every received entity the game gives a body (in
// Game.Arrived) is a dynamic body on the client too, with its real mass.
// The engine keeps each remote body on the host's state: when a state
// arrives, and after every step that moved it, the body is put where the
// host had it, carried forward at its velocity to the client's frame (the
// client runs ahead of the host; at most MaxAhead, or the link's lag): a
// body no player drives slowed as its Material's Velocity slows it on the
// way (GroundFriction: physics.Space.Carry), so a sliding crate is not put
// past where the host stops it; another player's, in a straight line, his
// drive going on. A push so slows the
// predicted entity as it does on the host, and a remote body never wanders
// off on the client's own account. A remote body that a predicted one
// touches is held, if Hold allows, and so is one a held body touches (a
// crate pushed into the next): the client simulates it alone until a host
// state from after the touch arrives, so a player can dribble a ball
// without the host's late view of it getting in the way (DrawHeldAhead
// draws it there too, beside the player); a teleport of the host's ends
// the hold. (Making remote
// dynamic bodies kinematic would be simpler and wrong: their infinite mass
// stops the predicted body dead on every contact, and the host corrects it
// each time. A body kinematic on the host, a moving platform
// (physics.Material.Kinematic), is kinematic on the client too, steered onto
// the host's state carried forward (its velocity set to close the gap over
// a few frames, never moved at a stroke through what rides it, and carried
// forward a second at least); with ClientConfig.Replay a player riding it is
// replayed against where it was. A system of the game's that sets such a
// body's velocity on the client too fights the steering: run it on the
// host alone, or mark the body ecs.Predicted.)
//
// A remote body the game marks ecs.Predicted (a platform its systems move
// alike on every machine) is the client's own to run, in the present: it is
// never put on the host's state, but checked against it, the host's state
// of a frame against where the client had it at that frame; a difference
// is waited on (the state that shows it often brings its cause, which the
// game's systems then take), and put right only if a state of a frame
// recorded since still shows one, or if the body rests off the host's
// resting state (RemoteStats.Corrected); it is drawn in
// the present, beside what the client predicts, and a remote body it
// touches (another player riding it) is drawn carried by it, moved by how
// far it is drawn from where its own states would draw it.
//
// A predicted body at rest stays where the host has it: the host's physics
// lets a body fall asleep where it stopped, possibly pressed a little into a
// wall; the client's, woken by the correction, would push it back out, be
// corrected again, and so on for ever. So while the host reports the body at
// rest (AuthState with zero velocity) and the player's input has been idle
// since (Game.Idle: by default, the zero value), the client holds it on the
// host's pose after every step; every other host value of the entity is
// taken as usual.
//
// The zero value is on, with the defaults noted; it applies to entities with
// a physics body when ecs.Transform and ecs.Velocity are replicated.
type NetPhysics struct {
	// Off leaves remote bodies to the client's physics and predicted bodies
	// to prediction alone.
	Off bool
	// MaxAhead bounds how far past its newest host state a remote body is
	// carried forward (where a held body is put back too) beyond how far
	// the client's present is past the newest state it heard of anything
	// (its round trip and lead), which a body is always carried: a 100 ms
	// link losing some, 300 ms ahead, put a dribbled ball 50 ms behind the
	// player, 10 units into her. Default 250 ms: about the round trip and
	// lead of a 150 ms link. Carried further, a body guessed at by its
	// velocity alone (a state the host deferred, an old one) overlaps deeply
	// what a predicted body is pressed against. A kinematic body is carried
	// a second at least: it keeps its velocity until its own system changes
	// it.
	MaxAhead time.Duration
	// MaxHold bounds, in frames, how long a touched remote body is simulated
	// by the client alone before it is put back on the host's state all the
	// same, whether or not a state came since (one the host never saw
	// touched, at rest there, sends none), beyond how far the client's
	// present is past the newest host state (its round trip and lead), before
	// which no state of the touch can come. A host state of a frame the
	// client simulated the body in ends the hold if it differs from what the
	// client had then (the host knows of a kick, another's push: the body is
	// put on it), and counts MaxHold anew if it agrees: a ball dribbled on
	// and on is held on. Default 20.
	MaxHold int
	// Hold says whether remote body e may be held when a predicted body,
	// or a held one that moves, touches it. Default: the bodies the host
	// owns; a body another peer owns is driven by inputs the client cannot
	// guess, so holding it is no better than the host's state carried
	// forward. Return false for the
	// host's own players (bots) too. A kinematic body is never held, whatever
	// Hold says: nothing a predicted body does moves it.
	Hold func(w *World, e arche.Entity) bool
	// NoRest turns off holding predicted bodies at rest on the host's pose.
	NoRest bool
	// DrawHeldAhead draws a held body where the client's physics has it, in
	// the present beside what pushes it (View.Held), from the touch until it
	// is within half a unit of where interpolation draws it (at rest in
	// both), 60 frames after the last touch at the soonest (a second at 60
	// Hz) and 600 at the latest (handed back moving then, it is drawn
	// going back), sliding there and back over about 200 ms. Drawn in the
	// past with the other remote entities (the default), a crate a player
	// pushes is drawn behind the player, who is drawn through it by the
	// round trip and the render delay at their speed (61 units over a 130 ms
	// round trip; 4 drawn ahead: TestAPushedCrateIsDrawnAhead). A crate it
	// pushes in turn is held, and drawn ahead, too. Drawn ahead, it is out of
	// step with what it meets that is drawn in the past: another player
	// pushing it too (drawn 50 units into it); so it suits a game where one
	// player at a time pushes loose bodies (a ball dribbled, a box kicked),
	// not one of crowds around a ball.
	DrawHeldAhead bool
}

func (n *NetPhysics) defaults() {
	if n.MaxAhead <= 0 {
		n.MaxAhead = 250 * time.Millisecond
	}
	if n.MaxHold <= 0 {
		n.MaxHold = 20
	}
}

// remoteState is what a client knows of one networked slot: the newest host
// state of a remote body.
type remoteState struct {
	pose  ecs.Transform
	vel   ecs.Velocity
	frame ecs.Frame // the host frame of pose: of the newest state applied
	body  bool      // a remote entity with a body: pose and vel are kept
	at    ecs.Frame // the frame the body was last put back
	// touched is the last client frame in which a predicted body touched
	// the body (0: not held); heldSince the first of the hold, or the
	// client's frame as the last host state that agreed with it came
	// (MaxHold counts from it).
	touched, heldSince ecs.Frame
	// replayed: listed in netPhysics.replaying, during a replay.
	replayed bool
	// simulated: held, and the replay steps it from where the client had
	// it at the frame replayed from (replayHeld), not put on the host's.
	simulated bool
	// stamp: held at the step of netPhysics.stamp+1 (holdTouched).
	stamp uint64
	// ahead: drawn in the present, listed in netPhysics.drawn.
	ahead bool
	// pred is the body's place in netPhysics.preds + 1 while this client
	// predicts it (ecs.Predicted); 0: it does not.
	pred int32
	// carried: a predicted body carries it, listed in netPhysics.carried.
	carried bool
}

// heldRing is how many frames of a held body's states a client keeps: more
// than MaxHold's default and the most link frames a hold counts (maxLink).
const heldRing = 128

// maxLink bounds, in seconds, how far past the host's newest state the
// client's present is taken to be for a hold and a put (linkFrames): a
// host that answers slower, or a hostile one, does not stretch them past
// it.
const maxLink = 1.0

// heldRecord is what a client's physics did with a body it holds, frame by
// frame, to be compared with the host's states of those frames.
type heldRecord struct {
	ring [heldRing]bodyState // by frame % heldRing
}

// The hold's check. A host state of a frame before the last touch is of a
// frame the client simulated the body in itself: if its velocity agrees
// with what the client had then, the client's simulation is as the host's
// and the hold goes on (MaxHold counted from that state), the body moved
// by what the two differ at that frame (alignHeld); if it differs, the
// host knows something the client does not (a kick given by command,
// another player's push) and the body is put on it. heldSpeedTolerance is
// how far they may differ (units a second): a touch a frame apart on the
// two sides moves a ball about that. (The pose is not compared: a hold of
// a heavy body a player pushes, begun from a state the host sent long
// before, differed by more than the 8 units it allowed, and put on that
// state carried forward as a body that slides to a stop, the body stood
// behind where she pushed it, for as long as she did.)
const (
	heldSpeedTolerance = 120.0
	// heldAngleTolerance is the angle (radians) within which a held
	// body's record and an agreeing host state are the same (alignHeld):
	// two of the wire's steps.
	heldAngleTolerance = 2 * 2 * math.Pi / (1 << replicate.AngleBits)
)

// RemoteStats counts what a client did with remote bodies.
type RemoteStats struct {
	// Put counts bodies put back on the host's state after a step moved
	// them; Holds counts holds begun (a predicted body touched one); Rests
	// counts the steps in which a resting predicted body was put back on
	// the host's pose; DrawnAhead counts the held bodies drawn in the
	// present (NetPhysics.DrawHeldAhead), once each time one begins.
	// Corrected counts the times a remote body this client predicts
	// (ecs.Predicted) was put on the host's state: a state of a frame it
	// recorded knowing what the host's last differing one said still
	// differed, or it rested off the host's resting state.
	Put, Holds, Rests, DrawnAhead, Corrected uint64
	// Aligned counts the times a held body was moved onto a host state
	// whose velocity agreed with what the client had at its frame within
	// the hold's tolerance, but whose pose or velocity differed past the
	// wire's precision.
	Aligned uint64
}

// netPhysics is a client's remote-body keeper and rest lock. It is the
// client replicator's Observer (passing every notice on to next, the
// interpolator) and its AuthHandler (passing every AuthState on to auth, the
// predictor), and the system after the game's that puts bodies back.
//
// Between steps the Transform and Velocity of a remote entity hold the newest
// host state, as the replicator wrote it: the interpolator records them, and
// the game's systems read them. Only the body differs: it is carried forward
// to the client's frame, or held.
//
// Memory: one remoteState per network slot, grown to the largest slot seen;
// one restState per predicted body.
type netPhysics struct {
	w *World
	// pushes are the pushes of the bodies this client predicts, by frame
	// (netphys_push.go).
	pushes map[arche.Entity]*pushRing
	cfg    NetPhysics
	local  func() ecs.PeerID
	next   replicate.Observer
	auth   replicate.AuthHandler
	synced func() bool
	smooth func(e arche.Entity, dx, dy, da float64)
	snap   func(e arche.Entity) // a jump of e's pose, drawn as one
	// clampDrawn has clamp trim predicted entity e's drawn offset, and
	// clampOffset is the Space's ClampDrawn, made once (keepDrawnOut).
	clampDrawn  func(e arche.Entity, clamp func(e arche.Entity, dx, dy float64) (float64, float64))
	clampOffset func(e arche.Entity, dx, dy float64) (float64, float64)
	// past is where the interpolator drew remote entity e last, slide
	// starts it drawn away from there (netphys_draw.go); drawn lists the
	// held bodies drawn in the present.
	past  func(e arche.Entity) (ecs.Transform, bool)
	slide func(e arche.Entity, dx, dy, da float64)
	drawn []presentDraw
	// kinTouch is kinematicTouch, made once; kinBody and kinMoving are its
	// body and its finding (pushedByKinematic).
	kinTouch  func(*cp.Arbiter)
	kinBody   *cp.Body
	kinMoving bool
	reg       *replicate.Registry
	poseC     replicate.Component
	velC      replicate.Component
	pose      func(q []int32, v *ecs.Transform) // reads poseC's wire image
	agree     *predict.PoseAgreement            // the rest lock's hold keeps what agrees (nil: no pose codec)
	held      ecs.Transform                     // the hold's pose, kept here: passed to a codec, a local would be allocated
	enabled   bool
	// A replay's (netphys_replay.go): whether it steps the physics, the
	// remote bodies' slots, the bodies it gives back their states, the
	// predicted ones' Prev as it began.
	stepping  bool
	replaying []int32
	kept      []keptBody
	prevs     []predictedPrev

	slots      []remoteState
	transforms generic.Map[ecs.Transform]
	velocities generic.Map[ecs.Velocity]
	bodyID     arche.ID
	step       float64 // seconds per frame
	// driven says whether entity e is one a player drives (the host's
	// mark): its host state is carried in a straight line, its drive going
	// on, not as a coasting body slows (nil: none is).
	driven func(e arche.Entity) bool
	// link says how many frames the client's present is past the newest
	// host state it can have heard: its lead on the host and half the round
	// trip (0: not known yet).
	link      func() float64
	moved     []arche.Entity
	touch     func(*cp.Arbiter)
	localBody *cp.Body // the predicted (or held) body whose contacts are being read
	// chain are the remote bodies held at this step whose own contacts
	// holdTouched reads next: what a held body pushes is held too. stamp
	// counts holdTouched's calls (a body held at the call's step has
	// remoteState.stamp stamp+1).
	chain []*cp.Body
	stamp uint64
	frame ecs.Frame
	stats RemoteStats

	// preds are the remote bodies this client predicts (ecs.Predicted),
	// netphys_predicted.go; carried are the remote bodies they carry, and
	// carrier and carrierBody the one whose contacts noteCarried reads.
	preds []predictedBody
	// heldRecs are the records of the bodies held now, by slot; spareHolds
	// those of holds ended, for the next.
	heldRecs    map[int32]*heldRecord
	spareHolds  []*heldRecord
	carried     []carriedDraw
	carrier     arche.Entity
	carrierBody *cp.Body
	carryFn     func(*cp.Arbiter) // carryTouch, made once

	rests   []restState
	neutral ecs.Frame // first frame of the current run of empty inputs (0: none)
	poseTol float64
	// wrote is what the state being applied wrote of wroteTo (Wrote, read
	// by the Applied that follows it).
	wrote   replicate.Components
	wroteTo arche.Entity
}

// restState is the rest lock of one predicted body.
type restState struct {
	e         arche.Entity
	rest      bool          // the host's newest AuthState has it at rest
	restFrame ecs.Frame     // its frame
	restPose  ecs.Transform // the host's pose then
	// tele is the host frame of the newest teleport an AuthState of the
	// body named; jump says the newest AuthState was the first to name
	// it: its move is drawn as a jump, not smoothed.
	tele ecs.Frame
	jump bool
	// pushed is the last frame a moving kinematic body pushed it: a rest
	// the host reports of that frame or an earlier one is past.
	pushed ecs.Frame
}

func newNetPhysics(w *World, cfg NetPhysics, reg *replicate.Registry, comps []Component) *netPhysics {
	cfg.defaults()
	a := w.ECS.Arche()
	n := &netPhysics{
		w:          w,
		cfg:        cfg,
		reg:        reg,
		transforms: generic.NewMap[ecs.Transform](a),
		velocities: generic.NewMap[ecs.Velocity](a),
		poseTol:    1.0 / replicate.PositionScale,
	}
	pc, okp := reg.Lookup(w.ECS.IDs.Transform)
	vc, okv := reg.Lookup(w.ECS.IDs.Velocity)
	n.poseC, n.velC = pc, vc
	for _, c := range comps {
		if c.pose != nil {
			n.pose = c.pose
			if okp {
				n.agree = predict.NewPoseAgreement(c.poseQuant, reg.Fields(pc))
			}
		}
	}
	n.enabled = !cfg.Off && w.Physics != nil && okp && okv
	if w.Physics != nil {
		n.bodyID = w.Physics.BodyID()
		n.step = w.Physics.StepSeconds()
	}
	n.touch = n.touched
	n.kinTouch = n.kinematicTouch
	n.carryFn = n.carryTouch
	return n
}

// rebase forgets every remote body's host state and every rest lock: the
// world is joined again (a resume) and its states come anew, perhaps of
// frames numbered otherwise.
func (n *netPhysics) rebase() {
	clear(n.slots)
	clear(n.preds)
	n.preds = n.preds[:0]
	clear(n.carried)
	n.carried = n.carried[:0]
	n.rests = n.rests[:0]
	n.neutral = 0
	clear(n.drawn)
	n.drawn = n.drawn[:0]
	for s, h := range n.heldRecs {
		delete(n.heldRecs, s)
		n.spareHolds = append(n.spareHolds, h)
	}
}

func (n *netPhysics) slot(e arche.Entity) *remoteState {
	s, ok := n.w.ECS.NetSlot(e)
	if !ok {
		return nil
	}
	for int(s) >= len(n.slots) {
		n.slots = append(n.slots, remoteState{})
	}
	return &n.slots[s]
}

// Applied implements replicate.Observer: e's components now hold the host's
// state of frame f. The interpolator records the state; then the body is put
// where the client's physics needs it.
func (n *netPhysics) Applied(e arche.Entity, f ecs.Frame) {
	// A teleport (the interpolator takes its mark, so it is read first)
	// ends a hold: the host put the body elsewhere, whatever the client
	// made of the touch; a kinematic body goes there at a stroke.
	var st *remoteState
	snap := false
	var brought broughtState
	if n.enabled {
		st = n.slot(e)
		snap = st != nil && n.snapped(e)
		if st != nil && st.pred != 0 {
			brought = n.hostValues(e, st, f)
		}
	}
	posed := n.wroteTo != e || n.wrote.Has(n.poseC) // without word of it, taken as brought
	n.next.Applied(e, f)
	n.wroteTo = arche.Entity{}
	if st == nil {
		return
	}
	w := n.w.ECS
	id, _ := w.Identity(e)
	remote := id.Owner != n.local() || w.Arche().Has(e, w.IDs.HostMoved)
	body := remote && w.Arche().Has(e, n.bodyID) && n.transforms.Has(e) && n.velocities.Has(e)
	if !body {
		n.forget(e, st)
		return
	}
	st.body = true
	now := w.Frame() - 1 // the frame whose end the coming step starts from
	predicted := n.markedPredicted(e)
	if st.pred != 0 {
		if brought.pose {
			st.pose, st.frame = *n.transforms.Get(e), f
		}
		if brought.vel {
			st.vel = *n.velocities.Get(e)
		}
		n.preds[st.pred-1].heard = now
		if predicted {
			n.checkPredicted(e, st, f, now, snap)
			return
		}
		// Its mark taken away: drawn from the host's states again, and
		// what it carried too.
		n.stopPredicted(st)
		n.forgetDrawn(e)
		n.forgetCarried(e)
		st.ahead = false
		if st.touched != 0 {
			n.dropHeld(e)
		}
		st.touched = 0
		n.put(e, st, now, snap)
		return
	}
	// The pose is the host's at f, whether this state brought it or the
	// host's image of it has not changed since an earlier one did (a body
	// knocked from rest brings a new velocity and the pose it rested at):
	// carried forward from f.
	if f >= st.frame {
		// (A state older than one applied, arriving late, leaves the
		// newest's values in the components: nothing new.)
		st.pose, st.frame = *n.transforms.Get(e), f
		st.vel = *n.velocities.Get(e)
	}
	if predicted {
		s, _ := w.NetSlot(e)
		n.startPredicted(e, st, s, now)
		return
	}
	if st.touched != 0 && f < st.touched && int(now-st.heldSince) <= n.holdFor() && !snap {
		// The host has not yet seen the predicted body's touch: the
		// client's own simulation of the body is the better guess, unless
		// the host's state differs from it at the same frame.
		s, _ := w.NetSlot(e)
		switch n.heldAgrees(s, st, f) {
		case heldAgree:
			st.heldSince = now // the host does what the client did: MaxHold counts anew
			if posed {
				n.alignHeld(e, s, st, f)
			}
			return
		case heldUnknown:
			return
		}
	}
	if st.touched != 0 {
		n.dropHeld(e) // what the client simulated until now is not compared
	}
	st.touched = 0
	n.put(e, st, now, snap)
}

// holdFor is how many frames a hold goes on with no host state of a frame
// since its touch (or one that agreed): MaxHold past how far the client's present is
// past the newest host state heard (its round trip and lead), before which
// no state of the touch can come.
func (n *netPhysics) holdFor() int {
	return n.cfg.MaxHold + int(math.Ceil(n.linkFrames()))
}

// linkFrames is how many frames the client's present is past the newest
// host state it can have heard (link), 0 when not known.
func (n *netPhysics) linkFrames() float64 {
	if n.link == nil || n.step <= 0 {
		return 0
	}
	return min(max(n.link(), 0), maxLink/n.step)
}

// Born passes the making of an entity on to drawing (it is the
// replicate.BirthObserver method).
func (n *netPhysics) Born(e arche.Entity, f ecs.Frame) {
	if bo, ok := n.next.(replicate.BirthObserver); ok {
		bo.Born(e, f)
	}
}

// Drawing asks drawing whether an entity the host removed is still to be
// drawn (it is the replicate.DrawnObserver method); a body the client's
// physics holds goes at once: what the client predicts must not meet a
// body the host no longer has.
func (n *netPhysics) Drawing(e arche.Entity, f ecs.Frame) bool {
	if n.w.Physics != nil && n.w.ECS.Arche().Has(e, n.bodyID) {
		return false
	}
	do, ok := n.next.(replicate.DrawnObserver)
	return ok && do.Drawing(e, f)
}

// Wrote notes which of e's components the state about to be Applied wrote
// (it is the replicate.WriteObserver method): a predicted body's Transform
// or Velocity it left out holds the client's own value, whether that equals
// the host's or not.
func (n *netPhysics) Wrote(e arche.Entity, f ecs.Frame, comps replicate.Components) {
	n.wrote, n.wroteTo = comps, e
	if wo, ok := n.next.(replicate.WriteObserver); ok {
		wo.Wrote(e, f, comps)
	}
}

// Jumped passes the frame of a teleport the state about to be Applied is
// of on to drawing (it is the replicate.JumpObserver method).
func (n *netPhysics) Jumped(e arche.Entity, f ecs.Frame) {
	if jo, ok := n.next.(replicate.JumpObserver); ok {
		jo.Jumped(e, f)
	}
}

// Heard passes the frame of a state that arrived on to drawing (it is the
// replicate.FrameObserver method).
func (n *netPhysics) Heard(f ecs.Frame) {
	if fo, ok := n.next.(replicate.FrameObserver); ok {
		fo.Heard(f)
	}
}

// HeldBack passes the host's word of its budget for this client on to
// drawing (it is the replicate.BacklogObserver method).
func (n *netPhysics) HeldBack(f ecs.Frame, held, every int) {
	if bo, ok := n.next.(replicate.BacklogObserver); ok {
		bo.HeldBack(f, held, every)
	}
}

// Removed implements replicate.Observer.
func (n *netPhysics) Removed(e arche.Entity) {
	if st := n.slot(e); st != nil {
		n.forget(e, st)
	}
	n.forgetDrawn(e)
	for i := range n.rests {
		if n.rests[i].e == e {
			n.rests = append(n.rests[:i], n.rests[i+1:]...)
			break
		}
	}
	n.next.Removed(e)
}

// forget forgets what the client knew of e's body (st): it is gone, or no
// remote body now.
func (n *netPhysics) forget(e arche.Entity, st *remoteState) {
	if st.touched != 0 {
		n.dropHeld(e)
	}
	if st.pred != 0 {
		n.stopPredicted(st)
		n.forgetDrawn(e)
	}
	if len(n.carried) > 0 {
		n.forgetCarried(e)
	}
	*st = remoteState{}
}

// put puts e's body on the host state st holds, carried forward to frame f
// (at most MaxAhead or the link's lag, a kinematic body's at least
// kinematicAhead): a coasting body as its steps slow it (Carry), its body
// given the velocity that leaves it, a driven or kinematic one at its
// velocity; e's Transform and Velocity keep the host state itself.
// A kinematic body is steered there rather than moved (steer). A body this
// client predicts is put, in a replay's step, where the client had it
// (placeRecorded).
func (n *netPhysics) put(e arche.Entity, st *remoteState, f ecs.Frame, snap bool) {
	if !n.transforms.Has(e) || !n.velocities.Has(e) {
		return // a host's state took its Transform or Velocity away: no pose to put
	}
	if st.pred != 0 && n.stepping && n.placeRecorded(e, st, f) {
		return
	}
	b := n.w.Physics.BodyOf(e)
	kinematic := isKinematic(b) && st.pred == 0
	// At least as far as the present is past the newest state heard: a
	// link whose round trip and lead pass MaxAhead put a held ball behind
	// the player dribbling it, into her.
	ahead := max(n.cfg.MaxAhead.Seconds(), (n.linkFrames()+2)*n.step)
	if kinematic {
		ahead = max(ahead, kinematicAhead.Seconds())
	}
	pose, vel := st.pose, st.vel
	if f > st.frame {
		pose, vel = n.carry(e, st.pose, st.vel, min(float64(f-st.frame)*n.step, ahead), kinematic)
	}
	if kinematic && !n.stepping && !snap && n.steer(e, b, st, pose) {
		return
	}
	if st.ahead && !n.stepping {
		n.absorbPut(e, pose) // a replay's moves are absorbed at its end
	}
	n.w.Physics.Move(e, pose)
	*n.transforms.Get(e) = st.pose
	n.w.Physics.SetVelocity(e, vel)
	*n.velocities.Get(e) = st.vel // the entity keeps the host's state
}

// carry returns e's host state pose and vel carried forward dt seconds: a
// kinematic body (moved by its own system: a platform) or one a player
// drives, whose drive goes on, in a straight line; a coasting one as its
// steps slow it (Space.Carry: its GroundFriction), not in a straight line
// past where the host stops it, with the velocity that leaves it.
func (n *netPhysics) carry(e arche.Entity, pose ecs.Transform, vel ecs.Velocity, dt float64, kinematic bool) (ecs.Transform, ecs.Velocity) {
	if dt <= 0 || vel == (ecs.Velocity{}) {
		return pose, vel
	}
	if kinematic || n.driven != nil && n.driven(e) {
		pose.X += vel.X * dt
		pose.Y += vel.Y * dt
		pose.Angle += vel.Angular * dt
		return pose, vel
	}
	return n.w.Physics.Carry(e, pose, vel, dt)
}

// A kinematic body (a moving platform) carries what stands on it by its
// velocity. Moved onto its host state at a stroke, as a dynamic body is, it
// goes through what it carries: a lift the client carried down past its
// turn, put back up, passed through the player standing on it. So it is
// steered instead: its velocity for the next step is the host's, plus a
// steerFrames-th of how far it is from where the host has it a frame, so
// it closes the gap over a few frames and pushes what it meets. A teleport
// of the host's (or a gap past kinematicSnap) moves it at once.
const (
	steerFrames   = 4
	kinematicSnap = 256.0 // world units
	// kinematicAhead is the least a kinematic body is carried forward past
	// its newest host state: the host sends a slow platform's small moves
	// now and then, so its newest pose is often older than MaxAhead, and a
	// kinematic body keeps its velocity until its own system changes it.
	kinematicAhead = time.Second
)

// steer sets kinematic body b's velocity for the next step so that it
// closes on pose, e's host state carried forward, and keeps e's Transform
// and Velocity the host's; it reports false, doing nothing, when the body
// is to be moved there instead: a gap past kinematicSnap, or one under the
// wire's precision, which a quarter a step would never close (the body
// would keep a velocity of a rounding, never at rest).
func (n *netPhysics) steer(e arche.Entity, b *cp.Body, st *remoteState, pose ecs.Transform) bool {
	at := b.Position()
	dx, dy := pose.X-at.X, pose.Y-at.Y
	da := ecs.AngleDiff(b.Angle(), pose.Angle)
	if gap := math.Hypot(dx, dy); gap > kinematicSnap || gap < 1.0/replicate.PositionScale && math.Abs(da) < predictedAngleTolerance {
		return false
	}
	k := 1 / (steerFrames * n.step)
	b.SetVelocity(st.vel.X+dx*k, st.vel.Y+dy*k)
	b.SetAngularVelocity(st.vel.Angular + da*k)
	*n.transforms.Get(e) = st.pose
	*n.velocities.Get(e) = st.vel
	return true
}

// holdTouched holds each remote body a body this client predicts touched
// in the step just made (touched), of frame n.frame, and each that a body
// so held touched, and so on: a crate a player pushes into another pushes
// that one as the host's does. (Kept on the host's state, the second stood
// as a wall in the client's present: the first bounced off it, and the
// player behind was corrected by 30 units.)
func (n *netPhysics) holdTouched(w *ecs.World) {
	sp := n.w.Physics
	for _, e := range w.Owned(n.local()) {
		if b := sp.BodyOf(e); b != nil && !w.Arche().Has(e, w.IDs.HostMoved) {
			n.localBody = b
			b.EachArbiter(n.touch)
		}
	}
	for i := 0; i < len(n.chain); i++ {
		b := n.chain[i]
		if b.IsSleeping() || b.Velocity().Length() < chainSpeed {
			continue // at rest: what it leans on is not pushed (a row of crates at rest is no chain)
		}
		n.localBody = b
		b.EachArbiter(n.touch)
	}
	n.localBody = nil
	clear(n.chain)
	n.chain = n.chain[:0]
	n.stamp++
}

// chainSpeed is how fast, in world units a second, a held body must move
// for what it touches to be held too.
const chainSpeed = 1.0

// touched is the arbiter callback of a predicted body, or of a held one
// that moves (n.localBody): the body at the other end, if it is a remote
// one that may be held, is held, once a step; in a replay, the
// replayed steps move it from then on (simulated), not put on the host's
// state at each frame: put there, a crate a car hit in a replayed frame
// stood where the host's state carried it, as heavy as a wall, and the car
// bounced off it, to be corrected by 30 units and more.
func (n *netPhysics) touched(arb *cp.Arbiter) {
	a, b := arb.Bodies()
	if a == n.localBody {
		a = b
	}
	e, ok := physics.EntityOf(a)
	if !ok || a.GetType() != cp.BODY_DYNAMIC {
		return // a kinematic body (a platform) goes where the host's does: nothing pushes it
	}
	st := n.slot(e)
	if st == nil || !st.body || st.pred != 0 {
		return // a body this client predicts is simulated here already
	}
	if n.cfg.Hold != nil {
		if !n.cfg.Hold(n.w, e) {
			return
		}
	} else if id, _ := n.w.ECS.Identity(e); id.Owner != ecs.HostPeer {
		return
	}
	if st.stamp == n.stamp+1 {
		return // held at this step already
	}
	st.stamp = n.stamp + 1
	if st.touched == 0 {
		st.heldSince = n.frame
		n.stats.Holds++
	}
	st.touched = n.frame
	n.chain = append(n.chain, a)
	if n.stepping && !st.simulated {
		if s, ok := n.w.ECS.NetSlot(e); ok {
			st.simulated = true
			n.list(s)
		}
	}
	n.drawTouched(e)
}

// Update is the client system after the game's systems and the physics step.
// A remote body that a predicted body touched in the step is held; every
// other remote body the step moved goes back on its newest host state,
// carried forward to the current frame. Either way the entity's Transform
// and Velocity go back to the host state. Then resting predicted bodies go
// back on the host's pose. Cost: the bodies the step moved (the physics
// bridge reports each one), and the contacts of the predicted bodies and
// of the held ones that move.
func (n *netPhysics) Update(w *ecs.World) {
	if !n.enabled {
		return
	}
	n.frame = w.Frame()
	n.holdTouched(w)
	n.moved = n.moved[:0]
	for _, ch := range w.Journal().Changes(w) {
		if ch.Component != w.IDs.Transform && ch.Component != w.IDs.Velocity {
			continue
		}
		if int(ch.Slot) < len(n.slots) && n.slots[ch.Slot].body {
			n.moved = append(n.moved, ch.Entity)
		}
	}
	f := w.Frame()
	for _, e := range n.moved {
		st := n.slot(e)
		if st == nil || !st.body || st.pred != 0 || st.at == f || !w.Alive(e) {
			continue // a body this client predicts stays where its step left it
		}
		st.at = f
		if st.touched != 0 && int(f-st.heldSince) <= n.holdFor() {
			n.recordHeld(e, f)
			*n.transforms.Get(e) = st.pose
			*n.velocities.Get(e) = st.vel
			continue
		}
		// Not held, or held MaxHold frames with no host state to end it
		// (the host never had the touch, and its body rests): put back.
		if st.touched != 0 {
			n.dropHeld(e)
		}
		st.touched = 0
		n.put(e, st, f, false)
		n.stats.Put++
	}
	n.recordPredicted(f)
	n.noteCarried()
	n.holdRests()
	n.keepDrawnOut()
	n.updateDrawn()
}

// keepDrawnOut trims the drawn offset of each body this client owns (and
// predicts) so that it is not drawn further into a static or kinematic
// body it touches than it simulates (physics.Space.ClampDrawn): a
// correction that lifted a falling player a frame before she landed left
// her drawn where she fell from, into the floor, for a quarter of a
// second. Cost: the contacts of the owned bodies with an offset left.
func (n *netPhysics) keepDrawnOut() {
	if n.clampDrawn == nil {
		return
	}
	if n.clampOffset == nil {
		n.clampOffset = n.w.Physics.ClampDrawn
	}
	p := n.local()
	if p == ecs.HostPeer {
		return // not admitted yet: the host's entities are no one's to predict here
	}
	for _, e := range n.w.ECS.Owned(p) {
		if n.w.Physics.BodyOf(e) != nil {
			n.clampDrawn(e, n.clampOffset)
		}
	}
}

// The answers of heldAgrees.
const (
	heldUnknown = iota // the client kept no state of that frame
	heldAgree
	heldDiffers
)

// heldAgrees compares the host's state of frame f of the held body in slot
// (its record st, just updated) with what the client's physics had at f.
func (n *netPhysics) heldAgrees(slot int32, st *remoteState, f ecs.Frame) int {
	h := n.heldRecs[slot]
	if h == nil {
		return heldUnknown
	}
	r := &h.ring[f%heldRing]
	if r.frame != f || f == 0 {
		return heldUnknown
	}
	if math.Hypot(st.vel.X-r.vel.X, st.vel.Y-r.vel.Y) > heldSpeedTolerance {
		return heldDiffers
	}
	return heldAgree
}

// alignHeld moves held body e (in slot) by what the host's pose of frame
// f (st, whose velocity agreed) differs from the client's record of f, and
// its velocity by what theirs do, and so the records of f and after: the
// hold goes on from where the host has the body. Without it, a hold kept
// any offset for as long as it lasted: one begun from a stale state (a
// heavy body the host's player pushes slowly, whose small moves the host
// sends seldom, and which its friction stops where a state has it) kept
// the body a unit behind the host's, and the player pushing it was
// corrected at every state.
func (n *netPhysics) alignHeld(e arche.Entity, slot int32, st *remoteState, f ecs.Frame) {
	h := n.heldRecs[slot]
	b := n.w.Physics.BodyOf(e)
	if h == nil || b == nil {
		return
	}
	r := h.ring[f%heldRing]
	d := ecs.Transform{X: st.pose.X - r.pose.X, Y: st.pose.Y - r.pose.Y, Angle: ecs.AngleDiff(r.pose.Angle, st.pose.Angle)}
	dv := ecs.Velocity{X: st.vel.X - r.vel.X, Y: st.vel.Y - r.vel.Y, Angular: st.vel.Angular - r.vel.Angular}
	if math.Abs(dv.X) <= 1.0/replicate.VelocityScale && math.Abs(dv.Y) <= 1.0/replicate.VelocityScale && math.Abs(dv.Angular) <= 1.0/replicate.AngularScale {
		dv = ecs.Velocity{} // the wire's precision
	}
	if math.Abs(d.X) <= 2*n.poseTol && math.Abs(d.Y) <= 2*n.poseTol && math.Abs(d.Angle) <= heldAngleTolerance && dv == (ecs.Velocity{}) {
		return // the wire's precision
	}
	for i := range h.ring {
		if rec := &h.ring[i]; rec.frame >= f {
			rec.pose = ecs.Transform{X: rec.pose.X + d.X, Y: rec.pose.Y + d.Y, Angle: rec.pose.Angle + d.Angle}
			rec.vel = ecs.Velocity{X: rec.vel.X + dv.X, Y: rec.vel.Y + dv.Y, Angular: rec.vel.Angular + dv.Angular}
		}
	}
	if dv != (ecs.Velocity{}) {
		bv := b.Velocity()
		b.SetVelocity(bv.X+dv.X, bv.Y+dv.Y)
		b.SetAngularVelocity(b.AngularVelocity() + dv.Angular)
	}
	p := bodyPose(b)
	p = ecs.Transform{X: p.X + d.X, Y: p.Y + d.Y, Angle: p.Angle + d.Angle}
	if st.ahead {
		n.absorbPut(e, p)
	}
	t, v := *n.transforms.Get(e), *n.velocities.Get(e)
	n.w.Physics.MoveKeepingPush(e, p)
	*n.transforms.Get(e), *n.velocities.Get(e) = t, v // the entity keeps the host's state
	n.stats.Aligned++
}

// dropHeld forgets what the client's physics did with held body e: the
// hold ends, and the body is put on the host's state.
func (n *netPhysics) dropHeld(e arche.Entity) {
	if s, ok := n.w.ECS.NetSlot(e); ok {
		if h := n.heldRecs[s]; h != nil {
			delete(n.heldRecs, s)
			n.spareHolds = append(n.spareHolds, h)
		}
	}
}

// recordHeld records held body e's state at the end of frame f, and lets
// go of the records of holds that ended.
func (n *netPhysics) recordHeld(e arche.Entity, f ecs.Frame) {
	s, ok := n.w.ECS.NetSlot(e)
	b := n.w.Physics.BodyOf(e)
	if !ok || b == nil {
		return
	}
	h := n.heldRecs[s]
	if h == nil {
		if n.heldRecs == nil {
			n.heldRecs = map[int32]*heldRecord{}
		}
		if k := len(n.spareHolds); k > 0 {
			h = n.spareHolds[k-1]
			n.spareHolds = n.spareHolds[:k-1]
			*h = heldRecord{}
		} else {
			h = &heldRecord{}
		}
		n.heldRecs[s] = h
	}
	v := b.Velocity()
	h.ring[f%heldRing] = bodyState{frame: f, pose: bodyPose(b), vel: ecs.Velocity{X: v.X, Y: v.Y, Angular: b.AngularVelocity()}}
}

// A client's own bodies are corrected through their friction, a knock's
// travel stopped at walls, a correction clamped by where the host's body
// was (the predict Corrector is the Space).
var (
	_ predict.VelocityCarrier = (*physics.Space)(nil)
	_ predict.TravelClamper   = (*physics.Space)(nil)
	_ predict.HostClamper     = (*physics.Space)(nil)
	_ predict.Gripper         = (*physics.Space)(nil)
)

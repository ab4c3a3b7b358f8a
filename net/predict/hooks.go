package predict

import (
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// Reconcile says how a client reconciles its prediction with AuthState.
type Reconcile uint8

const (
	// Correct (the default) corrects each differing component by its
	// Correction and keeps the rest of the prediction.
	Correct Reconcile = iota
	// Replay restores the frame of the AuthState (the host's values where
	// they differ, the prediction's where they agree) and re-runs
	// ClientConfig.Step with the recorded input of every frame since. For
	// games whose predicted step is deterministic and reads and writes only
	// tracked components of owned entities (no physics engine state).
	Replay
)

// Corrector carries Pose and Velocity corrections into the present: it moves
// entity e by the difference between the host's state and the prediction.
// *physics.Space implements it, so a body moves with its Transform. Units:
// world units, radians, and per second for velocities.
//
// A Corrector need not take every owned entity. If it is a
// SelectiveCorrector, it is used only for the entities it Corrects; if it
// has a method BodyID() arche.ID, as *physics.Space has, only for the
// entities that have that component (a body). Other entities' components
// are written directly, as without a Corrector.
type Corrector interface {
	CorrectPose(e arche.Entity, dx, dy, dAngle float64)
	CorrectVelocity(e arche.Entity, dx, dy, dAngular float64)
}

// VelocityCarrier is a Corrector that knows how a body's velocity changes by
// itself from step to step while it coasts (its friction). A
// velocity correction of such a body is then the difference the host's
// velocity and the prediction's at the compared frame would each have come
// to by the present, not the difference there: friction slows a knocked
// body on the host and not the same body at rest on the client (a player
// knocked at 700 units a second was set to 680 on his client where the
// host's had slowed to 500, ran 29 units past it and was pulled back over
// 46 frames). The frames recorded since are shifted by the difference each
// had come to. A body the prediction had at rest at that frame and the host
// had moving (a knock from rest) has its pose corrected by what the two
// velocities travelled apart since too, the frames recorded since by what
// each had come to (see TravelClamper). *physics.Space implements it.
type VelocityCarrier interface {
	// CarryVelocity returns the velocity v of entity e's body comes to
	// after dt seconds of coasting.
	CarryVelocity(e arche.Entity, v ecs.Velocity, dt float64) ecs.Velocity
}

// TravelClamper is a VelocityCarrier that can sweep an entity's body along
// a move. The pose correction of a knock from rest (see VelocityCarrier)
// stops where the sweep meets what the body moves into, a wall or another
// player, as the host's body stopped there, and the body's velocity into
// it goes (as if the contact took it all: a bouncing wall's rebound is left
// to the next states). Carried whole, a player knocked into a wall was put
// on his client 53 units past its face where the host's stopped against it.
// *physics.Space implements it.
type TravelClamper interface {
	VelocityCarrier
	// ClampTravel returns the part of a move of entity e by dx, dy (world
	// units) it makes before it meets another body, and the unit normal
	// of that body's surface there, out of it (0, 0 if it meets nothing).
	ClampTravel(e arche.Entity, dx, dy float64) (cx, cy, nx, ny float64)
}

// ContactClamper is a Corrector that knows what an entity rests against: it
// takes out of a pose correction the part that would sink the entity into a
// static or kinematic body it touches (a floor, a moving platform), past
// where it touches it now. *physics.Space implements it. A body resting on
// a moving platform, corrected by a difference of a past frame it has
// since left behind (a bounce that has landed), would otherwise be pressed
// into the platform, thrown off it, and corrected again at the next state,
// for as long as it stands there. The history is shifted by what is left,
// so the frames after it are compared with what the present came from; a
// velocity correction of a resting body shifts only its own frame's
// record (friction takes a difference of velocity away within frames;
// see Gripper for a body sliding along what it touches). A
// difference the contact alone decides, what is left of it within the
// component's tolerance, is no correction. (A knock away from what the
// body rests on reaches it by its pose's correction, its velocity's
// normal part left to the contact.)
type ContactClamper interface {
	// ClampPose takes out of a pose correction the part that would sink
	// the entity further into what it rests on than it is.
	ClampPose(e arche.Entity, dx, dy float64) (float64, float64)
	// ClampVelocity takes out of a velocity correction the part along the
	// normal of each such contact: the contact decides how fast the
	// entity goes towards or away from what it rests on.
	ClampVelocity(e arche.Entity, dx, dy float64) (float64, float64)
}

// Gripper is a ContactClamper that tells whether friction holds an entity
// to what it rests on: it moves along each static or kinematic body it
// touches as that body does there. Only then is a velocity correction the
// contact clamped left to its own frame's record (see ContactClamper): a
// difference along the surface of a body held so is friction's to take
// away. A body sliding along a wall keeps a difference of velocity along
// it (its drive keeps it, or its coasting), and its clamped correction
// shifts every frame recorded since by the same amount (an unclamped one
// is carried through the body's friction instead, where the Corrector is a
// VelocityCarrier): left to its own frame, each next state found the same
// difference again, and a player squeezed against a wall and breaking out
// along it was thrown at seven times its top speed. Without a Gripper, every clamped correction is left
// to its own frame. *physics.Space implements it.
type Gripper interface {
	ContactClamper
	// Gripped reports whether entity e is held so to everything it
	// rests on.
	Gripped(e arche.Entity) bool
}

// HostClamper is a ContactClamper that clamps a pose correction knowing the
// host's state it comes from: where the host's body was at the compared
// frame, and how fast it went. A difference of a past frame carried whole
// into the present can put the entity where neither machine's body could
// be since: through a floor the host's body was above (a fall's
// difference, the client's body landed since), or off a floor the host's
// body has landed on too. *physics.Space implements it
// (physics.Space.ClampPoseFrom says how). The Client calls it instead of
// ClampPose when the host's state has the entity's pose.
type HostClamper interface {
	ContactClamper
	// ClampPoseFrom returns the part of a correction dx, dy (world units)
	// of entity e's pose that the host's body, at pose host with
	// velocity v (world units a second) at the compared frame, dt seconds
	// ago, leaves to make.
	ClampPoseFrom(e arche.Entity, dx, dy float64, host ecs.Transform, v ecs.Velocity, dt float64) (float64, float64)
}

// SelectiveCorrector is a Corrector that moves only some entities.
type SelectiveCorrector interface {
	Corrector
	// Corrects reports whether the Corrector moves entity e; if not, the
	// Client writes e's components itself.
	Corrects(e arche.Entity) bool
}

// bodyCorrector is a Corrector that moves the entities with one component,
// like *physics.Space (its Body).
type bodyCorrector interface {
	Corrector
	BodyID() arche.ID
}

// Smoother hides a correction from the eye: after the client moved entity e
// by dx, dy (world units) and turned it by dAngle (radians), the drawn pose
// keeps an offset that decays. *interp.Interpolator implements it.
type Smoother interface {
	AddCorrection(e arche.Entity, dx, dy, dAngle float64)
}

// Snapper is a Smoother that is also told of a pose correction that is no
// error of the prediction but a jump of the entity: the host teleported it
// (ecs.ReportTeleport; replicate.State.Teleport), or the prediction was
// thrown away (Client.Rebase). The client moved e to the host's pose as for
// any correction, then calls SnapCorrection instead of AddCorrection: e is
// drawn at its new pose from the next frame, with no offset left and no
// slide from where it was. A Smoother without it is not told (the jump is
// drawn as the blend between steps makes it). *interp.Interpolator
// implements it.
type Snapper interface {
	SnapCorrection(e arche.Entity)
}

// Link is where the client's input messages go, how long a round trip takes
// and how many datagrams are lost. *conn.Conn implements it.
//
// A Link that also tells since when the host has answered nothing the
// client sent (UnansweredSince() (at time.Time, ok bool): when the oldest
// datagram in flight sent after the newest one the host acknowledged went),
// as *conn.Conn does, lets the client hold its own entities while the host
// leaves it unanswered (ClientConfig.HoldAfter); over another they are
// never held. One that
// also tells how many samples its RTT is made of (RTTSamples() uint64), as
// *conn.Conn does, holds them only once it has one: until then its RTT is
// a guess (conn.Config.InitialRTT), and a round trip longer than the guess
// would look like a silence.
type Link interface {
	// Queue queues a datagram message; the payload is copied.
	Queue(kind wire.Kind, payload []byte, tok conn.Token) error
	// RTT returns the smoothed round-trip time.
	RTT() time.Duration
	// LossRate returns the fraction (0..1) of datagrams sent that were lost.
	LossRate() float64
}

// answering is a Link that tells since when the host has answered nothing
// the client sent.
type answering interface {
	UnansweredSince() (sent time.Time, ok bool)
}

// measuring is a Link that tells whether its RTT is measured yet.
type measuring interface {
	RTTSamples() uint64
}

// Session is the client session the predictor works with; *session.Client
// implements it.
type Session interface {
	Conn() *conn.Conn
	Peer() ecs.PeerID
	Replicator() *replicate.ClientReplicator
}

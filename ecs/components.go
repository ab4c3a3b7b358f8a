package ecs

import (
	"fmt"
	"math"
)

// Transform is an entity's pose in the world: position in world units (the
// physics bridge uses one unit per pixel of the demo) and angle in radians,
// counter-clockwise.
type Transform struct {
	X, Y  float64
	Angle float64
}

// Velocity is an entity's motion: linear velocity in world units per second and
// angular velocity in radians per second.
type Velocity struct {
	X, Y    float64
	Angular float64
}

// NetID is an entity's network id. The host gives ids in increasing order and
// never reuses one within a session, unlike arche's entity ids, which are
// recycled; an arche entity id never goes on the wire. Zero means "not yet
// assigned".
type NetID uint32

// PeerID names a participant of a session. HostPeer (zero) is the host itself;
// joined peers are numbered from 1. A host gives a new peer the lowest id
// it never gave, or, once more than 32 ids given before are free (their
// peer gone for good, PeerLeft, or offered in a Welcome to a peer never
// admitted: it did not answer, or was refused), the one of those free the
// longest if 32 ids were given and a minute passed since it was freed. An
// id is never given while its peer may come back: connected, away within
// its grace window (it may resume), or reserved for a restored save's
// player. So a departed peer's id goes to a newcomer only after at least
// 32 other ids were given and a minute passed, not at once (until all
// 65,535 were given: then the free ones go in the order they were freed),
// and ids stay small (at most the most peers at once, plus those freed in
// the last minute, plus 33). Still, ids are reused, and a host that loads
// its world from a save (a restart, a world released while idle) counts
// from 1 again, past the ids of the save's players: what outlives a peer
// (a score table, an account) is keyed by the game's own account id (or
// the player's name, where trusting it is enough), not by PeerID.
type PeerID uint16

// HostPeer is the peer id of the host: entities it owns are simulated by the
// host alone.
const HostPeer PeerID = 0

// NetworkIdentity makes an entity networked and names its owner. The
// owner's client predicts what it owns: it runs the game's systems on it
// ahead of the host, which corrects it. An entity only the host's systems
// move (a shot) stays the host's (HostPeer); who made it belongs in a
// component of the game's.
//
// Add it with ID zero on the host and the world assigns the next network id
// when the component is added; add it with a non-zero ID to adopt the host's id
// (clients replicating the host's entities do that). Set Owner when adding the
// component; change it later only with SetOwner, which re-indexes. Writing
// ID or Owner directly leaves the index and the network behind: the entity's
// next reported write (MutateComponent) panics with a message naming
// SetOwner.
type NetworkIdentity struct {
	ID    NetID
	Owner PeerID
}

// HostMoved marks an entity its owner does not predict: only the host moves
// it (a strategy game's unit walking to where its player sent it), so the
// owner's client, like every other, draws it from the host's states,
// interpolated, instead of running it ahead and being corrected at every
// state. The owner still has what owning gives: the interest around it, the
// game's own rules of who may command it. A client adds it in
// Game.Arrived to every such entity (a replicated component of the game's
// tells them apart), whoever owns it: Arrived runs once for an entity, not
// when it is given to another, and the mark changes nothing on an entity
// the client does not own. It may take it away to predict the entity
// again; then the host's should go too. On the host it says the same of
// the entity, for its owner's replication: the owner is sent it in its
// States, as every other peer is (delta-coded, weighed with the rest of
// its budget), not in its AuthStates, so an army of such units standing
// still costs its owner nothing and a walking one is drawn as well by its
// owner as by a watcher; a game marks them where it makes them, and
// Arrived marks the entities a restore brings back when the game has no
// Restored hook (it runs on the host then). A client that predicts an
// entity its host marks is told so by its first State, and marks it too
// (replicate.ClientStats.MarkedByHost), unless it drew it from States
// before: the game took the mark away there, and the host's follows. A
// Tandem host's saves keep the host's marks and put them back on restore
// (Game.Restored).
type HostMoved struct{}

// Predicted marks an entity a client does not own that it runs in its
// present all the same, as it does what it predicts, rather than drawing it
// from the host's states: a moving platform, a lift, a door on a path of
// the frame number, which the game's own systems move alike on every
// machine. A predicted player riding it is simulated and drawn on it where
// the host has it at the same frame; put on the host's newest state carried
// forward instead, it overshoots every turn by the client's lead and the
// round trip, and the player riding it is corrected at every turn (or goes
// through it). A client adds it in Game.Arrived to such an entity, with a
// physics body, and lets its systems move the body on the client too (by
// its velocity, or placed with SetPose, which moves it on the client
// alone: the host's own move of it comes in its states). The
// engine records where the client had the body at each frame and compares
// the host's states with it: a difference past the wire's precision that
// a state of a frame recorded since still shows (the first often brings
// its cause, which the client's systems then take), or a resting body off
// the host's resting state, puts the body on the host's state (drawn
// sliding there; a teleport of the host's drawn as a jump). Game.Arrived
// runs again for it after a resume, and marks it again. A remote body it touches (another
// player riding it), drawn in the past from the host's states, is drawn
// carried by it: moved by how far the platform is drawn from where its own
// states would draw it. Ignored on the host and on an entity the client
// owns. Saves leave it out.
type Predicted struct{}

// Departing marks an entity the host removed that this client keeps in its
// world while it draws the entity, in the past, on to its removal (see
// replicate.DrawnObserver): at most a render delay and two send intervals,
// then it goes. Frame is the host frame of the removal. A client's systems
// that act on what the host has now (a count of enemies, targets, a list of
// who is in the match) skip it with a filter Without it; what draws the
// world in the past (the world itself, a minimap drawn from View.Pose)
// draws it while tandem.View.Pose says true, which stops past the
// removal. The client replicator adds it and takes it away again if the
// entity comes back (into the client's interest); a host, or a world
// played alone, never has it.
type Departing struct {
	Frame Frame
}

// Interpolated makes an entity drawn smoothly between simulation states.
//
// Prev is the pose at the end of the previous simulation step; drawing blends
// from Prev to Transform by the fraction of a step elapsed (Schedule.Alpha).
// Snap marks a teleport: the next drawn frame shows Transform as is, with no
// blending from Prev. Whoever moves the entity keeps Prev: the physics bridge
// does so for bodies, and a game built on package tandem has the engine keep
// it for every networked entity whose Transform writes it reports. The
// interpolation layer keeps its own history for entities received from the
// network.
type Interpolated struct {
	Prev Transform
	Snap bool
}

// Blend returns the pose a fraction alpha (0..1) of the way from a to b, turning
// the angle the short way round.
func Blend(a, b Transform, alpha float64) Transform {
	return Transform{
		X:     a.X + (b.X-a.X)*alpha,
		Y:     a.Y + (b.Y-a.Y)*alpha,
		Angle: a.Angle + AngleDiff(a.Angle, b.Angle)*alpha,
	}
}

// AngleDiff returns the signed smallest rotation, in radians in [-π, π), that
// turns angle a into angle b.
func AngleDiff(a, b float64) float64 {
	d := math.Mod(b-a+math.Pi, 2*math.Pi)
	if d < 0 {
		d += 2 * math.Pi
	}
	return d - math.Pi
}

// String formats the pose for logs.
func (t Transform) String() string {
	return fmt.Sprintf("(%.3f, %.3f, %.3frad)", t.X, t.Y, t.Angle)
}

package tandem

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/physics"
)

// Game describes a networked game once, the same on every machine: how its
// world is built, which components travel and how each is predicted and
// drawn, what its input is, and (for the host) who may join. A host, a
// client and a game played alone are made from the same Game with NewHost,
// NewClient and NewLocal.
//
// I is the game's input: one value per player per frame (keys held, a
// stick's direction). It must be comparable, and its zero value means "no
// input" (a player at rest).
//
// The zero values of the optional fields are documented on each. A Game is
// read, never written, by what is made from it: one Game may make any number
// of hosts and clients.
type Game[I comparable] struct {
	// Step is the fixed simulation step. Default 1/60 s. A client checks it
	// against the host's tick rate and refuses to play at another.
	Step time.Duration
	// Physics, if set, gives every world a physics Space (World.Physics)
	// with this configuration; its Step is the Game's. Nil: no physics.
	Physics *physics.Config
	// Components are the replicated components, in the order they go on
	// the wire: the same on every machine. Make each with Replicate. At most
	// replicate.MaxComponents less the engine's own: one (the mark of the
	// entities a player drives), three with Roster.
	Components []Component
	// Setup builds a world's content before anything joins or arrives: its
	// static geometry, its systems (added to w.Schedule in the order they
	// run), its resources. It runs on every machine, so it must not spawn
	// networked entities on a client (check w.Role): those come from the
	// host. A query kept from frame to frame (an arche generic filter) is
	// made here, one for each world: it keeps the component ids of the
	// first world it queries, and two worlds of one Game (a host and a
	// client in one process) may number their components differently.
	// Required.
	Setup func(w *World)
	// Input is how I travels to the host. Required for a host or a client,
	// but for a game whose players send nothing every frame (one played by
	// commands alone, a strategy game's orders): a Game[NoInput] (or of any
	// type of no size) leaves it zero.
	Input InputCodec[I]
	// Idle reports whether the player's input in, following prev (the
	// frame before's), drives nothing: while it does, a client holds the
	// player's bodies the host reports at rest on the host's pose (the
	// rest lock, NetPhysics). Default: in is the zero value. A game whose
	// input counts presses (a jump, as InputCodec advises) gives one
	// that also takes an unchanged count for idle; otherwise, once the
	// count is past zero, a player standing on a crate is corrected at
	// every state for as long as she stands there. A client calls it on
	// its simulation goroutine, once a frame.
	Idle func(prev, in I) bool
	// Join is the host's answer to a peer about to be admitted: it spawns
	// the peer's entities (owned by p.ID) and returns nil, or returns an
	// error whose text is the reason the client is shown (see Refuse): the
	// host refuses the peer with a Reject before it takes a slot, and
	// removes the networked entities Join spawned for it (what else it
	// changed, a resource or a table of the game's, is the game's to undo
	// before it refuses: decide, then change). It runs on the simulation goroutine,
	// before the peer's join starts (World.Focus from it gives the peer a
	// square of interest its join brings); not for a spectator (ClientConfig.
	// Spectator: it owns nothing; Watch gives it its camera), not for a peer
	// that resumes after its
	// connection broke (its entities are in the world), and not for the
	// player at the host's own machine or of a game alone: spawn that one
	// in Setup (when w.Role is not Joined and w.Restoring is not set), owned
	// by ecs.HostPeer, with an Input. Nil: every peer is admitted with
	// nothing spawned.
	Join func(w *World, p Peer) error
	// Watch, if set, runs on the host as a spectator is let in, before its
	// join starts, on the simulation goroutine: World.Focus from it gives
	// the spectator's camera its square of interest, which its join brings
	// (the whole world without one); a spectator picks whom it follows by
	// its name, say. No save keeps a spectator: one that comes back after a
	// restart is let in afresh, and Watch runs again. Nil: spectators see
	// the whole world until the game focuses them (Host.Focus).
	Watch func(w *World, p Peer)
	// Leave, if set, runs on the host after a peer left and its entities were
	// removed (but those Keep kept): it closed its connection, was dropped,
	// did not come back within HostConfig.Grace after its connection broke,
	// or the host closed (Host.Close lets every player go, on the goroutine
	// that called it; CloseForRestart keeps them).
	Leave func(w *World, p Peer)
	// Keep, if set, runs on the host for each networked entity a player who
	// leaves for good owns, before Leave: true keeps the entity in the
	// world, given to the host (ecs.HostPeer), with its network id, its
	// components and its place in saves; false removes it, as every one is
	// removed without Keep. A flag or a vehicle a player held stays for the
	// next one; the player's own figure goes with her. A kept entity loses
	// its Input, if it has one, once Keep returned: no one drives it (with
	// it, the host's own input would, as it drives every entity the host
	// owns with Input); give it an Input again with the entity, to the next
	// player. It may change the world (an entity it removes or
	// gives away is not asked about again). Like Leave, it runs on the
	// goroutine that called Host.Close for the players Close lets go.
	Keep func(w *World, p Peer, e arche.Entity) bool
	// Arrived, if set, runs on a client for every entity received from the
	// host, right after it was created (again when one that left the
	// player's interest comes back: Departed ran as it left): it adds what the wire does not
	// carry (a physics body, what to draw it with). The entity holds every
	// component the host sent, and what the engine gave it: ecs.Interpolated
	// on one this client does not own (drawn from received states), and on
	// one it owns Interpolated (with a Transform) and, if the host's entity
	// has Input (the player drives it, as the host's world says), Input. Do
	// not add those again (arche panics on a component added twice). An
	// entity the player owns and does not drive (a projectile, a planted
	// flag) gets no Input; one given to the player later, or whose Input the
	// host adds or removes, gets or loses it at the client's next step.
	// Add ecs.HostMoved here to the entities only the host moves that a
	// player may own (a strategy game's units), whoever owns them now: on
	// the one this client's player owns, now or once given it, the client
	// then draws it from the host's states instead of predicting it; on
	// another's it changes nothing.
	Arrived func(w *World, e arche.Entity)
	// Departed, if set, runs on a client for every entity received from
	// the host just before the client removes it, holding every component
	// it had: the host removed it (once drawn to its removal), it left the
	// player's interest (it may come back, and Arrived runs again), a
	// resume found it gone, or ClientConfig.MaxEntities made room. It lets
	// go of what the game keeps of the entity outside the world (a sprite,
	// a sound, an index by entity); the engine removes its physics body and
	// the entity itself, which Departed must leave alive. A panic in it
	// ends the session (ErrHostData), as one in Arrived does. An entity
	// the host removed stays until drawn to its removal, so what the host
	// made in its place (a block replaced in its cell) may arrive first:
	// key what the game keeps by entity, not by place, or let a new
	// entity's Arrived take the place over and the old one's Departed
	// leave it alone.
	Departed func(w *World, e arche.Entity)
	// Net tunes how a client's physics treats networked bodies. The zero
	// value suits a game with bodies; one whose player pushes loose bodies
	// one at a time (a ball dribbled, a box kicked) sets DrawHeldAhead, so
	// the player is not drawn running through what it pushes (see
	// NetPhysics).
	Net NetPhysics
	// Replay, if set, is the game's predicted step, and every client
	// reconciles by replaying with it (see ClientConfig.Replay, which a
	// client may set instead): the game's systems that move what a player
	// predicts belong to the game, and a game whose forces depend on a
	// body's velocity (grip, drag, a shove) or whose values build up under
	// input reconciles right only by replaying. Nil: each client corrects,
	// unless its ClientConfig.Replay is set.
	Replay func(w *World)
	// Roster, if set, makes every machine know who plays: the host keeps an
	// entity per admitted peer (and one for the player at its own machine,
	// HostConfig.Name) with the peer's name and its round trip as the host
	// measures it, replicated after the game's components; Members reads
	// them on any machine. It costs one entity per peer and an update of
	// each a second.
	Roster bool
	// Commands are the kinds of command a player sends the host (NewCommand),
	// in the same order on every machine: a request that the host change the
	// world once and say so (a receipt), which survives reconnects and host
	// restarts. Nil: none.
	Commands []Command
	// Saved is what a host's save holds beside the replicated components:
	// host-only components (SaveComponent), the game's state
	// (SaveState), and the components a restore rebuilds (Rebuilt). Only a
	// host given a store saves (HostConfig.SaveTo, HostConfig.Store).
	Saved []Saved
	// Restored, if set, runs on the host for every networked entity restored
	// from a save, in network-id order, once every entity is back: it adds
	// what a save leaves out (a physics body, from the saved pose and
	// velocity) and points the game's own references at the entities (a
	// resource naming the ball). Nil: Arrived runs in its place, which adds
	// what the wire leaves out, the same things as a rule. The host's
	// ecs.HostMoved marks are saved and put back after the hook (which may
	// add them too); other client marks Arrived adds are not.
	Restored func(w *World, e arche.Entity)
}

// Role says which machine a World is on.
type Role uint8

const (
	// Alone: a game played on one machine, no network.
	Alone Role = iota
	// Hosting: the host, which decides everything.
	Hosting
	// Joined: a client, which holds the host's world and predicts its own
	// entities.
	Joined
)

// String names the role.
func (r Role) String() string {
	switch r {
	case Alone:
		return "alone"
	case Hosting:
		return "hosting"
	case Joined:
		return "joined"
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}

// World is one machine's copy of a game: the entities, the schedule that
// steps them, and the physics. Game.Setup receives it to build on.
//
// Everything here belongs to the simulation goroutine: a system, a Game hook,
// an observer, or a View or Do callback may use it; anything else must not.
type World struct {
	// ECS holds the entities. Change an owner only with ecs.SetOwner.
	ECS *ecs.World
	// Schedule steps the world at the Game's Step; add the game's systems
	// to it in Setup. The engine's own systems are in its input and output
	// stages, around the game's.
	Schedule *ecs.Schedule
	// Physics is the physics Space, nil without Game.Physics. Setup adds it
	// to the schedule where its step runs among the game's systems (after
	// those that push bodies, before those that read contacts), as
	// w.Schedule.Add("physics", w.Physics); if Setup does not, it runs after
	// all of them.
	Physics *physics.Space
	// Role says which machine this is.
	Role Role
	// Peer is this machine's peer id: ecs.HostPeer on the host and alone,
	// on a client the id the host gave it (0 until admitted).
	Peer ecs.PeerID
	// Restoring is set while Setup builds a host's world that a save then
	// fills: Setup builds the fixed content (geometry, systems, resources)
	// and spawns no networked entity, for the save brings them back.
	Restoring bool

	drawn    drawnPoses // keeps Interpolated.Prev of the entities a step moved
	driven   drivenFilter
	saveSoon *atomic.Bool // the host's request for a save (Host.SaveSoon); nil: none here
	focus    focuser      // the host's Focus and Unfocus; nil: none here
	// giver gives a command for the player at this machine (Give through
	// the World): the Host's, the Client's or the game alone's; nil during
	// Setup, before the session that sends it exists.
	giver func(k Command, payload []byte) (uint64, error)
	reg   *replicate.Registry // the replicated components (host, client); nil alone
	// seen is Seen on a host (the poses kept of the LagCompensated) and on
	// a client (what it draws); nil alone: the Transform.
	seen func(e arche.Entity, view float64) (ecs.Transform, bool)
	// predictedAt gives a client's record of a predicted body at a frame
	// (AppendWireImageAt); nil elsewhere.
	predictedAt func(e arche.Entity, f ecs.Frame) (pose ecs.Transform, vel ecs.Velocity, recorded, predicted bool)
	// removals are a client's predicted removals (Remove); nil elsewhere.
	removals *removals
}

// focuser is a host's Focus and Unfocus, for World's.
type focuser interface {
	Focus(peer ecs.PeerID, x, y float64)
	Unfocus(peer ecs.PeerID)
}

// Focus gives peer a square of interest around the world position (x, y),
// as Host.Focus does, from where the Host is not at hand: the Game's Join
// or Watch hook (the peer's join then brings the square, not the whole
// world), a PeerJoined observer, a system or a command. On a client and in a game
// alone it does nothing. Call it on the simulation goroutine.
func (w *World) Focus(peer ecs.PeerID, x, y float64) {
	if w.focus != nil {
		w.focus.Focus(peer, x, y)
	}
}

// Unfocus takes away peer's square of Focus, as Host.Unfocus does. On a
// client and in a game alone it does nothing. Call it on the simulation
// goroutine.
func (w *World) Unfocus(peer ecs.PeerID) {
	if w.focus != nil {
		w.focus.Unfocus(peer)
	}
}

// SaveSoon asks the host for a save of what changed, made at the end of the
// step under way, or of the next one from a hook or a callback between
// steps (Host.SaveSoon): for a system, a command or a hook, where the Host
// may not be at hand. On a client, in a game alone and on a host
// without a store it does nothing. Safe wherever the world is.
func (w *World) SaveSoon() {
	if w.saveSoon != nil {
		w.saveSoon.Store(true)
	}
}

// drivenFilter is what Driven queries with, made once a world: the
// entities with the Game's Input, networked or not (boxed once each).
type drivenFilter struct {
	typ              reflect.Type // Input[I] of the Game's I
	input            arche.ID
	networked, local arche.Filter
}

// Peer is a participant of a session as the host's Join and Leave hooks see
// it. ID is the peer's while it plays (a peer that resumes after a broken
// connection or a restart keeps it); after Leave it may be given to another
// peer, not at once: only after 32 other ids were given and a minute
// passed (see ecs.PeerID), but for a world loaded from its save (a
// restarted host; a world released while idle, HostConfig.IdleUnload, and
// loaded again), whose ids count from 1 again past those of the save's
// players: a player who left before the restart may find its id given to
// another. Key what outlives a peer by the game's own account, not ID.
// Name is what the client's ClientConfig.Name said (the host
// does not check it is unique).
type Peer struct {
	ID   ecs.PeerID
	Name string
}

// Refusal is the error a Join hook returns to refuse a peer, or a
// command's handler to refuse the command: its Reason is what the client
// is shown (Client.Err wraps ErrRefused with it; a receipt carries it as
// Receipt.Reason).
type Refusal struct{ Reason string }

// Error returns the reason.
func (r *Refusal) Error() string { return r.Reason }

// Refuse returns a Refusal with reason, for a Join hook ("the game is full",
// "that name is taken") or a command's handler ("not enough gold").
func Refuse(reason string) error { return &Refusal{Reason: reason} }

// ErrRefused is what Client.Err wraps when the host refused this client (a
// Join hook or HostConfig.Admit said no, the host was full, the name was
// refused, the client runs another build of the game: Game.Schema): the
// error's text is the host's reason, from its Reject, and errors.As finds
// its *session.RejectError with the code.
var ErrRefused = errors.New("tandem: the host refused to let this player in")

// InputCodec says how the game's input I travels: see predict.InputCodec.
type InputCodec[I any] = predict.InputCodec[I]

// NoInput is the input of a game whose players send nothing every frame:
// they act by commands alone (Send), as a strategy game's orders do. A
// Game[NoInput] needs no Input codec; each frame's input, empty, still
// travels (a byte or two beside what the client sends anyway).
type NoInput struct{}

// hasInputCodec reports whether the game says how its input is written
// and read (its Input, or none needed: inputCodec).
func (g *Game[I]) hasInputCodec() bool {
	c := g.inputCodec()
	return c.Append != nil && c.Read != nil
}

// inputCodec returns the game's Input, or for a Game whose input type has
// no size and whose Input is zero, one that writes nothing.
func (g *Game[I]) inputCodec() InputCodec[I] {
	if g.Input.Append == nil && g.Input.Read == nil && reflect.TypeFor[I]().Size() == 0 {
		return InputCodec[I]{
			Append:  func(dst []byte, _ *I) []byte { return dst },
			Read:    func(*wire.Reader, *I) {},
			MaxSize: 1,
		}
	}
	return g.Input
}

// check reports what is missing from g for a machine of role r.
func (g *Game[I]) check(r Role) error {
	switch {
	case g == nil:
		return errors.New("tandem: nil Game")
	case g.Setup == nil:
		return errors.New("tandem: Game.Setup is nil; give the function that builds the world (its systems, its static geometry)")
	case r != Alone && !g.hasInputCodec():
		return errors.New("tandem: Game.Input has no Append or Read; give the input's wire encoding (see predict.InputCodec), or make a Game[tandem.NoInput] for a game played by commands alone")
	case g.Step < 0:
		return errors.New("tandem: Game.Step is negative; give the fixed step (1/60 s if left 0)")
	}
	if len(g.Commands) > 256 {
		return fmt.Errorf("tandem: %d command kinds; at most 256 fit", len(g.Commands))
	}
	names := map[string]bool{}
	for i, c := range g.Commands {
		if c == nil || c.def() == nil {
			return fmt.Errorf("tandem: Game.Commands[%d] is nil; make command kinds with NewCommand", i)
		}
		if names[c.def().name] {
			return fmt.Errorf("tandem: command %q is listed twice in Game.Commands; list each once", c.def().name)
		}
		names[c.def().name] = true
	}
	if engine := len(g.replicated()) - len(g.Components); len(g.Components)+engine > replicate.MaxComponents {
		return fmt.Errorf("tandem: %d replicated components in Game.Components; at most %d fit beside the engine's own %d (replicate.MaxComponents in all): merge small ones into one", len(g.Components), replicate.MaxComponents-engine, engine)
	}
	seen := map[string]bool{}
	for i, c := range g.Components {
		if c.register == nil {
			return fmt.Errorf("tandem: Game.Components[%d] is empty; make components with Replicate", i)
		}
		if seen[c.typ] {
			return fmt.Errorf("tandem: component %s is listed twice in Game.Components; list each once", c.name)
		}
		seen[c.typ] = true
	}
	return nil
}

// step returns the fixed step, defaulted.
func (g *Game[I]) step() time.Duration {
	if g.Step == 0 {
		return ecs.DefaultStep
	}
	return g.Step
}

// newWorld builds a world of role r stepped by clk: the ECS, the schedule,
// the physics, then the game's Setup.
func (g *Game[I]) newWorld(r Role, clk clock.Clock, restoring bool) *World {
	w := &World{ECS: ecs.NewWorld(), Role: r, Restoring: restoring}
	w.Schedule = ecs.NewSchedule(w.ECS, clk, g.step())
	if g.Physics != nil {
		pc := *g.Physics
		pc.Step = g.step()
		w.Physics = physics.New(w.ECS, pc)
	}
	in := arche.ComponentID[Input[I]](w.ECS.Arche())
	networked := arche.All(in, w.ECS.IDs.NetworkIdentity)
	local := arche.All(in).Without(w.ECS.IDs.NetworkIdentity)
	w.driven = drivenFilter{typ: reflect.TypeFor[Input[I]](), input: in, networked: &networked, local: &local}
	// First in the step, before anything moves an entity, and last. The
	// Transform writes a step reports are journaled on every machine, a
	// game alone included, where nothing is replicated.
	w.ECS.SetJournaled(w.ECS.IDs.Transform)
	w.Schedule.AddTo(ecs.StageInput, "tandem.drawn", ecs.Reporting(ecs.SystemFunc(w.drawn.start)))
	g.Setup(w)
	if w.Physics != nil && !slices.Contains(w.Schedule.Systems(), physicsSystem) {
		w.Schedule.Add(physicsSystem, w.Physics)
	}
	if w.Physics != nil {
		// A teleport a system wrote after the physics step moves its body.
		w.Schedule.AddTo(ecs.StageOutput, "tandem.teleports", w.Physics.Teleports())
	}
	w.Schedule.AddTo(ecs.StageOutput, "tandem.drawn.end", ecs.Reporting(ecs.SystemFunc(w.drawn.end)))
	w.drawn.atRest(w.ECS, w.ECS.Journal().Spawned(w.ECS), true)
	return w
}

// physicsSystem is the name the physics step runs under.
const physicsSystem = "physics"

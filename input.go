package tandem

import (
	"fmt"
	"reflect"
	"sync"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// Input is the component through which a player's input reaches the entities
// it drives. Each frame, before the game's systems run, the engine writes the
// input of the entity's owner for that frame into Value: on the host the
// input each peer sent for the frame (the host's own, SetInput, for
// entities it owns), on a client its own for the entities it predicts. The
// game's systems read Value, and the same systems run on the host and on a
// predicting client.
//
// Give it to the entities a player drives when spawning them (a client's
// own entities get it on arrival). A computer player is an entity with
// Bot set: the game's own system writes its Value, the engine never does.
//
// An input is a state, held for as many frames as the player holds it
// (SetInput), not an event. A system that acts once per press (a jump, a
// move of one cell) keeps what it acted on in a component of the entity,
// replicated and predicted as the entity's others are (HostValue), and
// acts when Value differs from it. Sturdier, where a press may be shorter
// than the network's worst gap (two late inputs arriving together, the
// host taking the newer), I carries a count of presses, which only grows:
// the system acts on the count's difference from the one it kept, and a
// press is never lost. (Such a game says which input is idle, Game.Idle:
// past the first press the count is never the zero input.)
//
// Either way it acts only on frames with Live set. While the engine has no
// input from the player, Value is the zero input and Live is false: on the
// host before the player's first input, while its connection is broken,
// and after it resumes until its next input arrives; on the host and its
// client alike while the client's frame is not yet in step with the host's
// (after joining or resuming), when the client sends the zero input
// marked as not the player's; and on a client whose inputs the host has
// left unanswered for a while (ClientConfig.Predict's HoldAfter: by default
// 250 ms past a round trip, or 15 steps of a slower game, plus four times
// the jitter measured, NetStats.HoldAfter), which holds its own entities
// until the host answers again rather than run them ahead of a host that
// is not getting the player's inputs (it sends them all the same). The zero
// input stops a player that moves; a system that compared a count with
// it would see every press undone, then made again. It keeps what it kept
// until Live comes back, and the presses made meanwhile are in the count
// then.
//
// A press that sends a command (Send, Give: a spell, an order) is counted
// otherwise: a correction from the host (one that had not had the
// player's input for a while, a link that went dark) takes a predicted
// count back, the client's system sees the press again and sends the
// command again, under a new operation id, which the host runs again; a
// command sent is not taken back. The client's system keeps the count of
// presses it sent commands for in a value of the client's alone (a
// variable of its own, a component the game does not replicate), which no
// correction touches; the host runs each command once.
type Input[I any] struct {
	// Value is the input for the frame being simulated.
	Value I
	// Live reports that Value is an input the player set (on the host: one
	// it sent, for this frame or, held, an earlier one); false while the
	// engine has none and Value is the zero input.
	Live bool
	// Bot marks an entity whose Value the game writes itself, and Live
	// with it (set it where a system acting on presses should read the
	// bot's as a player's): the engine writes neither.
	Bot bool
	// View is the host frame, with its fraction, whose world the player saw
	// when she set Value: where her screen drew the entities she does not
	// predict, some way behind the frame being simulated (her round trip
	// and the render delay). A hit test finds a target where she aimed at
	// it with World.Seen(target, View) (lag compensation: mark the targets
	// LagCompensated). On the host from her client's input messages, at
	// most HostConfig.MaxRewind behind; on her client, the frame it drew as
	// she set the input; the frame itself for the host's own player, alone,
	// for a Bot (the game may write its own) and while Live is false. A
	// client that draws nothing (a bot's, a test's) sends the frame of the
	// newest state its world held. A command handler (which runs after the
	// inputs are routed) finds its player's in the Input of the entity she
	// drives (Driven).
	View float64
}

// Driven returns the first entity that peer's input drives: one the peer
// owns (ecs.NetworkIdentity.Owner) with an Input[I] that is not a Bot, or,
// for HostPeer on the host or alone, one with Input[I] and no
// NetworkIdentity (this machine's alone, which its player drives); ok is
// false when it has none. On a host any peer's (HostPeer: the player at the
// host's own machine), on a client its own (World.Peer; the client gives
// Input to those of its own the host's world gives it), alone the player's
// (HostPeer): the entity a command acts on, a camera follows, a HUD reads.
// I is the Game's input
// type (which Go cannot infer: Driven[Keys](w, peer)); another panics,
// naming the Game's. Cost: the entities with Input[I], not the world; it
// allocates nothing. Call it on the simulation goroutine (in a system or
// hook, inside View or Do).
func Driven[I any](w *World, peer ecs.PeerID) (arche.Entity, bool) {
	d := &w.driven
	if d.networked == nil {
		return arche.Entity{}, false
	}
	if d.typ != reflect.TypeFor[Input[I]]() {
		game, _ := d.typ.FieldByName("Value")
		panic(fmt.Sprintf("tandem: Driven[%v] on a world whose Game's input is %v: give Driven the Game's input type", reflect.TypeFor[I](), game.Type))
	}
	a := w.ECS.Arche()
	in, ni := d.input, w.ECS.IDs.NetworkIdentity
	q := a.Query(d.networked)
	for q.Next() {
		if (*ecs.NetworkIdentity)(q.Get(ni)).Owner == peer && !(*Input[I])(q.Get(in)).Bot {
			e := q.Entity()
			q.Close()
			return e, true
		}
	}
	if peer != ecs.HostPeer || w.Role == Joined {
		return arche.Entity{}, false
	}
	q = a.Query(d.local)
	for q.Next() {
		if !(*Input[I])(q.Get(in)).Bot {
			e := q.Entity()
			q.Close()
			return e, true
		}
	}
	return arche.Entity{}, false
}

// inputRoute is the system that writes every routed entity's Input for the
// frame: of owner peer, the input source(peer) gives, and whether it is
// live; ok false leaves the entity's Input as it is. Cost: the entities
// with Input (an archetype query), not the world.
type inputRoute[I comparable] struct {
	filter *generic.Filter2[Input[I], ecs.NetworkIdentity]
	local  *generic.Filter1[Input[I]]
	source inputSource[I]
}

// inputSource gives the input of peer's entities for the frame; ok false
// leaves them as they are.
type inputSource[I any] func(peer ecs.PeerID) (in routed[I], ok bool)

// routed is what the routing writes into an entity's Input.
type routed[I any] struct {
	value I
	live  bool
	view  float64 // Input.View
}

func newInputRoute[I comparable](source inputSource[I]) *inputRoute[I] {
	return &inputRoute[I]{
		filter: generic.NewFilter2[Input[I], ecs.NetworkIdentity](),
		local:  generic.NewFilter1[Input[I]]().Without(generic.T[ecs.NetworkIdentity]()),
		source: source,
	}
}

// Update implements ecs.System.
func (r *inputRoute[I]) Update(w *ecs.World) {
	now := float64(w.Frame())
	q := r.filter.Query(w.Arche())
	for q.Next() {
		in, ni := q.Get()
		if in.Bot {
			in.View = now // sees the present, unless the game's bot says otherwise
			continue
		}
		if v, ok := r.source(ni.Owner); ok {
			in.Value, in.Live, in.View = v.value, v.live, v.view
		}
	}
	// Entities that are not networked belong to this machine alone: the
	// host's (or a lone game's) local input drives them.
	lq := r.local.Query(w.Arche())
	for lq.Next() {
		in := lq.Get()
		if in.Bot {
			in.View = now
			continue
		}
		if v, ok := r.source(ecs.HostPeer); ok {
			in.Value, in.Live, in.View = v.value, v.live, v.view
		}
	}
}

// heldInput is the input of the player at this machine: set by SetInput
// from any goroutine, read by the simulation at each step. Its lock is its
// own and is never held while anything else runs, so SetInput may be called
// from inside a callback or an observer too, where the world's lock is held.
type heldInput[I any] struct {
	mu sync.Mutex
	v  I
}

func (h *heldInput[I]) set(v I) {
	h.mu.Lock()
	h.v = v
	h.mu.Unlock()
}

func (h *heldInput[I]) get() I {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.v
}

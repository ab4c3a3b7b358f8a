// Package interp decides where each entity is drawn, apart from where it is
// simulated.
//
// It sits between the connection and replication in the network stack, and
// at the very end of a client's frame: the replicator tells it which host
// frame each received state belongs to; the renderer asks it where to draw.
// Nothing here writes ecs.Transform: drawn poses live in the Interpolator.
//
// Remote entities (received from the host, not predicted here; they carry
// ecs.Interpolated) are drawn in the past. The Interpolator keeps the last
// few received poses of each with their host frames, in flat per-slot rings
// (slots are the world's network slots, see ecs.World.NetSlot), learns from
// when new host frames arrive how local time maps to the host's timeline and
// how much arrivals jitter, and draws each entity at "host now − render
// delay", blending the two received states around that moment (an entity
// without a Transform is kept for the Tracks alone: the game's components
// blended, no pose). The render
// delay is about two send intervals plus a multiple of the jitter, more under
// loss, and changes slowly; the render clock follows its target by running at
// most a few percent fast or slow. It jumps only when it is far off: after a
// long stall, or when the host's frames moved against local time for good (a
// host that stalled longer than it catches up), and then every entity slides
// from where it was drawn. A host that starts its frames again from a low
// number is followed after two of its sends (Reset). A teleport
// (Interpolated.Snap) is drawn as one jump, never as a slide. An entity
// the host made in play (Born) is not drawn until the render frame reaches
// its first state, so it appears with the world drawn around it; one a
// join brings, or one entering the client's interest, is drawn at once,
// moved back from its first state by the ecs.Velocity it had there until
// the render frame reaches it, so it comes in moving rather than standing
// there for the render delay (one without a velocity stands there).
// One the host removed stays in the client's world until the render frame
// reaches its removal (Drawing), so it is drawn to the end of its way.
//
// The host does not send every entity every time: small changes wait until
// they add up (up to Config.MaxDeferral), a tick's states may be split over
// datagrams of which one is lost, and a host with nothing to say sends
// nothing. So an entity left out of some sends is blended straight from its
// previous state to its next, and moved on at its own speed while its next
// state is due; it is taken to rest only once the host sent newer frames
// without it for longer than its states came apart (states of other
// entities, or, as a world falls still, the empty states a Tandem host
// sends then, which the replicator passes to Heard), or than MaxDeferral if
// its ecs.Velocity says it moved at its newest state (its next state lost,
// or sent less often, leaves such frames while it moves), and to have rested in
// a silence only up to MaxDeferral before its next state. When the states
// stop coming with no newer frame heard (late, or lost) the entity is
// extrapolated for a bounded time (along its last two states, or by its
// ecs.Velocity when it has one state alone: a shot that lived less than a
// send interval flies on to its removal), then slides back to its newest
// state and is held there. While the host says its budget for this client
// holds changes back (HeldBack: a Tandem host's Backlog message), silence
// says nothing of rest: an entity moving as its velocity says is moved on
// by it until its next state comes.
//
// Local entities (simulated here: the host's, or a client's predicted ones)
// are drawn between the last two simulation steps, blending
// Interpolated.Prev to Transform by the schedule's alpha. When prediction
// corrects a pose it calls AddCorrection, and the drawn pose keeps the old
// place as an offset that decays to nothing within a few half-lives, so a
// correction never shows as a jump. A late state that ends an extrapolation
// is smoothed the same way.
//
// Pose gives the renderer the pose of any entity, whichever kind it is.
//
// Threads: an Interpolator belongs to the goroutine that owns the world (the
// simulation's); nothing here is safe for concurrent use.
package interp

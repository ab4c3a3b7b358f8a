// Package replicate turns the host's change journal into per-peer updates and
// applies them on clients, so every client holds the host's world as the wire
// quantizes it.
//
// It sits between the ECS (ecs.MutateComponent reports what changed) and the
// connection (net/conn numbers datagrams and says which arrived). On the host,
// HostReplicator reads the journal each simulation step and keeps, per peer,
// which components of which entities are dirty for that peer: changed since the
// state the peer acknowledged. Each send tick it packs the dirty items, highest
// priority first, into STATE messages up to the peer's bandwidth budget; items
// that did not fit gain priority. A delivery notice makes the sent values the
// peer's baseline for delta coding; a loss notice marks the items dirty again,
// so the newest state goes out, never the stale one. Spawns and removals are
// repeated until acknowledged. Owners get AUTH_STATE for the entities they
// own. A joining peer gets the whole world as paced pages on the join lane.
//
// On the client, ClientReplicator applies STATE, AUTH_STATE and join pages:
// it maps network ids to local entities, writes components without reporting
// them, and remembers the host frame each state belongs to.
//
// The Registry says which components replicate and how: a quantized wire
// image (integers), an exact encoding for saves, a tolerance and a blend. Both
// sides register the same components in the same order.
//
// Threads: everything here runs on the simulation goroutine.
package replicate

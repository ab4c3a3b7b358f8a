// Package replicate turns the host's change journal into per-peer updates and
// applies them on clients, so every client holds the host's world as the wire
// quantizes it.
//
// It sits between the ECS (ecs.MutateComponent reports what changed) and the
// connection (net/conn numbers datagrams and says which arrived). On the host,
// HostReplicator reads the journal each simulation step and does, once for
// every peer, what is the same for all of them: it quantizes each changed
// component into the entity's shared wire image (keeping the images peers may
// still hold as baselines), and on send ticks measures each change's urgency
// and chooses the streams' codes. Per peer it keeps only what is the peer's
// own: a 12-byte record per entity (the frame of the image the peer
// acknowledged, what is dirty, its priority), its scope, and the messages in
// flight. Each send tick it takes the peer's due items within its bandwidth
// budget into bit-packed State messages coded against the images the peer
// acknowledged; peers with the same baseline share the encoded fields, and a
// peer in the same state as the peer packed before it (as peers that
// acknowledge alike are) takes that peer's packing and messages by copying. A
// delivery notice makes the sent image the peer's baseline; a loss notice
// marks the items dirty again, so the newest state goes out, never the stale
// one. Spawns and removals are repeated until acknowledged. Owners get
// AuthState for the entities they own. A joining peer gets the world as
// pages on the join lane, paced by the lane's flow control. As the world
// falls still, a peer gets a few empty STATEs (quiet ticks), so
// that its client tells an entity that stopped from one whose states are
// late.
//
// Interest (InterestConfig, on by default) decides which entities each peer
// receives and how urgent their changes are, by distance on a grid from what
// the peer owns; entities enter and leave a peer's scope as they or the
// peer's own entities move. Each cell knows the peers that cover it, so a
// send tick hands a peer only the changes in its scope, and cells are made
// where entities go and given back when empty.
//
// On the client, ClientReplicator applies State, AuthState and join pages
// (these in bounded slices a frame, Pump): it maps network ids to local
// entities, writes components without reporting them, and remembers the host
// frame each state belongs to.
//
// The Registry says which components replicate and how: a quantized wire
// image (integers), an exact encoding for saves, a tolerance and a blend, and
// optionally a Motion tying a pose to a velocity, so poses travel as what the
// velocities do not predict. Both sides register the same components in the
// same order.
//
// Threads: everything here runs on the simulation goroutine.
package replicate

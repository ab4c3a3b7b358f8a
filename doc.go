// Package tandem is the facade a networked real-time game is written against.
// A game describes itself once, in a Game: how its world is built (the same
// on every machine), which components travel and how each is predicted and
// drawn, what its input is, and who may join. The engine builds and wires the
// rest, in the right order, on both sides: the clock and fixed step, the
// session over QUIC (or in memory for tests), replication, the host's input
// buffers, the client's prediction, reconciliation and correction smoothing,
// interpolation, physics on the network, and the figures of a net graph.
//
// A game in an afternoon:
//
//   - Its input: a small comparable value I per player per frame (keys held,
//     a stick) with an InputCodec, its wire encoding.
//   - Its world: Game.Setup adds the game's systems to World.Schedule and
//     its static geometry to the world. It runs on every machine; only the
//     host (or a game alone, Role Alone) spawns networked entities.
//   - Its components: one Replicate per replicated component, in
//     Game.Components, with its codec (net/replicate: wire image, tolerance,
//     blend) and its Prediction. ecs.Transform and ecs.Velocity, when
//     replicated, are predicted through the physics body (PredictPose,
//     PredictVelocity); the game's own are usually the host's (HostValue).
//     A game whose player moves without physics, by values of its own that
//     build up frame after frame, gives Game.Replay (its movement systems;
//     or one client ClientConfig.Replay), and every client replays from the
//     host's state instead of correcting.
//   - Its players: Game.Join spawns a peer's entities, owned by that peer and
//     with an Input[I] component; the engine writes each frame's input of the
//     owner into Input[I].Value, on the host and on the predicting client,
//     and the game's systems read it there: the same systems on both sides.
//     Join returns Refuse("reason") to turn a peer away; the client is told
//     the reason in the host's Reject (Client.Err wraps ErrRefused), and the
//     peer never takes a slot. Driven finds the entity a peer drives (the
//     one a command acts on, a camera follows).
//   - What a client adds to received entities: Game.Arrived (a physics body,
//     say). A replicated component that only marks a kind (a projectile, a
//     pickup) tells kinds apart there; it needs a field to replicate (a
//     codec writes at least one).
//   - Entities that come and go: the host spawns a networked entity with an
//     ecs.NetworkIdentity (owned by ecs.HostPeer, or by a peer) and removes
//     it with World.Remove (at once there, or, under a query, once the
//     running system returns: ecs.World.RemoveEntity); each client makes
//     or removes its copy when the state that says so arrives (its physics
//     body goes with it). A client never spawns or removes networked
//     entities itself: World.Remove there predicts the host's removal,
//     hiding the entity and taking its body out of the physics until it
//     comes (World.Removed).
//   - Every write of a replicated component is reported, after it, with
//     ecs.MutateComponent (or made through ecs.Mutate); so is adding one to
//     a live networked entity, or removing one from it, which the clients,
//     the owner's predicting one included, then do too. A write nobody
//     reports is never sent: a tandemtest rig fails the test at it, a host
//     in play finds it later by its audit (HostConfig.Replication).
//
// Then NewLocal plays it alone, NewHost hosts it (Serve a listener from
// net/transport/quicnet, or Accept connections), and NewClient joins a host
// over a connection; each is a Session, so one loop and one window drive
// whichever the program picked. Each runs its simulation at the fixed rate
// with Run, on a goroutine of its own; SetInput gives the input of the
// player at this machine; View lets a window draw between two steps whatever
// its own rate (a slow display never slows the game or its network), with
// View.Pose saying where each entity is drawn: in the past and interpolated
// for what the host sends, blended between steps and corrected smoothly for
// what is simulated here. An entity simulated here is blended when it carries
// ecs.Interpolated (a client gives its predicted ones one); the engine keeps
// its Prev from the Transform writes the game reports, physics or not. A
// client takes the fixed step and send rate from the host. Its first join is
// bounded (ClientConfig.JoinTimeout; ErrJoinTimeout), and Client.Joined tells
// a session that ended after playing from one that never got in.
//
// Commands: a player's request that the host change the world once (switch
// team, place something, spend something), with an answer that says it
// did. A game lists its command kinds (NewCommand) in Game.Commands; a
// client sends one with Send and hears its Receipt (Client.OnReceipt); Give
// gives one for the player at this machine on any Session (the host's own
// player's goes the same way, a game alone runs it at once), or through the
// World, which is what a system has (a game alone runs it at the next
// step's start). The
// client names each operation with an increasing id and sends it again,
// under the same id, until its receipt comes (on a new connection too); the
// host runs each operation once, keeps the newest receipts of every player
// (HostConfig.Receipts) and answers a copy with the first receipt, byte for
// byte, other content under a kept id with ReceiptConflict, and an id older
// than what it keeps with ReceiptExpired. A command the game refuses (its
// handler returns Refuse) gets a receipt too.
//
// Saves: a host given a store (HostConfig.SaveTo, a bbolt file or a
// PostgreSQL URL; or HostConfig.Store) keeps its world there, and restores
// it when it starts: every networked entity with every replicated component
// at full precision (through its codec's exact encoding: Exact fills one in
// for a plain struct), the host-only components and the game's state it
// lists in Game.Saved, the frame and the network-id counter, the known
// players (their session tokens' hashes) and their receipts, as one atomic
// set of records (package save). Physics bodies are rebuilt from the saved
// pose and velocity (Game.Restored). A save costs what changed since the last
// (the change journal says what, as for replication), and runs on a
// goroutine of its own: the commands of one frame share one save, and every
// few seconds (HostConfig.SaveEvery) the rest follows. A receipt leaves only
// once the save that holds its command is durable; a failed save keeps the
// world, withholds the receipts and is tried again. A save that does not
// read stops NewHost with a typed error rather than start an empty world.
//
// A host's life: Close fences the world (no step, no connection, no command
// from then on), saves it, sends the receipts that save frees, and returns,
// its players' sessions ended and the players gone from the save;
// CloseForRestart keeps them in the save and tells them to come back, so
// they resume into the world the next host restores (Restartable says
// beforehand whether it would); a
// fenced store (another host took the world) stops the host on its own
// (Err, Done). A world nobody plays in may be saved and released, and loaded
// again when someone connects (HostConfig.IdleUnload). The host has player
// slots (HostConfig.MaxPeers): the players a save lists hold theirs through
// their grace window; spectators (ClientConfig.Spectator) watch without one.
//
// Physics on the network: with Game.Physics set every world has a physics
// Space (package physics). A client keeps the bodies it does not predict on
// the host's state, carried forward to its own frame, and holds those its
// predicted bodies touch until the host has seen the touch; a predicted body
// at rest stays where the host has it (see NetPhysics). Teleports made with
// physics.SetPose (or reported with ecs.ReportTeleport) travel with their pose
// and are drawn as jumps on every machine.
//
// Big worlds: the host sends each player only what is near what it owns,
// on by default for every networked entity with a replicated ecs.Transform
// (the spatial scope, HostConfig.Replication.Interest: cells of CellSize
// world units, 256 by default, and a Radius of 4,096 around each owned
// entity). An entity that comes within reach is sent whole; one that goes
// out of reach is removed on the client, which draws it out first
// (ecs.Departing) and runs Departed; changes far off go less often than near
// ones. A camera away from the player's entities (a spectator, a scout)
// takes a square of its own with Focus. Host.InScope, Host.ScopeSize and
// Host.AppendScope say what a peer is sent; its client holds the same once
// it has caught up, but for what it draws out to a removal (ecs.Departing)
// and what it removed ahead of the host (World.Removed). Still decor costs
// nothing a step: a step costs what changed, whatever the world's size.
//
// Hit tests where the player aimed: each player's Input carries the frame
// her client drew the world it does not predict at as she set it
// (Input.View), and the host keeps the poses of the entities marked
// LagCompensated for HostConfig.MaxRewind, so a game's hit test finds a
// target where she saw it (World.Seen), not where the host has it a round
// trip and a render delay later.
//
// Connections that break: a host keeps a peer whose connection broke for
// HostConfig.Grace (30 s): its id, its entities, the zero input meanwhile.
// A client given a ClientConfig.Dial reconnects by itself and resumes as the
// same player with the same entities (and one whose first connection broke
// before the host let it in dials again to join); while it reconnects its
// State is Reconnecting and its world is held still (nothing is simulated;
// View draws it as it was). A game writes nothing for it; the events
// (PeerDisconnected, PeerResumed) and the counts (HostStats.Away,
// NetStats.Resumes, ReconnectLeft) say what happens.
//
// Layers: this package sits at the top of the module, under the demo. Below
// it: store (durable records), ecs (world, schedule, change journal), physics
// (the cp bridge), net/wire, save (a world's records), net/transport,
// net/conn, interp, net/replicate, net/predict, net/command (receipts) and
// net/session. A game that needs what the facade does not wire can use those
// directly; the facade is built on their public API only.
//
// Threads: a Local, Host or Client owns its world. The world itself may be
// touched only by the systems, the Game's hooks, and View and Do callbacks,
// which run with the world locked between steps, as do the observers
// (OnEvent, OnReceipt). The methods fall in four groups.
//
// Run, Advance, Step, View and Do take the world: call them from any
// goroutine, but not from inside that code, where the world is held
// already: there they wait for themselves and the game stands still (after
// two seconds they say so through the config's Logger). Inside it, read
// and change the world directly.
//
// Save, a Host's Close and CloseForRestart, a Client's Close, and a game
// alone's Give and RunAlone wait for the world too, from any goroutine;
// inside that code (their documentation says "except from inside a View or Do
// callback") they give up with ErrWorldHeld after two seconds, doing nothing.
// A save is asked for there with World.SaveSoon or Host.SaveSoon.
//
// World, a Client's Stats and Local, and a Host's lists of peers and players
// read the world as it is: call them inside that code, as their documentation
// says.
//
// Every other method may be called anywhere, inside that code too: SetInput,
// Ticks, Send, SendOwn, a Host's or a Client's Give, Give through a World,
// OnEvent, OnReceipt,
// LockStats, Restartable, State, Err and the figures among them. They keep
// locks of their own (a command given while the world is locked leaves when
// it is let go, at the latest with the next step); a Host's Stats are what it
// published at the end of its last step, View, Do, Save or Close, and a
// Client's NetStats are read then and there with the world free, else what it
// published last.
package tandem

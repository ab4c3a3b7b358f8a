// Package fleet runs a tandem host as a game server of an Agones fleet: it
// ties a Host to the SDK server beside its pod (package agones) so that the
// host keeps Agones' contract, whatever the game.
//
// Run does, in this order:
//
//  1. Reads the GameServer (the watch stream's first event) and opens the
//     world it names, if any (Config.Open; the name is the label or
//     annotation WorldKey, "tandem.dev/world", as a Fleet's template or an
//     allocation sets it). With no name it opens the game's unnamed world
//     (Open gets ""), which a warm server ticks until an allocation names one.
//     A world named in the template is opened as the server starts, before
//     Ready: a second server of that template takes it from the first (its
//     lease), so a fleet of one world runs one replica, replaced by a
//     Recreate rollout, never two side by side.
//  2. Serves the listener it was given, already bound, with that host.
//  3. Publishes the certificate's fingerprint as the annotation PinAnnotation
//     ("agones.dev/sdk-pin" on the GameServer), for a matchmaker to hand
//     clients with the address: their -pin.
//  4. Calls Ready: the listener is bound and a world is loaded.
//  5. Pings Health on its period while the host's loop turns (Host.Ticks
//     advances): a stalled tick loop stops the pings within one period, and
//     Agones marks the server Unhealthy after its failure threshold.
//  6. Watches the GameServer: when it becomes Allocated naming a world, that
//     world is opened and served, once, however often the allocation is
//     reported again; the unnamed world serves on until it is open, then
//     closes. An Open that fails is tried again with backoff for
//     Config.OpenTimeout (30 s), then Run ends (step 8) with its error. A
//     world once named stays: an allocation naming another is reported
//     (Config.OnError) and ignored. A client that reached the server before
//     the allocation did (the matchmaker had the address first) joined the
//     unnamed world, and is closed with it as at a shutdown: a matchmaker
//     that hands out the address only once the GameServer shows the world
//     (or a client that joins again on CloseHostShutdown) avoids it; what
//     such a client did there is not kept (the unnamed world has no save).
//  7. Keeps the players holding a place in the host (Host.Plays) in the List
//     Config.Players ("players", beta Counters and Lists): added when they
//     join, kept while their connection is broken and they may resume (their
//     grace window), removed when they really leave. Values are peer ids in
//     decimal. The list is read first and values no player holds are removed
//     (a container restarted in the same pod); a duplicate add is not an
//     error; a failed call is retried with backoff, off the simulation
//     goroutine.
//  8. When ctx ends (SIGTERM: signal.NotifyContext) it closes the host: the
//     host stops taking connections, fences its world, drains what it took,
//     saves and waits for the save (Host.Close, which lets every player go:
//     their list values are removed as far as the calls land before the
//     pod goes); a failed final save is tried again until Config.FinalSave
//     passes. Then it calls Shutdown. A host that
//     stops on its own (another host took its world over: store.ErrFenced)
//     is shut down the same way, and Run returns why it stopped; one whose
//     allocated world had no player for Config.EmptyFor too, Run returning
//     nil.
//
// The Fleet's list capacity should be the host's player slots
// (HostConfig.MaxPeers): Agones refuses adds past it.
//
// Run drives the host's loop itself (Host.Run on a goroutine of its own): a
// game server has no window to draw in.
package fleet

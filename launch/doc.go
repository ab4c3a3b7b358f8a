// Package launch is the command line of a networked game built on package
// tandem: the flags every such game takes to host a match, join one, keep
// its world in a save and serve in an Agones fleet, and what they open.
//
// Where it sits: a game's main registers Flags beside its own flags, parses
// and checks them, then opens the match they say (Open) and drives it, or
// builds its tandem.Host or tandem.Client from the pieces below, and runs
// it:
//
//   - Open: a Match, played alone, hosted or joined as the flags say, with
//     the save, the listener and its join lines, the dialer and the logs
//     below opened for it, and the game's own settings added (Options).
//     Match is the session (SetInput, View, Do, tandem.Give), with Host or
//     Client for what is a host's or a client's own; Played, Ended and Err
//     for the game's end (a client's "could not join" or "the session
//     ended"); Play, a loop beside a window, and RunHeadless, the loop
//     without one (to the exact frame alone, the restart signal on a host);
//     Close, which saves and honours a restart. Receipts keeps the answers
//     to the commands given at this machine for a HUD.
//   - Flags.Register and Flags.Check: -host, -join, -addr, -pin, -name,
//     -spectate, -ticket, -max-players, -per-address, -grace, -idle-timeout, -lag,
//     -jitter, -loss, -reset-key, -save, -save-every, -check-writes, and
//     with Flags.Fleet -agones and -empty-for, with errors that say which
//     flag to change.
//   - Flags.HostConfig: the host's settings the flags give.
//   - Flags.OpenSave: the world's save (bbolt or PostgreSQL), holding the
//     host's identity too, so a restarted host is the same host to its
//     players.
//   - Flags.Listen: the QUIC listener (under a link conditioner with -lag,
//     -jitter or -loss), and the lines a friend joins with, printed.
//   - Flags.Dialer: a client's connection, made again after a break.
//   - LogClient and LogHost: a client's joins, breaks and resumes, and a
//     host's events, one line each; Log: the engine's own notices (slog)
//     as lines of the same form, which Open and Flags.QUIC give the engine.
//   - RunHost: a host run until its context ends, closed for a restart at
//     RestartSignal (WatchRestart, for a loop of the game's own).
//   - Flags.ServeFleet: the host as a game server of an Agones fleet.
//
// Nothing here draws: the game's window drives the match (Play on a
// goroutine of its own, View in each frame), or RunHeadless does with none.
package launch

// Package launch is the command line of a networked game built on package
// tandem: the flags every such game takes to host a match, join one, keep
// its world in a save and serve in an Agones fleet, and what they open.
//
// Where it sits: a game's main registers Flags beside its own flags, parses
// and checks them, then builds its tandem.Host or tandem.Client from what
// they give, and runs it:
//
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
//     host's events, one line each.
//   - RunHost: a host run until its context ends, closed for a restart at
//     RestartSignal (WatchRestart, for a loop of the game's own).
//   - Flags.ServeFleet: the host as a game server of an Agones fleet.
//
// Nothing here steps a simulation or draws: the game's loop (a window, or a
// headless one) drives the session as package tandem says.
package launch

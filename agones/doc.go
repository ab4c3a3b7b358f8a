// Package agones is a client of the Agones SDK server, the sidecar that runs
// beside every GameServer pod of an Agones fleet, through its documented REST
// interface (localhost:$AGONES_SDK_HTTP_PORT, default 9358), with the
// standard library only.
//
// A host in a fleet follows the SDK's contract:
//
//	c, _ := agones.New(agones.Options{})
//	c.SetAnnotation(ctx, "pin", fingerprint)  // before Ready: a matchmaker hands it to clients
//	c.Ready(ctx)                              // after the listener is bound
//	go (&agones.HealthPinger{Client: c, Progress: frames.Load}).Run(ctx)
//	go c.WatchGameServer(ctx, func(gs *agones.GameServer) {
//		// Status.State becomes Allocated with a label or annotation naming
//		// the world: load it once, however often the event repeats.
//	})
//	c.AddListValue(ctx, "players", id)       // a player joined (beta Lists)
//	c.RemoveListValue(ctx, "players", id)    // … and left
//	c.Shutdown(ctx)                           // after the final save, on SIGTERM
//
// Calls send JSON bodies and read the SDK's JSON: field names as in the SDK's
// proto files (object_meta, period_seconds), int64 values as JSON strings
// (Int64). A call the SDK server refuses is an *Error with the HTTP status and
// the server's message; one that does not reach it an *Error wrapping the
// transport's error. The SDK server answers a duplicate AddListValue and the
// RemoveListValue of an absent value with HTTP 500: this client treats both
// as success (added or removed false), which is what a host that resends
// after a reconnect wants.
//
// WatchGameServer reconnects a broken stream with backoff, and HealthPinger
// pings only while a progress counter advances, so a stalled tick loop stops
// its health pings within one period. Package agonestest has a fake SDK
// server for tests.
package agones

package session

// Handshake answers the connections whose handshake is under way now,
// between steps, instead of at the next step: it takes the connections
// accepted since, and polls those not yet admitted, so a Hello gets its
// Welcome (or Reject), a Resume its Resumed, and a WelcomeAck its admission
// as they arrive; an admitted peer's join sends its first pages at once
// (replicate.HostReplicator.StartJoin). The rules are those of a step (the
// same checks, limits and order; OnJoin runs here, and what it spawns is
// journaled into the next frame); admitted peers are not polled: what they
// send waits for the step (but what came in the same poll as a peer's
// WelcomeAck is taken then, as an admitted peer's, against the last step's
// frame), and datagrams go at the step's flush (lane messages, which the
// handshake and the join use, leave at once). A host whose loop never calls
// it answers at its steps.
//
// Call it on the simulation goroutine between steps (with the world locked
// where a lock guards it), as often as the loop likes: it costs a look at the
// pending connections. It reports whether a handshake is still under way (a
// connection taken but not admitted yet): while it is, call it again soon;
// when it is not, nothing needs it until Accept is given a connection.
func (h *Host) Handshake() (pending bool) {
	if h.shut.Load() {
		return false
	}
	now := h.cfg.Clock.Now()
	h.takeIncoming(now)
	for _, p := range h.peers {
		if p.admitted() || p.c.Closed() {
			continue
		}
		p.c.Poll()
		if p.admitted() {
			h.repl.StartJoin(p.id)
		} else if !p.c.Closed() {
			pending = true
		}
	}
	return pending || len(h.incoming) > 0
}

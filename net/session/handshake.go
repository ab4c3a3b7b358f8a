package session

// Handshake answers the connections whose handshake is under way now,
// between steps, instead of at the next step: it takes the connections
// accepted since, and polls those not yet admitted, so a Hello gets its
// Welcome (or Reject), a Resume its Resumed, and a WelcomeAck its admission
// as they arrive (past AdmitPerStep, at the next step); an admitted peer's join sends its first pages at once
// (replicate.HostReplicator.StartJoin), and more at each call as its lane
// drains, until the round is sent, with FINAL when nothing it paged changed
// since; after each step too (a step queues no more of a join's first round
// than a call does). The rules are those of a step (the same checks, limits
// and order; OnJoin runs here, and what it spawns is journaled into the next
// frame; its admissions count toward the next step's AdmitPerStep); admitted peers are not polled: what they send waits for the step
// (but what came in the same poll as a peer's WelcomeAck is taken then, as
// an admitted peer's, against the last step's frame), and datagrams go at
// the step's flush (lane messages, which the handshake and the join use,
// leave at once). A host whose loop never calls it answers at its steps.
//
// Call it on the simulation goroutine between steps (with the world locked
// where a lock guards it), as often as the loop likes: it costs a look at the
// pending connections. A Resume naming a peer whose connection the host
// has not closed is answered at the next step, which reads that connection
// first (a peer that broke the rules on it is not taken back). It reports
// whether it has more to do soon: a
// handshake under way (a connection taken but not admitted yet, its
// WelcomeAck not waiting for the next step), or a join
// whose first pages it is still queuing as the lane drains (StartJoin keeps a
// bounded amount queued, so the transport sends while the host builds the
// next ones; one whose lane has not drained for about a quarter second of
// calls, its peer not reading, waits for the next step instead). While it
// does, call it again soon; when it does not, nothing needs it until
// Accept is given a connection or the next step.
func (h *Host) Handshake() (more bool) {
	if h.shut.Load() {
		return false
	}
	now := h.cfg.Clock.Now()
	h.between = true
	defer func() { h.between = false }()
	h.takeIncoming(now)
	h.admitQueued()
	h.reap(true)
	for _, p := range h.peers {
		if p.c.Closed() {
			continue
		}
		if p.admitted() {
			if p.topUp {
				p.topUp = h.repl.StartJoin(p.id)
				more = more || p.topUp
			}
			continue
		}
		p.c.Poll()
		if p.admitted() {
			p.topUp = h.repl.StartJoin(p.id)
			more = more || p.topUp
		} else if !p.c.Closed() && !p.acked && !p.inLine {
			more = true // a handshake under way (one waiting its turn waits for a step)
		}
	}
	return more || len(h.incoming) > 0
}

// Package conn is one peer's connection: numbered datagrams with
// acknowledgements, delivery notices, RTT and loss estimates, lanes, limits
// and a bandwidth budget, over a transport.Conn.
//
// It sits between net/transport, which only carries bytes, and the layers
// that speak in messages (net/replicate, net/session). Each tick the
// simulation goroutine calls, in any order that suits it:
//
//	c.Poll()             // drain what arrived: messages, lane messages, notices
//	c.Queue(kind, p, t)  // or Begin/Commit: messages for this tick
//	c.Flush()            // send them in as few datagrams as fit, with acks
//
// Every datagram that carries messages is numbered, and the datagrams going
// the other way acknowledge it. The sender learns the fate of each numbered
// datagram exactly once, delivered or lost, through Handler.Notice, with the
// tokens of the messages it carried; the verdicts agree with what the peer
// processed by construction (see PROTOCOL.md in net/wire, "Acknowledgement
// rules").
//
// A Conn has no goroutines and reads time only from its clock.Clock.
//
// Concurrency: a Conn is not safe for concurrent use. One goroutine, the
// simulation's, calls all its methods; the Handler is called on that
// goroutine from Poll, Flush and Close.
package conn

// Package predict lets a client play its own entities without waiting for the
// host: it carries the client's inputs to the host, keeps the client's clock a
// little ahead of the host's, records what the client predicted, and
// reconciles that with the authoritative state the host sends back.
//
// It sits above net/replicate (which delivers AuthState) and below
// net/session (which owns the connections):
//
//   - Inputs. The game defines an input value I and its InputCodec. Each client
//     frame the game sets its input (Client.SetInput); the client stamps it
//     with the frame it is for and queues one KindInput datagram message
//     carrying the last Redundancy inputs, so a lost datagram loses no input.
//     On the host, HostInputs keeps a bounded buffer per peer and, once per
//     host frame, gives each peer the input stamped with that frame: exact if
//     it arrived, else the last one repeated (for MaxRepeat frames after its
//     stamp at most, then the zero input); a late input is applied at once
//     (Apply) or reported for rollback (Rollback).
//   - Views. A client draws what it does not predict behind the frame it
//     predicts; with ClientConfig.View it records, beside each input, the
//     host frame it drew then (Client.ViewAt), and each message says how
//     far behind its newest input that was. The host's PeerInputs.View is
//     the view of the input in force, at most HostInputConfig.MaxRewind
//     frames back: what a lag-compensated hit test rewinds to.
//   - Time. Input stamped F is applied at host frame F, so the client runs
//     ahead of the host by half a round trip plus a small buffer. TimeSync
//     estimates the host's frame from the host frames received and the round
//     trip, and holds the lead by dilating the client's schedule (at most
//     ±10% by default), jumping only across a large error.
//   - Prediction. After each client frame, Client records the state of every
//     entity the client owns (exact component values, by tracked component)
//     and the input of the frame, in a bounded ring.
//   - Silence. The client predicts its own entities only so far past the
//     host's last answer: once an input message (the client sends one every
//     frame, the host acknowledges each) has gone unanswered for longer
//     than a round trip and ClientConfig.HoldAfter (by default
//     DefaultHoldAfter, 250 ms, or DefaultMaxRepeat steps of a game slower
//     than 60 Hz, plus four times the measured jitter), each frame is held
//     (Client.Held): the owned entities get the zero input, not live, as
//     the host gives a player whose inputs stopped (HostInputConfig.MaxRepeat),
//     rather than running ahead of a host that may never get their inputs:
//     the host is silent, or the link is dark from the client to the host
//     only. The inputs still go out; the host's first answer ends the hold.
//   - Reconciliation. Client is the replicate.AuthHandler: on AuthState for
//     frame S it compares the host's state with the prediction for S within
//     each component's tolerance. In Correct mode (the default) a differing
//     component is corrected by its Correction: Pose and Velocity carry the
//     difference into the present through a Corrector (the physics bridge;
//     a VelocityCarrier carries a velocity's difference through the body's
//     own friction, and a knock from rest's travel into its pose, stopped
//     at a wall by a TravelClamper; a ContactClamper keeps a correction out
//     of what the body rests on, and a HostClamper on the side of a floor
//     the host's body was on), HostValue takes the host's value, and
//     so does HostOnly, for a value only the host changes, whose changes
//     are news and not counted as corrections; a Smoother (the
//     interpolation layer) hides the move. In Replay mode the client restores S and re-runs the
//     game's predicted step with the recorded inputs of every frame since.
//   - Newcomers. An owned entity the host makes while the client plays (a
//     respawned avatar) arrives as the host made it, frames behind the
//     client's present; in Replay mode Adopt and AdoptArrived replay from
//     that frame with the entity as it arrived, so it starts where the host
//     will have it; in Correct mode Adopt records its pose as it arrived in
//     the frames since, so the host's states of them correct it by what the
//     host moved it then, a state at a time.
//
// Threads: everything here runs on the simulation goroutine; nothing is safe
// for concurrent use.
//
// Errors: what a peer sends never panics the host. A malformed input message
// is refused whole with an error wrapping ErrMalformed (report it to the
// connection); inputs outside the host's window are dropped and counted
// (ErrAhead, ErrBehind). Misuse by the programmer (a component registered but
// not tracked, Replay without a step function) panics with what to fix.
package predict

package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// Reconnection, the client's side. When its connection breaks (the host
// stopped answering, the transport's idle timeout, a reset: not a close by
// either side on purpose) and the host resumes peers (the Welcome's grace
// window), the client keeps its world and state Reconnecting: it dials again
// (ClientConfig.Dial) at once, then with growing, jittered delays, for as
// long as the host's window lasts. Each new connection says Resume; the
// first answer decides. Resumed binds the peer again and the host's join
// follows, into the world the client holds (replicate.ClientReplicator
// Rejoin). RejectResume (the session is over) makes the client join afresh,
// with Hello on a new connection, into the same world. RejectFull (busy) and
// a connection that fails or does not answer are tried again. Any other
// refusal, a host that is not the one joined (transport.ErrUntrusted), one
// that answers it shuts down (CloseHostShutdown), or the window running
// out, ends the session. A first connection that breaks before the host's
// Welcome has no peer to resume: the client dials again the same way, each
// new connection saying Hello, for freshWindow (Resume, with a kept
// ticket no host answered yet, for ticketWindow: a host busy with resumes
// is asked again that long); so does one the host closes
// in its handshake as busy (CloseLimit: too many handshakes at once), after
// a pause of about firstRetry.

// Timing of reconnection.
const (
	// resumeMargin is how long past the host's grace window, counted from
	// when the client noticed the break, the client keeps trying: the host
	// may have noticed later. A resume that comes too late is refused and
	// the client joins afresh, which is what it would do anyway.
	resumeMargin = 5 * time.Second
	// freshWindow is how long a client refused a resume tries to join
	// afresh, at least, and how long one whose first connection broke
	// before the Welcome dials again.
	freshWindow = 10 * time.Second
	// answerTimeout bounds how long a new connection waits for the host's
	// answer before it is given up and another dialed.
	answerTimeout = 5 * time.Second
	// dialTimeout bounds one dial.
	dialTimeout = 5 * time.Second
	// ticketWindow is how long a client with a kept ticket dials again
	// while the host answers it is busy with resumes: the host's bound on
	// one peer's resumes refills within a minute.
	ticketWindow = 90 * time.Second
	// firstRetry and maxRetry are the first and the longest delay between
	// two dials (before jitter); each delay doubles the one before.
	firstRetry = 250 * time.Millisecond
	maxRetry   = 4 * time.Second
	// lastDialTimeout is the least time a dial is given, the one at the
	// window's end too: a dial bounded by what was left of the window
	// had no time to reach a host at all.
	lastDialTimeout = time.Second
)

// ErrHostLost is the Err of a client whose connection broke and that could
// not resume or join afresh within the host's grace window: the host is
// unreachable. It wraps the last error met.
var ErrHostLost = errors.New("session: the connection to the host broke and the host could not be reached again in time")

// reconnect is a client's reconnection state.
type reconnect struct {
	lost    time.Time // when the connection broke
	until   time.Time // the last moment to dial
	next    time.Time // the next dial
	opened  time.Time // when the connection now was opened
	attempt int       // dials since the break
	fresh   bool      // the host refused the resume: join afresh
	hello   bool      // the connection now says Hello: it reached another host than a kept ticket's
	dial    chan dialResult
	cancel  context.CancelFunc
	rng     *rand.Rand
	last    error // the last error met
	resumes int   // resumes accepted since the client started
}

// dialResult is what a dial gave.
type dialResult struct {
	tc  transport.Conn
	err error
}

// Resumes returns how many times the client resumed its peer on a new
// connection.
func (c *Client) Resumes() int { return c.re.resumes }

// ReconnectLeft returns how much of the host's grace window is left for the
// client to resume, counted from when it noticed the break (0 when the
// client is not Reconnecting). At 0 the client still tries for 5 s more
// (the host may have noticed the break later, and counts from then); a
// resume that comes too late is refused and the client joins afresh.
func (c *Client) ReconnectLeft() time.Duration {
	if c.state != Reconnecting {
		return 0
	}
	return max(0, c.re.lost.Add(c.grace()).Sub(c.cfg.Clock.Now()))
}

// open starts the session's work on the new connection tc: Hello, or Resume
// if resume is set.
func (c *Client) open(tc transport.Conn, resume bool) error {
	cc := c.cfg.Conn
	if old := c.c; old != nil && cc.InitialRTT == 0 {
		// The same host, most likely over the same path: its round trip
		// (the one it carried, if it measured none) until the new
		// connection measures its own.
		cc.InitialRTT = old.RTT()
	}
	nc, err := conn.New(tc, c.cfg.Clock, clientHandler{c}, cc)
	if err != nil {
		return err
	}
	c.c = nc
	c.bound, c.answered = false, false
	c.early, c.earlyBytes, c.earlyDatagrams = nil, 0, 0
	c.re.opened = c.cfg.Clock.Now()
	c.re.hello = false
	if resume && c.welcome.PeerID == 0 && !c.ticketFor(tc) {
		resume, c.re.hello = false, true // another host's: Hello, as a new peer
	}
	var msg []byte
	if resume {
		var flags uint8
		switch {
		case c.holds:
			flags = wire.ResumeHoldsWorld
		case c.kept:
			flags = wire.ResumeKeptTicket
		}
		t := c.resuming()
		msg = wire.Resume{Version: wire.Version, Flags: flags, PeerID: uint32(t.Peer), Token: t.Token, Schema: c.cfg.Schema}.Encode(nil)
	} else if msg, err = (wire.Hello{Version: wire.Version, Name: c.cfg.Name, Spectator: c.cfg.Spectator, Schema: c.cfg.Schema}).Encode(nil); err != nil {
		nc.Close(transport.CloseNormal, "client failed to start")
		return fmt.Errorf("session: player name %q: %w", c.cfg.Name, err)
	}
	if err := nc.SendLane(transport.LaneControl, msg); err != nil {
		nc.Close(transport.CloseNormal, "client failed to start")
		return err
	}
	return nil
}

// resuming returns the peer a Resume takes back: the Welcome's, or before
// any the kept ticket's.
func (c *Client) resuming() Ticket {
	if c.welcome.PeerID == 0 {
		return c.ticket
	}
	return Ticket{Peer: ecs.PeerID(c.welcome.PeerID), Token: c.welcome.Token}
}

// broke handles the end of the connection now: a reconnection, its next
// dial, or the end of the session.
func (c *Client) broke(now time.Time) {
	err := c.c.Err()
	switch {
	case c.err != nil || c.left:
		c.closed()
	case c.state == Reconnecting && hostShutdown(err):
		// The host answered the new connection that it shuts down: there
		// is nothing to come back to.
		c.closed()
	case c.state == Reconnecting:
		// A dial that did not lead anywhere: the next one.
		c.re.last = err
		c.schedule(now)
	case (c.state == Joining || c.state == Playing) && c.cfg.Dial != nil && c.welcome.GraceMillis > 0 && (resumable(err) || hostRestarting(err)):
		c.lose(now, err)
	case c.state == Connecting && c.cfg.Dial != nil && (resumable(err) || hostRestarting(err)):
		// Broken before the host's Welcome: no peer to resume, so a new
		// connection says Hello again (or Resume again, with the kept
		// ticket no host answered yet, for as long as a busy host is
		// asked again).
		c.startRedial(now, err, !c.kept, c.firstWindow(), 0)
	case (c.state == Connecting || c.state == Joining && !c.holds) && c.cfg.Dial != nil && hostBusy(err):
		// Closed in its handshake by a host busy with other handshakes (a
		// crowd arriving at once; a welcomed one is closed when none is
		// silent or refused, its WelcomeAck perhaps on its way): no peer
		// to resume, the world not held, so Hello again on a new
		// connection (Resume, with a kept ticket), after a pause that
		// differs from client to client.
		c.startRedial(now, err, !c.kept, c.firstWindow(), firstRetry)
	default:
		c.closed()
	}
}

// firstWindow is how long a client whose first connection broke before
// the host let it in dials again: freshWindow, or ticketWindow with a kept
// ticket no host answered yet.
func (c *Client) firstWindow() time.Duration {
	if c.kept && c.welcome.PeerID == 0 {
		return ticketWindow
	}
	return freshWindow
}

// lose starts reconnecting after the connection broke with err, to resume
// the peer within the host's grace window.
func (c *Client) lose(now time.Time, err error) {
	c.startRedial(now, err, false, c.grace()+resumeMargin, 0)
}

// grace is the host's grace window, at most maxGrace.
func (c *Client) grace() time.Duration {
	return min(time.Duration(c.welcome.GraceMillis)*time.Millisecond, maxGrace)
}

// maxGrace is the longest grace window a client takes from a host: one
// that says more (the field holds 49 days) has the client give up on
// resuming after it, rather than hold its world still and dial for as long.
const maxGrace = 10 * time.Minute

// startRedial makes the client Reconnecting after its connection broke
// with err: it dials at once (after about pause, if not 0: between half and
// one and a half times it), then again after growing delays, for window;
// each new connection says Hello if fresh, else Resume.
func (c *Client) startRedial(now time.Time, err error, fresh bool, window, pause time.Duration) {
	c.state = Reconnecting
	c.re.lost, c.re.until, c.re.next = now, now.Add(window), now
	c.re.attempt, c.re.fresh, c.re.last = 0, fresh, err
	if c.re.rng == nil {
		c.re.rng = rand.New(rand.NewPCG(uint64(c.welcome.PeerID), uint64(now.UnixNano())))
	}
	if pause > 0 {
		c.re.next = now.Add(time.Duration(float64(pause) * (0.5 + c.re.rng.Float64())))
		c.re.attempt = 1
	}
	c.emit(Event{Kind: PeerDisconnected, Peer: c.Peer(), Name: c.cfg.Name, Err: err})
	c.redial(now) // the first dial, at once unless paused
}

// schedule sets the next dial: after 0, then firstRetry doubling up to
// maxRetry, each between half and one and a half times itself, and at the
// window's end at the latest.
func (c *Client) schedule(now time.Time) {
	d := time.Duration(0)
	if c.re.attempt > 0 {
		d = min(firstRetry<<min(c.re.attempt-1, 8), maxRetry)
		d = time.Duration(float64(d) * (0.5 + c.re.rng.Float64()))
	}
	c.re.attempt++
	c.re.next = now.Add(d)
	if now.Before(c.re.until) && c.re.next.After(c.re.until) {
		// The window ends before that: its last dial is at its end, so a
		// network back within it is found (past a few seconds, the delays
		// were longer than what was left of it).
		c.re.next = c.re.until
	}
}

// redial moves the reconnection on: it takes a finished dial, starts one
// when it is due, or gives up when the window is over and its last dial
// (at its end) failed.
func (c *Client) redial(now time.Time) {
	if c.re.dial != nil {
		select {
		case r := <-c.re.dial:
			c.re.dial, c.re.cancel = nil, nil
			if errors.Is(r.err, transport.ErrUntrusted) {
				// Not the host this client joined: dialing again will
				// not help.
				c.err = fmt.Errorf("session: reconnecting: %w", r.err)
				c.closed()
				return
			}
			if r.err != nil {
				c.re.last = r.err
				c.schedule(now)
				return
			}
			if err := c.open(r.tc, !c.re.fresh); err != nil {
				r.tc.Close(transport.CloseNormal, "")
				c.re.last = err
				c.schedule(now)
			}
		default:
		}
		return
	}
	if now.After(c.re.until) && c.re.next.After(c.re.until) {
		// The window is over, its last dial made.
		c.err = fmt.Errorf("%w within %v: %w", ErrHostLost, c.re.until.Sub(c.re.lost), c.re.last)
		c.closed()
		return
	}
	if now.Before(c.re.next) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(dialTimeout, max(c.re.until.Sub(now), lastDialTimeout)))
	ch := make(chan dialResult, 1)
	c.re.dial, c.re.cancel = ch, cancel
	dial := c.cfg.Dial
	go func() {
		tc, err := dial(ctx)
		ch <- dialResult{tc, err}
	}()
}

// stopDial cancels a dial under way; a connection it still makes is closed.
func (c *Client) stopDial() {
	if c.re.dial == nil {
		return
	}
	c.re.cancel()
	ch := c.re.dial
	c.re.dial, c.re.cancel = nil, nil
	go func() {
		if r := <-ch; r.err == nil && r.tc != nil {
			r.tc.Close(transport.CloseNormal, "client left")
		}
	}()
}

// resumed takes the host's Resumed: the peer is bound to this connection;
// the join of the world follows, into the world held.
func (c *Client) resumed(msg []byte) {
	asked := c.state == Reconnecting && !c.re.fresh && !c.re.hello || c.state == Connecting && c.kept
	if !asked || c.answered {
		c.c.ReportMalformed(errUnexpected) // the first answer was the answer
		return
	}
	t := c.resuming()
	var m wire.Resumed
	err := m.Decode(msg)
	if err == nil && m.PeerID != uint32(t.Peer) {
		err = fmt.Errorf("it names peer %d, this client is peer %d", m.PeerID, t.Peer)
	}
	if err == nil {
		err = given(m.PeerID, m.Frame)
	}
	if err != nil {
		c.fail(fmt.Errorf("session: malformed Resumed: %w", err), transport.CloseProtocol, "malformed Resumed")
		return
	}
	c.bound, c.answered = true, true
	if m.Token != t.Token {
		// A kept ticket's new token: acknowledged, the host lets the old
		// one go (one lost on the way, the next resume says the old one).
		if err := c.c.SendLane(transport.LaneControl, wire.WelcomeAck{PeerID: m.PeerID, Token: m.Token}.Encode(nil)); err != nil && !c.c.Closed() {
			c.fail(fmt.Errorf("session: answering the Resumed: %w", err), transport.CloseNormal, "")
			return
		}
	}
	c.welcome.PeerID, c.welcome.Token = uint32(t.Peer), m.Token // a kept ticket's is new
	c.host = transport.IdentityOf(c.c.Transport())
	c.welcome.TickRate, c.welcome.SendRate, c.welcome.GraceMillis = m.TickRate, m.SendRate, m.GraceMillis
	c.welcome.Frame = m.Frame
	c.ticket = Ticket{}
	if c.repl == nil {
		c.startReplicator() // a kept ticket's first answer
	} else {
		c.repl.Rejoin(c.Peer(), float64(m.TickRate), c.keptBelow(&m.Runs))
	}
	c.holdRuns(&m.Runs)
	c.w.SetFrame(ecs.Frame(m.Frame))
	c.state = Joining
	c.re.resumes++
	c.emit(Event{Kind: PeerResumed, Peer: c.Peer(), Name: c.cfg.Name, Frame: ecs.Frame(m.Frame)})
	c.applyEarly()
}

// refused takes the host's Reject of this connection.
func (c *Client) refused(rj *RejectError) {
	if c.state == Connecting && c.kept && (rj.Code == wire.RejectResume || rj.Code == wire.RejectFull) && c.cfg.Dial != nil {
		// The kept ticket's peer is over (join afresh), or the host is
		// busy with resumes (try again): as a reconnecting client does.
		now := c.cfg.Clock.Now()
		c.state = Reconnecting
		c.re.lost, c.re.until, c.re.next, c.re.attempt = now, now.Add(ticketWindow), now, 0
		if c.re.rng == nil {
			c.re.rng = rand.New(rand.NewPCG(uint64(c.ticket.Peer), uint64(now.UnixNano())))
		}
	}
	if c.state != Reconnecting {
		c.fail(rj, transport.CloseNormal, "refused: "+rj.Code.String())
		return
	}
	switch rj.Code {
	case wire.RejectResume:
		if c.re.fresh || c.re.hello {
			break // a Hello refused with it: the host breaks the protocol
		}
		// The session is over: join afresh, at once, as a new peer.
		c.emit(Event{Kind: PeerRejected, Peer: c.resuming().Peer, Name: c.cfg.Name, Err: rj})
		c.re.fresh, c.re.attempt = true, 0
		c.kept, c.ticket = false, Ticket{}
		c.re.until = later(c.re.until, c.cfg.Clock.Now().Add(freshWindow))
		c.c.Close(transport.CloseNormal, "resume refused; joining afresh")
		return
	case wire.RejectFull:
		// Busy, or the address is full for now: try again.
		c.c.Close(transport.CloseNormal, "refused: "+rj.Code.String())
		return
	}
	c.fail(rj, transport.CloseNormal, "refused: "+rj.Code.String())
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// ClientConfig tunes a Client. Zero fields take the defaults noted.
type ClientConfig struct {
	// Name is the player's name sent in Hello: 1 to wire.MaxNameLen bytes
	// of printable UTF-8 (wire.CheckName); NewClient refuses others.
	Name string
	// Spectator asks the host to let this client watch: no player slot,
	// nothing owned, its inputs and commands refused.
	Spectator bool
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// Conn tunes the connection (limits). Its join-lane rate limit is off
	// unless set: the host's join comes as fast as the link carries it.
	Conn conn.Config
	// Replication tunes the client replicator; its Local is set from the
	// host's Welcome, its Clock (when nil) is Clock.
	Replication replicate.ClientConfig
	// Schema is the hash of what the game puts on the wire
	// (tandem.Game.Schema), said in the Hello and every Resume; a host with
	// another refuses the client (RejectSchema). 0: none stated.
	Schema uint64
	// OnMessage receives the host's datagram messages of the game's own
	// kinds (0x40–0x7f); payload is valid only during the call. One of
	// another kind the session does not handle, or of these without
	// OnMessage, counts as malformed against the connection.
	OnMessage func(kind wire.Kind, payload []byte)
	// OnLaneMessage receives the host's receipts (wire.KindReceipt) and lane
	// messages of the game's own kinds (0xc0–0xff). One of another kind the
	// session does not handle, or of these without OnLaneMessage, counts as
	// malformed against the connection.
	OnLaneMessage func(lane transport.Lane, msg []byte)
	// OnEvent, if set, receives every event as it happens.
	OnEvent func(Event)
	// Dial, if set, opens a new connection to the same host (a new QUIC
	// dial): with it the client reconnects by itself when its connection
	// breaks and resumes its peer (see Reconnecting); a first connection
	// that breaks before the host's Welcome, or that a host busy with other
	// handshakes closes in its handshake (transport.CloseLimit, its reason
	// beginning "host busy: "), is dialed again too, saying Hello, for 10 s
	// (Resume, with a kept Ticket no host answered yet, for 90 s).
	// It runs on a goroutine of its own, one at a time, and should return
	// when ctx ends. Nil: a broken connection ends the session.
	Dial func(ctx context.Context) (transport.Conn, error)
	// AckTimeout closes the connection as broken when a datagram sent to the
	// host has been neither acknowledged nor reported lost for this long (the
	// host stopped answering; the transport's idle timeout may notice
	// first). Default 5 s.
	AckTimeout time.Duration
	// Ticket, if not zero, is a ticket a client of an earlier process kept
	// (Client.Ticket): the client takes that peer back, its first
	// connection saying Resume (wire.ResumeKeptTicket) in place of Hello,
	// and the host joins it to the whole world as the peer it was, with its
	// slot, its name and its entities (PeerResumed, not PeerJoined). A host
	// that has no such peer any more refuses it (RejectResume): with Dial
	// the client then joins afresh as a new peer (PeerRejected first,
	// carrying the refusal), without it the session ends with that
	// *RejectError; a host busy with resumes (RejectFull) is tried again,
	// with Dial, for 90 s. NewClient refuses a ticket of the other role
	// (ErrTicketRole) or another host's (ErrTicketHost: tc's identity
	// differs); a redial that reaches another host joins afresh without
	// sending it (PeerRejected with ErrTicketHost).
	Ticket Ticket
}

// ClientState is where a client is in its session.
type ClientState uint8

const (
	// Connecting: Hello sent, no answer yet.
	Connecting ClientState = iota
	// Joining: admitted; the world is arriving.
	Joining
	// Playing: the join finished; the world is current, but for the
	// entities this client predicts after a resume: those the resume left
	// as they were (a predicted entity is not set back to the host's frame),
	// and the host's first AuthState after it, a step or two later, brings
	// them current (a HUD that reads the player's own values at PeerReady
	// reads them a moment after).
	Playing
	// Closed: the connection closed; Err says why.
	Closed
	// Reconnecting: the connection broke; the client dials the host again
	// (ClientConfig.Dial) to resume its peer, for as long as the host's grace
	// window lasts. The world is the one held when the connection broke. A
	// connection that broke before the Welcome is dialed again to say Hello
	// (Peer is 0 until a Welcome comes).
	Reconnecting
)

// String returns the state's name.
func (s ClientState) String() string {
	switch s {
	case Connecting:
		return "connecting"
	case Joining:
		return "joining"
	case Playing:
		return "playing"
	case Closed:
		return "closed"
	case Reconnecting:
		return "reconnecting"
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// ErrEarlyJoin: the host sent more join-lane messages before its Welcome
// than a client holds for it (64 messages, 4 MiB), or more State datagrams
// before its Welcome or Resumed (128). A host that follows the protocol
// sends none of the first (the join begins after the WelcomeAck), and a
// State overtakes its Resumed only while a lost stream frame is sent
// again.
var ErrEarlyJoin = errors.New("session: the host sent more before its Welcome or Resumed (join messages, or States) than a client holds; the host breaks the handshake")

// What a client holds of the join lane before the Welcome (a host that
// follows the protocol sends nothing there before it), and of the State
// datagrams that overtook a Resumed sent again after a loss (about four
// seconds of them at 30 a second).
const (
	maxEarlyMessages  = 64
	maxEarlyDatagrams = 128
	maxEarlyBytes     = 4 << 20
)

// ClientStats counts what a Client held and refused on its way in.
type ClientStats struct {
	// HeldBeforeWelcome counts join-lane messages that arrived before the
	// Welcome (or Resumed) and were applied after it.
	HeldBeforeWelcome uint64
	// DatagramsBeforeWelcome counts datagram messages (States) that
	// arrived before the Welcome or Resumed, overtaking it, and were
	// applied after it: the connection had acknowledged them, and the
	// host would not send their spawns again.
	DatagramsBeforeWelcome uint64
}

// Client is the client side of a session: it says Hello, takes the host's
// Welcome with a WelcomeAck, applies the join and the state that follows.
// Create it with NewClient; its systems go to the schedule's input and
// output stages. A refusal closes it with a *RejectError (ErrRejected), a
// join that ended without the whole world with a
// replicate.JoinIncompleteError: Err says which.
//
// Methods must be called on the simulation goroutine.
type Client struct {
	w       *ecs.World
	sched   *ecs.Schedule
	reg     *replicate.Registry
	cfg     ClientConfig
	c       *conn.Conn
	repl    *replicate.ClientReplicator
	state   ClientState
	welcome wire.Welcome
	err     error
	events  []Event
	stats   ClientStats

	// Join-lane messages and datagram messages that came before the
	// Welcome (or Resumed), held for after it, in the order they came.
	early          []heldMessage
	earlyBytes     int
	earlyDatagrams int

	// The connection now: whether the host bound this client on it (its
	// Welcome or Resumed came), and whether its answer came (a Resumed, a
	// Reject, or the join beginning): the first answer is the answer.
	bound, answered bool

	re   reconnect // the reconnection of a broken connection (reconnect.go)
	left bool      // Close was called
	// holds: a join of this peer finished, so the client holds the whole
	// world (perhaps stale, while a rejoin after a resume runs).
	holds bool
	// runs is the lineage of the world the client holds, as the host's
	// answer named it (Welcome, Resumed); empty before the first answer.
	runs []ecs.RunStart
	// ticket is the kept ticket (ClientConfig.Ticket) while no host
	// answered it; kept, that the peer is one a kept ticket took back, its
	// join not finished on this client (its Resumes say ResumeKeptTicket).
	ticket Ticket
	kept   bool
	// host is the identity of the host that admitted the client
	// (transport.IdentityOf its connection): its Ticket's.
	host string
}

// NewClient starts a session over tc, an established connection to a host,
// for sched's world replicating reg's components. It sends Hello (or, with
// a Ticket, Resume) at once and
// adds "net.receive" to ecs.StageInput and "net.send" to ecs.StageOutput.
func NewClient(sched *ecs.Schedule, reg *replicate.Registry, tc transport.Conn, cfg ClientConfig) (*Client, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if err := wire.CheckName(cfg.Name); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if r := &cfg.Conn.LaneRates[transport.LaneJoin]; *r == (conn.LaneRate{}) {
		*r = conn.LaneRate{MessagesPerSecond: -1, BytesPerSecond: -1}
	}
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = 5 * time.Second
	}
	if t := cfg.Ticket; !t.IsZero() {
		switch {
		case t.Spectator != cfg.Spectator:
			return nil, ErrTicketRole
		case t.Host != transport.IdentityOf(tc):
			return nil, ErrTicketHost
		}
	}
	cl := &Client{w: sched.World(), sched: sched, reg: reg, cfg: cfg}
	cl.ticket, cl.kept = cfg.Ticket, !cfg.Ticket.IsZero()
	if err := cl.open(tc, cl.kept); err != nil {
		return nil, err
	}
	sched.AddTo(ecs.StageInput, "net.receive", ecs.SystemFunc(cl.receive))
	sched.AddTo(ecs.StageOutput, "net.send", ecs.SystemFunc(cl.send))
	return cl, nil
}

// State returns where the client is in its session.
func (c *Client) State() ClientState { return c.state }

// Err returns why the session closed, or nil: a *RejectError when the host
// refused this client, a replicate.JoinIncompleteError when the join ended
// without the whole world, else the connection's error (a
// *transport.CloseError for a close by either side).
func (c *Client) Err() error { return c.err }

// Stats returns the client's counters.
func (c *Client) Stats() ClientStats { return c.stats }

// Peer returns the peer id the host gave this client (0 before Welcome).
func (c *Client) Peer() ecs.PeerID { return ecs.PeerID(c.welcome.PeerID) }

// Welcome returns the host's Welcome (zero before it arrived).
func (c *Client) Welcome() wire.Welcome { return c.welcome }

// Replicator returns the client replicator (nil before Welcome).
func (c *Client) Replicator() *replicate.ClientReplicator { return c.repl }

// Conn returns the client's connection now, for stats and the game's own
// messages. A client that reconnected has a new one: ask again rather than
// keep it.
func (c *Client) Conn() *conn.Conn { return c.c }

// Progress returns the join's progress: entities received and the total
// the join brings (the entities in the client's scope on the host); 0, 0
// until the join's first page arrives.
func (c *Client) Progress() (received, total int) {
	if c.repl == nil {
		return 0, 0
	}
	return c.repl.Progress()
}

// Events returns the events since the last call and forgets them.
func (c *Client) Events() []Event {
	ev := c.events
	c.events = c.events[:0]
	return ev
}

func (c *Client) emit(e Event) {
	if len(c.events) < 1024 {
		c.events = append(c.events, e)
	}
	if c.cfg.OnEvent != nil {
		c.cfg.OnEvent(e)
	}
}

// Close closes the connection with CloseNormal (the host ends the peer at
// once: it does not wait for a resume), and stops reconnecting.
func (c *Client) Close() error {
	c.left = true
	c.stopDial()
	if c.state == Reconnecting && c.err == nil {
		// The connection broke before: this is the leave.
		c.err = &transport.CloseError{Code: transport.CloseNormal, Reason: "client left"}
	}
	err := c.c.Close(transport.CloseNormal, "client left")
	c.closed()
	return err
}

// GiveUp closes the connection with CloseTimeout and reason, and stops
// reconnecting: the client stopped waiting for the host (a join that did not
// finish in time). The host drops the peer, which held no world to come
// back to, and PeerLeft here carries the reason.
func (c *Client) GiveUp(reason string) error {
	c.left = true
	c.stopDial()
	if c.state == Reconnecting && c.err == nil {
		// The connection broke before: this is the end.
		c.err = &transport.CloseError{Code: transport.CloseTimeout, Reason: reason}
	}
	err := c.c.Close(transport.CloseTimeout, reason)
	c.closed()
	return err
}

func (c *Client) closed() {
	if c.state == Closed {
		return
	}
	c.state = Closed
	if c.err == nil {
		c.err = c.c.Err()
	}
	c.emit(Event{Kind: PeerLeft, Peer: c.Peer(), Name: c.cfg.Name, Err: c.err})
}

func (c *Client) receive(w *ecs.World) {
	if c.state == Closed {
		return
	}
	now := c.cfg.Clock.Now()
	if c.state == Reconnecting && c.c.Closed() {
		c.redial(now)
		if c.state != Reconnecting || c.c.Closed() {
			return
		}
	}
	if c.state == Playing {
		// What the host removed and the interpolator drew to its removal
		// goes now (replicate.DrawnObserver).
		c.repl.Depart()
	}
	c.c.Poll()
	if !c.c.Closed() {
		c.checkAlive(now)
	}
	if c.c.Closed() {
		c.broke(now)
		return
	}
	if c.state == Joining {
		// The join's pages are applied a slice a frame (ClientConfig's
		// Replication.JoinSlice), so no frame stalls on a large world.
		c.joinError(c.repl.Pump())
		if c.state == Closed {
			return
		}
	}
	if c.state == Joining && c.repl.Joined() {
		c.state = Playing
		if c.cfg.Conn.KeepAlive == 0 && c.cfg.Spectator {
			// Playing, a spectator, which sends no input, still measures
			// its round trip: a probe each quarter second, so that over a
			// lossy link one completes long before AckTimeout (one a
			// second left a probe unsettled past 5 s at 20% loss).
			c.c.SetKeepAlive(time.Second / 4)
		}
		c.answered, c.holds, c.kept = true, true, false
		c.emit(Event{Kind: PeerReady, Peer: c.Peer(), Name: c.cfg.Name})
	}
}

func (c *Client) send(w *ecs.World) {
	if c.state == Closed || c.c.Closed() {
		return
	}
	c.c.Flush()
	if c.c.Closed() {
		c.broke(c.cfg.Clock.Now())
	}
}

// Poll does the session's work of one step without a step: it takes what
// the connection brought, reconnects, and sends. A game whose world is held
// still while Holding reports true calls it instead of stepping.
func (c *Client) Poll() {
	c.receive(c.w)
	c.send(c.w)
}

// Holding reports whether the world is to be held still, not simulated: the
// connection broke and the client is reconnecting (Reconnecting), or the
// host is joining it again into the world it holds (after a resume, or a
// fresh join after a refused one) and the join has not finished. Step the
// schedule only when it reports false; call Poll meanwhile.
func (c *Client) Holding() bool {
	return c.state == Reconnecting || (c.state == Joining && c.repl != nil && c.repl.Rejoining())
}

// checkAlive closes a connection whose host stopped answering.
func (c *Client) checkAlive(now time.Time) {
	if sent, ok := c.c.OldestInFlight(); ok && now.Sub(sent) > c.cfg.AckTimeout {
		c.c.Close(transport.CloseTimeout, fmt.Sprintf("the host left a datagram unacknowledged for %v", c.cfg.AckTimeout))
		return
	}
	if c.state == Reconnecting && !c.answered && now.Sub(c.re.opened) > answerTimeout {
		c.c.Close(transport.CloseTimeout, fmt.Sprintf("no answer from the host in %v", answerTimeout))
	}
}

// clientHandler is the Client's conn.Handler, kept off the Client's own
// methods.
type clientHandler struct{ c *Client }

// Message implements conn.Handler.
func (h clientHandler) Message(kind wire.Kind, payload []byte) {
	c := h.c
	if !c.bound {
		// A State that overtook the Welcome or Resumed (a lost stream frame
		// sent again): the connection acknowledged it, so it is held.
		c.holdEarlyDatagram(kind, payload)
		return
	}
	if c.repl != nil {
		if ok, err := c.repl.HandleDatagram(kind, payload); ok {
			c.joinError(err)
			return
		}
	}
	if !gameDatagram(kind) || c.cfg.OnMessage == nil {
		c.c.ReportMalformed(errNoTaker)
		return
	}
	c.cfg.OnMessage(kind, payload)
}

// LaneMessage implements conn.Handler.
func (h clientHandler) LaneMessage(lane transport.Lane, msg []byte) { h.c.laneMessage(lane, msg) }

// Notice implements conn.Handler: the client tracks no tokens.
func (clientHandler) Notice(conn.Notice) {}

func (c *Client) laneMessage(lane transport.Lane, msg []byte) {
	if c.state == Closed || c.c.Closed() {
		return
	}
	kind, err := wire.MessageKind(msg)
	if err != nil {
		c.c.ReportMalformed(err)
		return
	}
	switch kind {
	case wire.KindWelcome:
		c.welcomed(msg)
		return
	case wire.KindResumed:
		c.resumed(msg)
		return
	case wire.KindReject:
		if c.answered {
			c.c.ReportMalformed(errUnexpected) // the first answer was the answer
			return
		}
		c.answered = true
		var r wire.Reject
		if err := r.Decode(msg); err != nil {
			c.fail(fmt.Errorf("%w (its Reject did not decode: %v)", ErrRejected, err), transport.CloseProtocol, "malformed Reject")
			return
		}
		c.refused(&RejectError{Code: r.Code, Version: r.Version, Reason: r.Reason})
		return
	case wire.KindJoinPage, wire.KindJoinFinal:
		if !c.bound {
			c.holdEarly(msg)
			return
		}
		c.answered = true
	}
	if c.bound && c.repl != nil {
		if ok, err := c.repl.HandleLane(msg); ok {
			c.joinError(err)
			return
		}
	}
	if (kind != wire.KindReceipt && !gameLane(kind)) || c.cfg.OnLaneMessage == nil {
		c.c.ReportMalformed(errNoTaker)
		return
	}
	c.cfg.OnLaneMessage(lane, msg)
}

// welcomed takes the host's Welcome: it answers with a WelcomeAck, starts
// the replicator (or, for a fresh join of a client that held a world, a
// rejoin into it) and applies what of the join came before the Welcome.
func (c *Client) welcomed(msg []byte) {
	fresh := c.state == Reconnecting && (c.re.fresh || c.re.hello)
	if c.bound || (c.state != Connecting && !fresh) {
		c.c.ReportMalformed(errUnexpected)
		return
	}
	var wl wire.Welcome
	err := wl.Decode(msg)
	if err == nil {
		err = given(wl.PeerID, wl.Frame)
	}
	if err != nil {
		c.fail(fmt.Errorf("session: malformed Welcome: %w", err), transport.CloseProtocol, "malformed Welcome")
		return
	}
	c.welcome = wl
	c.host = transport.IdentityOf(c.c.Transport())
	c.kept, c.ticket = false, Ticket{} // a new peer: a kept ticket is let go
	c.holds = false                    // a new peer: its join has to finish first
	ack := wire.WelcomeAck{PeerID: c.welcome.PeerID, Token: c.welcome.Token}
	if err := c.c.SendLane(transport.LaneControl, ack.Encode(nil)); err != nil {
		if c.c.Closed() {
			return // the step's end of the connection decides (broke): a busy host's is dialed again
		}
		c.fail(fmt.Errorf("session: answering the Welcome: %w", err), transport.CloseNormal, "")
		return
	}
	if c.repl == nil {
		c.startReplicator()
	} else {
		c.repl.Rejoin(c.Peer(), float64(c.welcome.TickRate), c.keptBelow(&wl.Runs))
	}
	c.holdRuns(&wl.Runs)
	c.w.SetFrame(ecs.Frame(c.welcome.Frame))
	c.bound = true
	c.state = Joining
	c.emit(Event{Kind: PeerJoined, Peer: c.Peer(), Name: c.cfg.Name})
	c.applyEarly()
}

// keptBelow returns the first network id whose entities the client drops
// as it rejoins the host's run of its world, of lineage now (Welcome,
// Resumed): 0, keeping all, in the run the client held (a cut); the lower
// of the first fresh ids the two sides gave after the newest run both
// lineages name (a host restarted or killed and restored from a save,
// whose ids past it may name other entities); 1, dropping all, when they
// name none in common (ecs.KeptBelow).
func (c *Client) keptBelow(now *wire.Lineage) ecs.NetID {
	var buf [wire.MaxLineage]ecs.RunStart
	return ecs.KeptBelow(c.runs, lineageOf(buf[:0], now))
}

// holdRuns keeps lineage l as that of the world the client holds.
func (c *Client) holdRuns(l *wire.Lineage) { c.runs = lineageOf(c.runs[:0], l) }

// lineageOf appends the runs of wire lineage l to dst, as the world's.
func lineageOf(dst []ecs.RunStart, l *wire.Lineage) []ecs.RunStart {
	for _, run := range l.Slice() {
		dst = append(dst, ecs.RunStart{Run: run.Run, Fresh: ecs.NetID(run.Fresh)})
	}
	return dst
}

// startReplicator makes the client's replicator, for the peer and tick rate
// the host's first answer gave.
func (c *Client) startReplicator() {
	rc := c.cfg.Replication
	rc.Local = c.Peer()
	rc.StepRate = float64(c.welcome.TickRate)
	if rc.Clock == nil {
		rc.Clock = c.cfg.Clock // the join's slices are timed by the session's clock
	}
	c.repl = replicate.NewClient(c.reg, rc)
}

// given checks what a Welcome or Resumed gives this client: a peer id a host
// gives a client (1 to the largest ecs.PeerID: 0 is the host's own) and a
// frame an ecs.Frame holds. The wire carries wider fields than either.
func given(peer uint32, frame uint64) error {
	if peer == uint32(ecs.HostPeer) || peer > uint32(^ecs.PeerID(0)) {
		return fmt.Errorf("peer id %d is not one a host gives a client (1 to %d)", peer, ^ecs.PeerID(0))
	}
	if frame > uint64(^ecs.Frame(0)) {
		return fmt.Errorf("frame %d is past the largest frame, %d", frame, ^ecs.Frame(0))
	}
	return nil
}

// applyEarly applies the join-lane and datagram messages held until the
// connection was bound, in the order they came, until one ends the
// session.
func (c *Client) applyEarly() {
	early := c.early
	c.early, c.earlyBytes, c.earlyDatagrams = nil, 0, 0
	for _, m := range early {
		if c.state == Closed || c.c.Closed() {
			return
		}
		if m.datagram {
			clientHandler{c}.Message(m.kind, m.msg)
		} else {
			c.laneMessage(transport.LaneJoin, m.msg)
		}
	}
}

// heldMessage is a message held until the connection is bound: a
// join-lane message, or a datagram message of kind.
type heldMessage struct {
	datagram bool
	kind     wire.Kind
	msg      []byte
}

// holdEarlyDatagram keeps a copy of a datagram message that came before
// the Welcome or Resumed, within maxEarlyDatagrams and maxEarlyBytes; past
// them the session fails (ErrEarlyJoin) rather than lose it. One that comes
// once the session ended, or with no host answer to wait for, goes.
func (c *Client) holdEarlyDatagram(kind wire.Kind, payload []byte) {
	if c.state == Closed || c.c.Closed() {
		return
	}
	if c.earlyDatagrams >= maxEarlyDatagrams || c.earlyBytes+len(payload) > maxEarlyBytes {
		c.fail(ErrEarlyJoin, transport.CloseProtocol, "state before Welcome")
		return
	}
	c.early = append(c.early, heldMessage{datagram: true, kind: kind, msg: append([]byte(nil), payload...)})
	c.earlyBytes += len(payload)
	c.earlyDatagrams++
	c.stats.DatagramsBeforeWelcome++
}

// holdEarly keeps a copy of a join-lane message that came before the
// Welcome, within maxEarlyMessages and maxEarlyBytes; past them the join
// fails (ErrEarlyJoin) rather than lose it.
func (c *Client) holdEarly(msg []byte) {
	if len(c.early)-c.earlyDatagrams >= maxEarlyMessages || c.earlyBytes+len(msg) > maxEarlyBytes {
		c.fail(ErrEarlyJoin, transport.CloseProtocol, "join before Welcome")
		return
	}
	c.early = append(c.early, heldMessage{msg: append([]byte(nil), msg...)})
	c.earlyBytes += len(msg)
	c.stats.HeldBeforeWelcome++
}

// fail ends the session with err as Err, closing the connection with code
// and reason.
func (c *Client) fail(err error, code transport.CloseCode, reason string) {
	if c.err == nil {
		c.err = err
	}
	c.c.Close(code, reason)
}

// joinError takes what the replicator refused: it ends the session on a
// join that did not bring the host's world, or on more entities than the
// client holds (ClientConfig.Replication.MaxEntities), and counts a
// malformed message otherwise.
func (c *Client) joinError(err error) {
	switch {
	case err == nil:
	case errors.Is(err, replicate.ErrJoinIncomplete):
		c.fail(fmt.Errorf("session: %w", err), transport.CloseProtocol, "join incomplete")
	case errors.Is(err, replicate.ErrTooManyEntities):
		c.fail(fmt.Errorf("session: %w", err), transport.CloseLimit, "too many entities for this client")
	default:
		c.c.ReportMalformed(err)
	}
}

package session

import (
	"errors"
	"fmt"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// ClientConfig tunes a Client. Zero fields take the defaults noted.
type ClientConfig struct {
	// Name is the player's name sent in Hello (at most wire.MaxNameLen bytes).
	Name string
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// Conn tunes the connection (limits).
	Conn conn.Config
	// Replication tunes the client replicator; its Local is set from the
	// host's Welcome.
	Replication replicate.ClientConfig
	// OnMessage receives datagram messages of kinds the session does not
	// handle (the game's own kinds). payload is valid only during the call.
	OnMessage func(kind wire.Kind, payload []byte)
	// OnLaneMessage receives lane messages the session does not handle.
	OnLaneMessage func(lane transport.Lane, msg []byte)
	// OnEvent, if set, receives every event as it happens.
	OnEvent func(Event)
}

// ClientState is where a client is in its session.
type ClientState uint8

const (
	// Connecting: Hello sent, no answer yet.
	Connecting ClientState = iota
	// Joining: admitted; the world is arriving.
	Joining
	// Playing: the join finished; the world is current.
	Playing
	// Closed: the connection closed; Err says why.
	Closed
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
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// ErrRejected is returned (wrapped with the host's reason) when the host
// refused this client at the handshake.
var ErrRejected = errors.New("session: the host refused this client")

// Client is the client side of a session: it says hello, applies the join and
// the state that follows. Create it with NewClient; its systems go to the
// schedule's input and output stages.
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
}

// NewClient starts a session over tc, an established connection to a host,
// for sched's world replicating reg's components. It sends Hello at once and
// adds "net.receive" to ecs.StageInput and "net.send" to ecs.StageOutput.
func NewClient(sched *ecs.Schedule, reg *replicate.Registry, tc transport.Conn, cfg ClientConfig) (*Client, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	cl := &Client{w: sched.World(), sched: sched, reg: reg, cfg: cfg}
	c, err := conn.New(tc, cfg.Clock, cl, cfg.Conn)
	if err != nil {
		return nil, err
	}
	cl.c = c
	hello, err := wire.Hello{Version: wire.Version, Name: cfg.Name}.Encode(nil)
	if err != nil {
		return nil, fmt.Errorf("session: player name %q: %w", cfg.Name, err)
	}
	if err := c.SendLane(transport.LaneControl, hello); err != nil {
		return nil, err
	}
	sched.AddTo(ecs.StageInput, "net.receive", ecs.SystemFunc(cl.receive))
	sched.AddTo(ecs.StageOutput, "net.send", ecs.SystemFunc(cl.send))
	return cl, nil
}

// State returns where the client is in its session.
func (c *Client) State() ClientState { return c.state }

// Err returns why the session closed, or nil.
func (c *Client) Err() error { return c.err }

// Peer returns the peer id the host gave this client (0 before Welcome).
func (c *Client) Peer() ecs.PeerID { return ecs.PeerID(c.welcome.PeerID) }

// Welcome returns the host's Welcome (zero before it arrived).
func (c *Client) Welcome() wire.Welcome { return c.welcome }

// Replicator returns the client replicator (nil before Welcome).
func (c *Client) Replicator() *replicate.ClientReplicator { return c.repl }

// Conn returns the client's connection, for stats and the game's own
// messages.
func (c *Client) Conn() *conn.Conn { return c.c }

// Progress returns the join's progress: entities received and the host's
// total.
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

// Close closes the connection with CloseNormal.
func (c *Client) Close() error {
	err := c.c.Close(transport.CloseNormal, "client left")
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
	c.c.Poll()
	if c.c.Closed() {
		c.closed()
		return
	}
	if c.state == Joining && c.repl.Joined() {
		c.state = Playing
		c.emit(Event{Kind: PeerReady, Peer: c.Peer(), Name: c.cfg.Name})
	}
}

func (c *Client) send(w *ecs.World) {
	if c.state == Closed {
		return
	}
	c.c.Flush()
	if c.c.Closed() {
		c.closed()
	}
}

// Message implements conn.Handler.
func (c *Client) Message(kind wire.Kind, payload []byte) {
	if c.repl != nil {
		if ok, err := c.repl.HandleDatagram(kind, payload); ok {
			if err != nil {
				c.c.ReportMalformed(err)
			}
			return
		}
	}
	if c.cfg.OnMessage != nil {
		c.cfg.OnMessage(kind, payload)
	}
}

// LaneMessage implements conn.Handler.
func (c *Client) LaneMessage(lane transport.Lane, msg []byte) {
	kind, err := wire.MessageKind(msg)
	if err != nil {
		c.c.ReportMalformed(err)
		return
	}
	switch kind {
	case wire.KindWelcome:
		if c.state != Connecting {
			c.c.ReportMalformed(errUnexpected)
			return
		}
		if err := c.welcome.Decode(msg); err != nil {
			c.err = fmt.Errorf("session: malformed Welcome: %w", err)
			c.c.Close(transport.CloseProtocol, "malformed Welcome")
			return
		}
		rc := c.cfg.Replication
		rc.Local = c.Peer()
		c.repl = replicate.NewClient(c.reg, rc)
		c.w.SetFrame(ecs.Frame(c.welcome.Frame))
		c.state = Joining
		c.emit(Event{Kind: PeerJoined, Peer: c.Peer(), Name: c.cfg.Name})
		return
	case wire.KindReject:
		var r wire.Reject
		if err := r.Decode(msg); err != nil {
			c.err = fmt.Errorf("%w (malformed Reject)", ErrRejected)
		} else {
			c.err = fmt.Errorf("%w: %s: %s", ErrRejected, r.Code, r.Reason)
		}
		c.c.Close(transport.CloseNormal, "rejected")
		return
	}
	if c.repl != nil {
		if ok, err := c.repl.HandleLane(msg); ok {
			if err != nil {
				c.c.ReportMalformed(err)
			}
			return
		}
	}
	if c.cfg.OnLaneMessage != nil {
		c.cfg.OnLaneMessage(lane, msg)
	}
}

// Notice implements conn.Handler: the client tracks no tokens.
func (c *Client) Notice(conn.Notice) {}

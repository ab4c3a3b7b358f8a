package session

import (
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// A kept ticket: the peer id and token of a client's Welcome, which a game
// keeps past the client's process so that a new one takes the player's
// place back (ClientConfig.Ticket): its first connection says Resume with
// wire.ResumeKeptTicket in place of Hello, and the host joins it to the
// whole world as the peer it was. A ticket goes only to the host that gave
// it (the identity its connection showed, transport.Identified), and only
// for the same role (player or spectator).

// Ticket is what takes a player's place back on the host it joined: the
// peer id and session token of the client's Welcome, whether it watched,
// and the host's identity. It is as secret as a password (whoever holds it
// is that player while the host keeps the peer): keep it where the
// player's settings are, readable by the player alone. Its String,
// GoString and LogValue leave the token out; its text form (MarshalText)
// holds it. A client resumed with a kept ticket is given a new token (its
// Resumed): keep the ticket Client.Ticket gives then. The zero Ticket is
// none.
type Ticket struct {
	Peer  ecs.PeerID
	Token [wire.TokenLen]byte
	// Spectator is set for a spectator's ticket: a client takes back the
	// peer of a ticket of its own role only.
	Spectator bool
	// Host is the identity of the host that gave it
	// (transport.Identified: quicnet's certificate fingerprint), "" for a
	// transport that has none. A client sends the ticket only to a host
	// of that identity.
	Host string
}

// ErrTicket is wrapped by UnmarshalText's error for text that is not a
// ticket.
var ErrTicket = errors.New("session: not a ticket (want peer:token[:spectator][@host], the token 32 hex digits); join without it")

// IsZero reports whether t is no ticket.
func (t Ticket) IsZero() bool { return t.Peer == 0 }

// String says whose ticket t is, without its token.
func (t Ticket) String() string {
	if t.IsZero() {
		return "no ticket"
	}
	role := "player"
	if t.Spectator {
		role = "spectator"
	}
	return fmt.Sprintf("ticket of %s %d (token withheld)", role, t.Peer)
}

// LogValue is String, for log/slog: a logged ticket shows no token.
func (t Ticket) LogValue() slog.Value { return slog.StringValue(t.String()) }

// GoString is String, for %#v: a printed ticket shows no token.
func (t Ticket) GoString() string { return t.String() }

// MarshalText returns the ticket as text a game keeps in its settings:
// "peer:token", the token in hex, then ":spectator" for a spectator's and
// "@" and the host's identity when it has one.
func (t Ticket) MarshalText() ([]byte, error) {
	b := strconv.AppendUint(nil, uint64(t.Peer), 10)
	b = append(b, ':')
	b = hex.AppendEncode(b, t.Token[:])
	if t.Spectator {
		b = append(b, ":spectator"...)
	}
	if t.Host != "" {
		b = append(b, '@')
		b = append(b, t.Host...)
	}
	return b, nil
}

// UnmarshalText reads a ticket MarshalText wrote. Anything else is an error
// wrapping ErrTicket (which quotes none of the text: it may hold a token),
// and leaves t as it was.
func (t *Ticket) UnmarshalText(text []byte) error {
	s, host, _ := strings.Cut(string(text), "@")
	peer, rest, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Errorf("%w: no ':' in %d bytes", ErrTicket, len(text))
	}
	token, role, spectator := strings.Cut(rest, ":")
	if spectator && role != "spectator" {
		return fmt.Errorf("%w: after the token, only \":spectator\"", ErrTicket)
	}
	p, err := strconv.ParseUint(peer, 10, 16)
	if err != nil || p == 0 || p > uint64(^ecs.PeerID(0)) {
		return fmt.Errorf("%w: the peer is not a number from 1 to %d", ErrTicket, ^ecs.PeerID(0))
	}
	var tk [wire.TokenLen]byte
	if len(token) != 2*wire.TokenLen {
		return fmt.Errorf("%w: the token is not %d hex digits", ErrTicket, 2*wire.TokenLen)
	}
	if _, err := hex.Decode(tk[:], []byte(token)); err != nil {
		return fmt.Errorf("%w: the token is not %d hex digits", ErrTicket, 2*wire.TokenLen)
	}
	if strings.ContainsAny(host, " \t\r\n@:") {
		return fmt.Errorf("%w: the host's identity has a space, '@' or ':'", ErrTicket)
	}
	*t = Ticket{Peer: ecs.PeerID(p), Token: tk, Spectator: spectator, Host: host}
	return nil
}

// ErrTicketRole is NewClient's error for a Ticket of the other role: a
// spectator's given to a player, or a player's to a spectator.
var ErrTicketRole = errors.New("session: the ticket is of the other role (a spectator's for a player, or a player's for a spectator); join without it, or as its role")

// ErrTicketHost is NewClient's error for a Ticket another host gave than
// the one its connection reached (their identities differ), and the Err of
// the PeerRejected event of a client whose redial reached such a host:
// the ticket is not sent, and the client says Hello there.
var ErrTicketHost = errors.New("session: the kept ticket is another host's (its identity differs), so it was not sent; joining as a new player")

// Ticket returns the client's ticket: its peer id and session token, from
// the Welcome that admitted it (a fresh join after a refused resume gives
// another) or the kept ticket it resumed with, its role and its host's
// identity. False before the host admitted the client.
func (c *Client) Ticket() (Ticket, bool) {
	if c.welcome.PeerID == 0 {
		return Ticket{}, false
	}
	return Ticket{Peer: ecs.PeerID(c.welcome.PeerID), Token: c.welcome.Token, Spectator: c.cfg.Spectator, Host: c.host}, true
}

// ticketFor reports whether the kept ticket may go on connection tc: its
// host is the ticket's. On one that may not, the client says Hello (told
// as a refusal, ErrTicketHost): a Welcome there makes it a new peer of
// that host, and the ticket is let go; a connection that ends first
// leaves the ticket for the next dial, which may reach the ticket's host.
func (c *Client) ticketFor(tc transport.Conn) bool {
	if c.ticket.Host == transport.IdentityOf(tc) {
		return true
	}
	c.emit(Event{Kind: PeerRejected, Peer: c.ticket.Peer, Name: c.cfg.Name, Err: ErrTicketHost})
	return false
}

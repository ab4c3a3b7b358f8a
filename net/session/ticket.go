package session

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A kept ticket: the peer id and token of a client's Welcome, which a game
// keeps past the client's process so that a new one takes the player's
// place back (ClientConfig.Ticket): its first connection says Resume with
// wire.ResumeKeptTicket in place of Hello, and the host joins it to the
// whole world as the peer it was.

// Ticket is what takes a player's place back on the host it joined: the
// peer id and session token of the client's Welcome. It is as secret as a
// password (whoever holds it is that player while the host keeps the
// peer): keep it where the player's settings are, never log it. Its text
// form (MarshalText) is "peer:token", the token in hex. The zero Ticket is
// none.
type Ticket struct {
	Peer  ecs.PeerID
	Token [wire.TokenLen]byte
}

// ErrTicket is wrapped by UnmarshalText's error for text that is not a
// ticket.
var ErrTicket = errors.New("session: not a ticket (want peer:token, the token 32 hex digits); join without it")

// IsZero reports whether t is no ticket.
func (t Ticket) IsZero() bool { return t.Peer == 0 }

// MarshalText returns the ticket as "peer:token", the token in hex: text a
// game can keep in its settings file.
func (t Ticket) MarshalText() ([]byte, error) {
	b := strconv.AppendUint(nil, uint64(t.Peer), 10)
	b = append(b, ':')
	return hex.AppendEncode(b, t.Token[:]), nil
}

// UnmarshalText reads a ticket MarshalText wrote. Anything else is an error
// wrapping ErrTicket, and leaves t as it was.
func (t *Ticket) UnmarshalText(text []byte) error {
	peer, token, ok := strings.Cut(string(text), ":")
	if !ok {
		return fmt.Errorf("%w: no ':' in %d bytes", ErrTicket, len(text))
	}
	p, err := strconv.ParseUint(peer, 10, 16)
	if err != nil || p == 0 || p > uint64(^ecs.PeerID(0)) {
		return fmt.Errorf("%w: peer %q is not 1 to %d", ErrTicket, peer, ^ecs.PeerID(0))
	}
	var tk [wire.TokenLen]byte
	if len(token) != 2*wire.TokenLen {
		return fmt.Errorf("%w: the token is not %d hex digits", ErrTicket, 2*wire.TokenLen)
	}
	if _, err := hex.Decode(tk[:], []byte(token)); err != nil {
		return fmt.Errorf("%w: the token is not %d hex digits", ErrTicket, 2*wire.TokenLen)
	}
	t.Peer, t.Token = ecs.PeerID(p), tk
	return nil
}

// Ticket returns the client's ticket: its peer id and session token, from
// the Welcome that admitted it (a fresh join after a refused resume gives
// another) or the kept ticket it resumed with. False before the host
// admitted the client.
func (c *Client) Ticket() (Ticket, bool) {
	if c.welcome.PeerID == 0 {
		return Ticket{}, false
	}
	return Ticket{Peer: ecs.PeerID(c.welcome.PeerID), Token: c.welcome.Token}, true
}

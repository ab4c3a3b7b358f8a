package session

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/tandem-go/tandem/net/wire"
)

// ErrRejected matches (errors.Is) a *RejectError: the host refused this
// client at the handshake.
var ErrRejected = errors.New("session: the host refused this client")

// RejectError is the host's refusal of this client: the code and reason of
// its Reject. Client.Err returns it once the client closed; it matches
// ErrRejected with errors.Is, and errors.As finds it.
type RejectError struct {
	Code    wire.RejectCode // why (version, full, name, ...)
	Version uint16          // the protocol version the host speaks
	Reason  string          // the host's words, for the player
}

// Error says that the host refused, why, and in its words. The host's
// reason is shown with anything unprintable replaced, so it cannot forge a
// log line.
func (e *RejectError) Error() string {
	reason := strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return '?'
	}, e.Reason)
	if e.Code == wire.RejectVersion {
		return fmt.Sprintf("session: the host refused this client (%s: the host speaks protocol %d, this client %d): %s",
			e.Code, e.Version, wire.Version, reason)
	}
	if strings.HasPrefix(reason, e.Code.String()) {
		// The host's words name the code already ("host full (4 players)").
		return "session: the host refused this client: " + reason
	}
	return fmt.Sprintf("session: the host refused this client (%s): %s", e.Code, reason)
}

// Unwrap returns ErrRejected.
func (e *RejectError) Unwrap() error { return ErrRejected }

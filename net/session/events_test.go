package session

import (
	"errors"
	"testing"
)

// An event reads as a log line: a peer by its id and name, a connection
// never admitted (no id) as a connection.
func TestEventString(t *testing.T) {
	refused := errors.New("the host is full")
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Event{Kind: PeerJoined, Peer: 3, Name: "ann"}, "peer 3 (ann) joined"},
		{Event{Kind: PeerRejected, Err: refused}, "a connection rejected: the host is full"},
		{Event{Kind: PeerRejected, Name: "bob", Err: refused}, "a connection (bob) rejected: the host is full"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

package launch

import (
	"errors"
	"fmt"
	"io"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/transport"
)

// LogClient writes to w, one line each, what a player wants to know of c's
// session: its join (as which peer, with how many entities), a broken
// connection and the reconnection, a resume and the join after it, a
// refused resume, and an end this side did not ask for. app begins each
// line, join names the host. Call it before c runs; the lines are written
// on the goroutine that steps c.
func LogClient[I comparable](c *tandem.Client[I], app, join string, w io.Writer) {
	resumed := false // the join under way follows a resume
	c.OnEvent(func(e tandem.Event) {
		var ce *transport.CloseError
		switch {
		case e.Kind == tandem.PeerReady && resumed:
			resumed = false
			fmt.Fprintf(w, "%s: back in the game as peer %d (%s), %s\n", app, e.Peer, e.Name, entities(c.World().ECS.Networked()))
		case e.Kind == tandem.PeerReady:
			fmt.Fprintf(w, "%s: joined %s as peer %d (%s), %s\n", app, join, e.Peer, e.Name, entities(c.World().ECS.Networked()))
		case e.Kind == tandem.PeerLeft && (e.Err == nil || errors.As(e.Err, &ce) && !ce.Remote && ce.Code == transport.CloseNormal):
			// This side left: nothing to report.
		case e.Kind == tandem.PeerLeft:
			fmt.Fprintf(w, "%s: the session ended: %v\n", app, e.Err)
		case e.Kind == tandem.PeerDisconnected:
			fmt.Fprintf(w, "%s: the connection broke, reconnecting: %v\n", app, e.Err)
		case e.Kind == tandem.PeerResumed:
			resumed = true
			fmt.Fprintf(w, "%s: resumed as peer %d (%s)\n", app, e.Peer, e.Name)
		case e.Kind == tandem.PeerRejected:
			fmt.Fprintf(w, "%s: the host refused the resume, joining afresh: %v\n", app, e.Err)
		}
	})
}

// entities says n entities, "1 entity" for one.
func entities(n int) string {
	if n == 1 {
		return "1 entity"
	}
	return fmt.Sprintf("%d entities", n)
}

// LogHost writes to w each of h's events (a peer joined, left, broke,
// resumed, was refused: tandem.Event's String), one line each, beginning
// with app. The lines are written on the goroutine that steps h. It
// returns the function that stops it.
func LogHost(h interface {
	OnEvent(func(tandem.Event)) (remove func())
}, app string, w io.Writer) (stop func()) {
	return h.OnEvent(func(e tandem.Event) { fmt.Fprintf(w, "%s: %v\n", app, e) })
}

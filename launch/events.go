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
			fmt.Fprintf(w, "%s: back in the game as peer %d (%s), %d entities\n", app, e.Peer, e.Name, c.World().ECS.Networked())
		case e.Kind == tandem.PeerReady:
			fmt.Fprintf(w, "%s: joined %s as peer %d (%s), %d entities\n", app, join, e.Peer, e.Name, c.World().ECS.Networked())
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

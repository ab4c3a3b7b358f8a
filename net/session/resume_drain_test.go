package session

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// A player resending Resumes with its own token, past its own bound, spends
// nothing of the host-wide MaxResumesPerSecond: another player whose
// connection broke meanwhile comes back as itself. (Each refused resume
// spent a token of the host's, so the other was refused RejectFull at
// every try until its grace window ran out.)
func TestOwnResumesLeaveTheHostsBound(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{Grace: 10 * time.Second})
		a := r.join("a")
		m := r.join("mallory")
		peerA := a.cl.Peer()
		mr := wire.Resume{Version: wire.Version, Flags: wire.ResumeHoldsWorld, PeerID: uint32(m.cl.Peer()), Token: m.cl.Welcome().Token, Schema: r.schema}.Encode(nil)
		var flood resumeFlood
		broke := 2 * 60
		end := broke + 20*60
		i := 0
		for ; i < end; i++ {
			if i == broke {
				a.conn().Close(transport.CloseTimeout, "the host stopped answering")
			}
			if i > broke && a.cl.State() == Playing {
				break
			}
			if a.cl.State() == Closed {
				break
			}
			flood.step(r, mr)
		}
		st := r.host.Stats()
		t.Logf("after %v: player a %v as peer %d (was %d); host %+v", time.Duration(i-broke)*16*time.Millisecond, a.cl.State(), a.cl.Peer(), peerA, st)
		if a.cl.State() != Playing || a.cl.Peer() != peerA {
			t.Fatalf("player a (peer %d) never resumed while another player resent Resumes with its own token: state %v, err %v; ResumeLimited %d",
				peerA, a.cl.State(), a.cl.Err(), st.ResumeLimited)
		}
	})
}

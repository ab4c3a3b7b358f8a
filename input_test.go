package tandem

import (
	"log/slog"
	"testing"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/wire"
)

// A player whose input codec's Read refuses a value its Append writes (a
// rule of the game's, say a thrust past 100) keeps playing: each such input
// goes as the zero input, counted on the client, and the host is sent no
// message it refuses; before, each press made Redundancy malformed
// messages, and a few presses ended the session.
func TestInputTheCodecRefusesKeepsThePlayer(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		g := ledgerGame()
		g.Input.Read = func(r *wire.Reader, in *push) {
			in.X = int8(r.U8())
			if in.X > 100 {
				r.Fail(wire.ErrInvalid)
			}
		}
		r := newRigOf(t, g, HostConfig{})
		c := r.join("ann", ClientConfig[push]{Logger: slog.New(slog.DiscardHandler)})
		r.step(60) // its frame in step with the host's: its inputs are its own
		for range 5 {
			c.SetInput(push{X: 120})
			r.step(1)
			c.SetInput(push{X: 10})
			r.step(30)
		}
		if c.State() != session.Playing {
			t.Fatalf("the client is %v (%v); want it playing", c.State(), c.Err())
		}
		if n := c.Stats().Predict.RefusedInputs; n != 5 {
			t.Fatalf("the client counts %d inputs refused, want 5", n)
		}
		ps := r.host.AppendPeerStats(nil)
		if len(ps) != 1 || ps[0].Inputs.Malformed != 0 || ps[0].Inputs.Messages < 100 {
			t.Fatalf("the host's figures of its peers %+v; want ann's input messages taken, none malformed", ps)
		}
		if ps[0].Memory <= 0 || ps[0].Replication.JoinRounds != 1 {
			t.Fatalf("the host holds %d bytes for ann, its join took %d rounds; want its memory counted and one round", ps[0].Memory, ps[0].Replication.JoinRounds)
		}
	})
}

package tandemtest_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/tandemtest"
)

// A player kept away past the host's grace window comes back as a new
// player: its resume refused, it joins afresh with a new peer id, the old
// peer having left and its figure gone. Closing the connection as timed
// out lets both sides learn of the break at once (a Cut leaves the host
// to notice by its idle timeout, 10 s, by when the client's own window
// may have ended). A command she gave while away, for the player let go,
// is not made for the new one: she answers it expired herself, and the
// host never runs it; given again from her receipt's observer (as the
// reason asks), and once more as the new player, both run.
func TestAwayPastTheGraceJoinsAfresh(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		const grace = 2 * time.Second
		bought := map[string]int{} // purchases run on the host, by the buyer's name
		buy := tandem.NewCommand("buy", tandem.CommandCodec[struct{}]{}, func(w *tandem.World, p tandem.Peer, _ struct{}) error {
			bought[p.Name]++
			return nil
		})
		r := tandemtest.New(t, walkersWith(buy), tandem.HostConfig{Grace: grace}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		old := ann.Peer()
		r.Unreachable(ann, true)
		if err := r.Conn(ann).Close(transport.CloseTimeout, "the test's network dropped her"); err != nil {
			t.Fatal(err)
		}
		away, err := tandem.Send(ann, buy, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		var again uint64 // the purchase given again at its expiry
		ann.OnReceipt(func(rc tandem.Receipt) {
			if rc.Status == tandem.ReceiptExpired && again == 0 {
				if again, err = tandem.Send(ann, buy, struct{}{}); err != nil {
					t.Errorf("giving the purchase again: %v", err)
				}
			}
		})
		left := false
		if !r.StepUntil(60*10, func() bool {
			r.Host.Do(func(w *tandem.World) { left = len(w.ECS.Owned(old)) == 0 })
			return left
		}) {
			t.Fatalf("the host still holds ann's figure past its grace of %v", grace)
		}
		if st := ann.State(); st != tandem.Reconnecting {
			t.Fatalf("ann past the host's grace: %v (%v), want still trying", st, ann.Err())
		}
		r.Unreachable(ann, false)
		if !r.StepUntil(60*10, func() bool { return ann.State() == tandem.Playing && ann.Peer() != old }) {
			t.Fatalf("ann after the host can be reached again: %v as peer %d (%v), want playing as a new peer", ann.State(), ann.Peer(), ann.Err())
		}
		if st := r.Host.Stats(); st.Joined != 2 || st.Resumed != 0 {
			t.Fatalf("host %+v: want ann joined twice, never resumed", st)
		}
		r.Step(30)
		mine := 0
		ann.Do(func(w *tandem.World) { mine = len(w.ECS.Owned(ann.Peer())) })
		if mine != 1 {
			t.Fatalf("ann, joined afresh, holds %d figures of her own, want the one Join gave her", mine)
		}
		rc, ok := r.StepUntilReceipt(ann, away, 0)
		if !ok || rc.Status != tandem.ReceiptExpired || !strings.Contains(rc.Reason, "let this player go") || ann.CommandStats().Unsent != 1 {
			t.Fatalf("the purchase ann gave while away: %v, %v (%+v); want expired by her, as the player let go", rc, ok, ann.CommandStats())
		}
		if rc, ok := r.StepUntilReceipt(ann, again, 120); again == 0 || !ok || rc.Status != tandem.ReceiptDone {
			t.Fatalf("the purchase given again at its expiry: %v, %v; want done, for the new player", rc, ok)
		}
		now, err := tandem.Send(ann, buy, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		if rc, ok := r.StepUntilReceipt(ann, now, 120); !ok || rc.Status != tandem.ReceiptDone {
			t.Fatalf("a purchase as the new player: %v, %v; want done", rc, ok)
		}
		if bought["ann"] != 2 || ann.CommandStats().Unsent != 1 {
			t.Fatalf("the host ran %d of ann's purchases, %d expired (%+v); want the new player's two, the one let go's expired", bought["ann"], ann.CommandStats().Unsent, ann.CommandStats())
		}
	})
}

// A new process whose kept ticket the host refuses (its player let go)
// joins afresh; a command it gave before any admission, for whatever player
// it becomes, runs as the new player, not expired as one held for the
// player let go.
func TestACommandGivenBeforeARefusedTicketRunsForTheNewPlayer(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		const grace = 2 * time.Second
		bought := map[string]int{}
		buy := tandem.NewCommand("buy", tandem.CommandCodec[struct{}]{}, func(w *tandem.World, p tandem.Peer, _ struct{}) error {
			bought[p.Name]++
			return nil
		})
		r := tandemtest.New(t, walkersWith(buy), tandem.HostConfig{Grace: grace}, tandemtest.Config{Bubble: true})
		ticket := filepath.Join(t.TempDir(), "ticket")
		ann := r.Join("ann", tandem.ClientConfig[Walk]{TicketFile: ticket})
		old := ann.Peer()
		r.Unreachable(ann, true) // her process gone dark, its file kept
		if err := r.Conn(ann).Close(transport.CloseTimeout, "the test's network dropped her"); err != nil {
			t.Fatal(err)
		}
		if !r.StepUntil(60*10, func() bool {
			left := false
			r.Host.Do(func(w *tandem.World) { left = len(w.ECS.Owned(old)) == 0 })
			return left
		}) {
			t.Fatalf("the host still holds ann's figure past its grace of %v", grace)
		}
		again := r.Connect("ann", tandem.ClientConfig[Walk]{TicketFile: ticket})
		rejected := 0
		again.OnEvent(func(e tandem.Event) {
			if e.Kind == tandem.PeerRejected {
				rejected++
			}
		})
		op, err := tandem.Send(again, buy, struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		rc, ok := r.StepUntilReceipt(again, op, 60*10)
		if !ok || rc.Status != tandem.ReceiptDone || rejected != 1 || again.Peer() == old || again.CommandStats().Unsent != 0 || bought["ann"] != 1 {
			t.Fatalf("a purchase given before a refused ticket's fresh join: %v, %v, as peer %d (was %d), %d refusals of the ticket, %+v, %d run; want done, as the new player after one refusal", rc, ok, again.Peer(), old, rejected, again.CommandStats(), bought["ann"])
		}
	})
}

package tandem

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

// TestSecondHostTakesTheWorld: two hosts, each with its own connection to
// one PostgreSQL database (SaveTo the same URL), as two pods of a fleet
// given the same world. The second takes the world's lease as it starts:
// it restores what the first saved, the first host's next save is refused
// with a fencing error, and the first stops: no receipt for the command
// that save held (its player's client answers it unknown), its player
// told, its world closed (its Run and Close say why). The world goes on in the second host, which saves as it should.
func TestSecondHostTakesTheWorld(t *testing.T) {
	url := storetest.PostgresURL(t)
	r := newRig(t, HostConfig{SaveTo: url})
	ann := r.join("ann", ClientConfig[push]{})
	if _, err := Send(ann, addCommand, 5); err != nil {
		t.Fatal(err)
	}
	r.step(20)
	if got := ann.CommandStats().Receipts; got != 1 {
		t.Fatalf("ann has %d receipts before the second host, want 1", got)
	}

	second, err := NewHost(ledgerGame(), HostConfig{Clock: r.clk, SaveTo: url})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if l := second.Store().Lease(); l.Epoch != 2 {
		t.Fatalf("the second host's lease: %+v, want epoch 2", l)
	}
	if s := snapshot(second); !strings.Contains(s, "ledger {Count:1 Sum:5 ") {
		t.Fatalf("the second host restored a world without the first one's acknowledged command:\n%s", s)
	}

	if _, err := Send(ann, addCommand, 7); err != nil {
		t.Fatal(err)
	}
	r.step(20)
	var fenced *store.FencedError
	if err := r.host.Err(); !errors.As(err, &fenced) || fenced.Epoch != 1 || fenced.Now != 2 {
		t.Fatalf("the first host's error: %v; want a *store.FencedError, epoch 1 fenced by 2", err)
	}
	select {
	case <-r.host.Done():
	default:
		t.Fatal("the fenced host is still running its world")
	}
	if err := r.host.Run(context.Background()); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("Run of the fenced host: %v", err)
	}
	if err := r.host.Close(); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("Close of the fenced host: %v", err)
	}
	if err := r.host.Save(context.Background()); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("Save of the fenced host: %v", err)
	}
	r.step(10)
	if st := ann.CommandStats(); ann.State() != session.Closed || st.Receipts != 2 || st.Unknown != 1 {
		t.Fatalf("ann is %v with %d receipts, %d unknown; want closed, with the first receipt, and the second answered unknown by her client", ann.State(), st.Receipts, st.Unknown)
	}

	// The second host holds the world: it saves, and the save is there.
	if err := second.Save(context.Background()); err != nil {
		t.Fatalf("the second host's save: %v", err)
	}
	if n := second.SaveStats().Commits; n == 0 {
		t.Fatal("the second host saved nothing")
	}
}

// TestFencedHostStopsBetweenSaves: a host that saves seldom (SaveEvery an
// hour) and has nothing to save learns that another host took its world
// within about a second, by checking its lease between saves, rather than
// at its next save; and it tells its player to come back (the close of a
// restart), so a client whose Dial asks where the world is now follows it.
func TestFencedHostStopsBetweenSaves(t *testing.T) {
	url := storetest.PostgresURL(t)
	r := newRig(t, HostConfig{SaveTo: url, SaveEvery: time.Hour})
	ann := r.join("ann", ClientConfig[push]{})
	r.step(10)
	second, err := NewHost(ledgerGame(), HostConfig{Clock: r.clk, SaveTo: url})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	taken := r.clk.Now()
	for i := 0; ; i++ {
		if i > 10*60 {
			t.Fatalf("the fenced host still runs its world %v after another took it", r.clk.Now().Sub(taken))
		}
		r.step(1)
		// The check runs on the committer's goroutine: take its answer
		// before the next step, as a host stepping in real time would
		// within a few.
		if c := r.host.saves; c != nil && c.committer.Busy() {
			if res, ok := c.committer.Wait(context.Background()); ok {
				r.host.saved(res)
			}
		}
		if r.host.Err() != nil {
			break
		}
	}
	if took := r.clk.Now().Sub(taken); took > leaseCheckEvery+time.Second/4 {
		t.Fatalf("the fenced host stopped %v after another took its world, want within %v", took, leaseCheckEvery)
	}
	if err := r.host.Err(); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("the fenced host's error: %v", err)
	}
	r.step(10)
	var ce *transport.CloseError
	if !errors.As(ann.session.Err(), &ce) || ce.Code != transport.CloseHostRestarting {
		t.Fatalf("ann's session ended with %v, want the close of a restart (come back)", ann.session.Err())
	}
	// Closed after, as every host is, it refuses a redial as it told its
	// players: come back (to the host that took the world).
	r.host.Close()
	tc, err := r.net.Dial(context.Background(), "host")
	if err != nil {
		t.Fatal(err)
	}
	hc, err := r.l.Accept(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.host.Accept(hc)
	r.clk.Advance(time.Second)
	<-tc.Done()
	if !errors.As(tc.Err(), &ce) || ce.Code != transport.CloseHostRestarting {
		t.Fatalf("a redial to the fenced host, closed, ended with %v, want the close of a restart", tc.Err())
	}
}

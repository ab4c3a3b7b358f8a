package tandem

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// A host stops 4 s after its last save, a command of ann's in flight, and
// the next one comes up 6 s later from that save, its frames 10 s behind
// those ann gave her commands at. She resumes into it: the command she
// sends again and the one she sends once back run as they come. (They kept
// the lost host's frame: the first waited 120 frames, 2 s, for it, and the
// second, a player's commands running in the order sent, behind it.)
func TestCommandsSentAgainToAHostRestartedFromAnOlderSaveRunAsTheyCome(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		first := savePath(t)
		older := filepath.Join(t.TempDir(), "older.db")
		p := newResumePairOf(t, ledgerGame, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{SaveTo: first})
		ann := p.joinAs(ClientConfig[push]{Name: "ann"})
		var at []time.Time // when each receipt came
		ann.OnReceipt(func(Receipt) { at = append(at, p.clk.Now()) })
		p.run(time.Second)
		if err := p.host.Save(context.Background()); err != nil {
			t.Fatal(err)
		}
		saved, err := os.ReadFile(first)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(older, saved, 0o600); err != nil {
			t.Fatal(err)
		}
		p.run(4 * time.Second)
		if _, err := Send(ann.Client, addCommand, 1); err != nil {
			t.Fatal(err)
		}
		for _, spy := range p.spies {
			spy.Conn.(*mem.Conn).Cut()
		}
		p.spies, p.resumed, p.left = nil, nil, nil
		ann.mu.Lock()
		ann.block = true // no host to reach while the next one comes up
		ann.mu.Unlock()
		p.run(6 * time.Second)
		ann.mu.Lock()
		ann.block = false
		ann.mu.Unlock()
		p.cfg.SaveTo = older
		p.start()
		p.until(20*time.Second, "ann admitted", func() bool { return ann.NetStats().Resumes == 1 })
		back := p.clk.Now()
		// One sent while her world is held for the rejoin, before a step.
		if _, err := Send(ann.Client, addCommand, 2); err != nil {
			t.Fatal(err)
		}
		p.until(20*time.Second, "ann playing", func() bool { return ann.State() == session.Playing })
		if _, err := Send(ann.Client, addCommand, 3); err != nil {
			t.Fatal(err)
		}
		p.until(5*time.Second, "three receipts", func() bool { return len(at) == 3 })
		for i, when := range at {
			if d := when.Sub(back); d > time.Second {
				t.Fatalf("ann's command %d ran %v after she was admitted again (all: %v)", i+1, d, at)
			}
		}
		if st := p.host.Stats(); st.Ahead > 1 {
			t.Fatalf("the restored host held %d commands for their frame, want none but one sent once back", st.Ahead)
		}
	})
}

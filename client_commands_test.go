package tandem

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// A Send refused because the oldest command held is 64 operations behind
// (its receipt keeps the new one waiting) sends that oldest one again
// within resendAfter, not after its wait, which doubles up to resendMax
// while the host drops it: the game is let go on within seconds.
func TestARefusedSendHastensTheOldestCommand(t *testing.T) {
	r := newRig(t, HostConfig{})
	ann := r.join("ann", ClientConfig[push]{})
	cc := &ann.cmds
	cc.mu.Lock()
	// The oldest command waits for its receipt, last sent a moment ago
	// with its longest wait; the 63 after it were answered.
	oldest := cc.out.Next()
	for range 64 {
		if _, err := cc.out.Add(1, nil, 0); err != nil { // tokenCommand, no payload
			t.Fatal(err)
		}
	}
	for op := oldest + 1; op < oldest+64; op++ {
		cc.out.Receipt(op)
	}
	cc.sent[oldest] = sentOn{conn: cc.conn, at: r.clk.Now(), wait: resendMax}
	resent := cc.stats.Resent
	cc.mu.Unlock()
	if _, err := Send(ann, tokenCommand, struct{}{}); !errors.Is(err, ErrTooManyCommands) {
		t.Fatalf("Send with the oldest command 64 behind: %v, want ErrTooManyCommands", err)
	}
	steps := 0
	for ann.CommandStats().Resent == resent {
		if steps++; steps > int(resendMax/ecs.DefaultStep) {
			t.Fatal("the oldest command was not sent again within resendMax")
		}
		r.step(1)
	}
	if waited := time.Duration(steps) * ecs.DefaultStep; waited > resendAfter+time.Second/10 {
		t.Errorf("the oldest command went again %v after the refused Send, want within %v", waited, resendAfter)
	}
	for i := 0; ann.PendingCommands() > 0; i++ {
		if i > 60 {
			t.Fatalf("the oldest command was never answered: %d held", ann.PendingCommands())
		}
		r.step(1)
	}
	if _, err := Send(ann, tokenCommand, struct{}{}); err != nil {
		t.Errorf("Send after the oldest's receipt: %v", err)
	}
}

// A command larger than the protocol's bound on one (wire.MaxCommandSize) is
// refused by Send with ErrCommandTooLarge, whose words say to split it:
// no setting raises the bound.
func TestSendRefusesACommandTooLarge(t *testing.T) {
	note := NewCommand("note", CommandCodec[[]byte]{
		Append: func(dst []byte, v *[]byte) []byte { return append(dst, *v...) },
		Read:   func(r *wire.Reader, v *[]byte) { *v = r.Rest() },
	}, func(*World, Peer, []byte) error { return nil })
	g := testGame()
	g.Commands = []Command{note}
	p := newPair(t, g, condition.Config{})
	p.run(time.Second / 2)
	if _, err := Send(p.client, note, make([]byte, 900)); err != nil {
		t.Fatalf("a note of 900 bytes: %v", err)
	}
	_, err := Send(p.client, note, make([]byte, 2000))
	if !errors.Is(err, ErrCommandTooLarge) || !strings.Contains(err.Error(), "split it") {
		t.Fatalf("a note of 2,000 bytes: %v; want ErrCommandTooLarge, saying to split it", err)
	}
}

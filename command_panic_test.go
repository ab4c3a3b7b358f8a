package tandem

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/wire"
)

// faultyCommand adds one to the ledger's count, then panics: a game's
// handler with a fault, which a client's command reaches.
var faultyCommand = NewCommand("faulty", CommandCodec[struct{}]{}, func(w *World, p Peer, _ struct{}) error {
	l := ecs.Resource[ledger](w.ECS)
	l.Count++
	l.Sum += uint64(1 / len(w.ECS.Owned(ecs.HostPeer+100))) // no such peer owns anything: divides by zero, panics
	return nil
})

// TestCommandPanicIsRefused: a command whose handler panics does not stop
// the host. It is refused, with a reason that says the host failed; the
// panic is heard with its stack, counted, and kept as the command's answer:
// sent again, before and after a restart, it is answered from the book and
// never runs again. The player's other commands go on.
func TestCommandPanicIsRefused(t *testing.T) {
	g := ledgerGame()
	g.Commands = append(g.Commands, faultyCommand)
	var heard []*CommandPanic
	r := newRigOf(t, g, HostConfig{SaveTo: savePath(t), OnCommandPanic: func(p *CommandPanic) { heard = append(heard, p) }})
	p := r.dialRaw("bob")
	p.send(t, 1, 2, nil)
	r.step(10)
	p.send(t, 2, 0, u32(5)) // the player's next command runs
	p.send(t, 1, 2, nil)    // sent again: its kept answer
	r.step(10)
	rs := p.receipts(t)
	if len(rs) != 3 || rs[0].Status != wire.ReceiptRefused || rs[0].Reason != errCommandFailed.Error() || rs[1].Status != wire.ReceiptDone || rs[2] != rs[0] {
		t.Fatalf("receipts %+v; want op 1 refused as failed, op 2 done, op 1's refusal again", rs)
	}
	if len(heard) != 1 || heard[0].Command != "faulty" || heard[0].Op != 1 || heard[0].Player.Name != "bob" || !strings.Contains(string(heard[0].Stack), "command_panic_test.go") {
		t.Fatalf("heard %v; want one panic of faulty op 1 from bob, with its stack", heard)
	}
	if !strings.Contains(heard[0].Error(), "integer divide by zero") {
		t.Fatalf("the panic's error does not say what panicked: %v", heard[0])
	}
	if st := r.host.Stats(); st.CommandPanics != 1 || st.Commands != 2 || st.Again != 1 {
		t.Fatalf("host counts %+v; want 1 panic among 2 commands run, 1 again", st)
	}
	// What ran before the panic stays (one count), and the add ran.
	if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:2 Sum:5 ") {
		t.Fatalf("the ledger after a faulty and an add:\n%s", s)
	}
	// The refusal is saved: a restarted host keeps it in the player's book,
	// to answer the command again without running it.
	r.restart()
	book := r.host.people.players[p.cl.Peer()].book
	v, kept := book.Check(1, command.SumOf(2, nil))
	var rc wire.Receipt
	if v != command.Again || rc.Decode(kept.Receipt) != nil || rc != rs[0] {
		t.Fatalf("after a restart, op 1 is %v with receipt %+v; want its refusal kept", v, rc)
	}
}

// A command whose codec's Read refuses it on the host (a client of another
// build, whose own Read took it) is refused with Read's word, and its
// refusal kept like any other (sent again, the same answer); it counts
// against the peer's connection as malformed.
func TestCommandTheHostCannotReadIsRefused(t *testing.T) {
	r := newRigOf(t, ledgerGame(), HostConfig{SaveTo: savePath(t)})
	p := r.dialRaw("bob")
	p.send(t, 1, 0, u32(maxAdd+1)) // the host's add codec refuses more than maxAdd
	r.step(10)
	p.send(t, 1, 0, u32(maxAdd+1)) // sent again
	p.send(t, 2, 0, u32(5))        // the player's next command runs
	r.step(10)
	rs := p.receipts(t)
	if len(rs) != 3 || rs[0].Status != wire.ReceiptRefused || !strings.Contains(rs[0].Reason, errAddTooMuch.Error()) ||
		!strings.Contains(rs[0].Reason, "another build") || rs[1] != rs[0] || rs[2].Status != wire.ReceiptDone {
		t.Fatalf("receipts %+v; want op 1 refused with what the codec said, the same again, op 2 done", rs)
	}
	if st := r.host.Stats(); st.Malformed != 1 || st.Commands != 1 || st.Again != 1 {
		t.Fatalf("host counts %+v; want 1 malformed, 1 command run, 1 again", st)
	}
}

// With OnCommandPanic unset, a command that panics is written to the host's
// Logger: one error naming the command, its operation and player, the
// panic, and the stack where it panicked.
func TestCommandPanicIsLogged(t *testing.T) {
	g := ledgerGame()
	g.Commands = append(g.Commands, faultyCommand)
	logged := &lockedText{}
	r := newRigOf(t, g, HostConfig{Logger: slog.New(slog.NewJSONHandler(logged, nil))})
	p := r.dialRaw("bob")
	p.send(t, 7, 2, nil)
	r.step(10)
	if rs := p.receipts(t); len(rs) != 1 || rs[0].Status != wire.ReceiptRefused {
		t.Fatalf("receipts %+v; want op 7 refused", rs)
	}
	var rec struct {
		Level, Command, Name, Panic, Stack string
		Op                                 uint64
	}
	if err := json.Unmarshal([]byte(logged.String()), &rec); err != nil {
		t.Fatalf("the Logger heard %q, want one record: %v", logged.String(), err)
	}
	if rec.Level != "ERROR" || rec.Command != "faulty" || rec.Op != 7 || rec.Name != "bob" ||
		!strings.Contains(rec.Panic, "integer divide by zero") || !strings.Contains(rec.Stack, "command_panic_test.go") {
		t.Fatalf("the Logger heard %+v; want an error of faulty op 7 from bob, with the panic and its stack", rec)
	}
}

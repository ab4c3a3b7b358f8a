package tandem

import (
	"errors"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// TestSendOwn: the host's own player's command runs once with the kind's
// handler, is saved, and its receipt comes to OnReceipt only once the save
// holding it landed; a restarted host restores its book and goes on with
// the next operation id. A lone game runs its commands at once.
func TestSendOwn(t *testing.T) {
	var saves int
	var got []Receipt
	savesAtReceipt := -1
	r := newRig(t, HostConfig{SaveTo: savePath(t), OnSave: func(SavedReport) { saves++ }})
	r.host.OnReceipt(func(rc Receipt) {
		got = append(got, rc)
		savesAtReceipt = saves
	})
	r.step(2)
	before := saves
	op, err := SendOwn(r.host, addCommand, 5)
	if err != nil || op != 1 {
		t.Fatalf("SendOwn: op %d, %v; want 1", op, err)
	}
	for i := 0; len(got) == 0; i++ {
		if i > 60 {
			t.Fatal("no receipt for the host's own command")
		}
		r.step(1)
	}
	if rc := got[0]; rc.Op != 1 || rc.Status != ReceiptDone || rc.Command != "add" || savesAtReceipt <= before {
		t.Fatalf("receipt %+v after %d saves (%d before the command); want add #1 done, after its save", rc, savesAtReceipt, before)
	}
	if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:1 Sum:5 ") {
		t.Fatalf("the command did not run once:\n%s", s)
	}
	if _, err := SendOwn(r.host, addCommand, 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; len(got) < 2; i++ {
		if i > 60 {
			t.Fatal("no receipt for the refused command")
		}
		r.step(1)
	}
	if rc := got[1]; rc.Op != 2 || rc.Status != ReceiptRefused || rc.Reason != "nothing to add" {
		t.Fatalf("receipt %+v, want add #2 refused (nothing to add)", rc)
	}

	r.restart()
	if rp := r.host.Restored(); rp.Players != 0 || rp.Receipts != 2 {
		t.Fatalf("restored %+v: want no player (the host's own is none) and its 2 receipts", rp)
	}
	if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:1 Sum:5 ") {
		t.Fatalf("the restored world lacks the host's command:\n%s", s)
	}
	if err := RunAlone(r.host.Local, addCommand, 5); err == nil || !strings.Contains(err.Error(), "SendOwn") {
		t.Fatalf("RunAlone on a host: %v, want it refused, pointing at SendOwn", err)
	}
	if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:1 Sum:5 ") {
		t.Fatalf("RunAlone on a host changed the world:\n%s", s)
	}
	if op, err := SendOwn(r.host, addCommand, 1); err != nil || op != 3 {
		t.Fatalf("after the restart: op %d, %v; want 3, after the restored ones", op, err)
	}
	if err := r.host.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := SendOwn(r.host, addCommand, 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("SendOwn after Close: %v, want ErrClosed", err)
	}
	if _, err := SendOwn(r.host, NewCommand("other", CommandCodec[struct{}]{}, func(*World, Peer, struct{}) error { return nil }), struct{}{}); err == nil {
		t.Fatal("SendOwn of a kind not in the Game's Commands")
	}

	l, err := NewLocal(ledgerGame(), LocalConfig{Clock: r.clk})
	if err != nil {
		t.Fatal(err)
	}
	if err := RunAlone(l, addCommand, 7); err != nil {
		t.Fatal(err)
	}
	if err := RunAlone(l, addCommand, 0); err == nil || !strings.Contains(err.Error(), "nothing to add") {
		t.Fatalf("a refused command alone: %v", err)
	}
	var sum uint64
	l.Do(func(w *World) { sum = ecsLedger(w).Sum })
	if sum != 7 {
		t.Fatalf("alone, the ledger sums %d, want 7", sum)
	}
}

func ecsLedger(w *World) *ledger { return ecs.Resource[ledger](w.ECS) }

// Give is one way to give a command for the player at this machine: alone
// it runs at once and its receipt comes before Give returns; on a host it
// is SendOwn (its receipt after the save); through a game's own value that
// embeds the Session, the same.
func TestGiveEveryWay(t *testing.T) {
	l, err := NewLocal(ledgerGame(), LocalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var alone []Receipt
	l.OnReceipt(func(rc Receipt) { alone = append(alone, rc) })
	wrapped := struct{ Session[push] }{l} // a game's own match type
	if op, err := Give(wrapped, addCommand, 7); err != nil || op != 1 || len(alone) != 1 || alone[0].Status != ReceiptDone || alone[0].Op != 1 {
		t.Fatalf("alone: op %d, %v, receipts %+v; want #1 done at once", op, err, alone)
	}
	if op, err := Give(l, addCommand, 0); err != nil || op != 2 || len(alone) != 2 || alone[1].Status != ReceiptRefused || alone[1].Reason != "nothing to add" {
		t.Fatalf("alone, refused: op %d, %v, receipts %+v; want #2 refused with the game's reason", op, err, alone)
	}
	var sum uint64
	l.Do(func(w *World) { sum = ecsLedger(w).Sum })
	if sum != 7 {
		t.Fatalf("alone, the ledger sums %d, want 7", sum)
	}
	if _, err := Give(l, NewCommand("other", CommandCodec[struct{}]{}, func(*World, Peer, struct{}) error { return nil }), struct{}{}); err == nil {
		t.Fatal("Give of a kind not in the Game's Commands")
	}
	// A game alone that was closed runs no command.
	l.Close()
	if _, err := Give(l, addCommand, 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Give after Close: %v, want ErrClosed", err)
	}
	if err := RunAlone(l, addCommand, 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("RunAlone after Close: %v, want ErrClosed", err)
	}
	l.Do(func(w *World) { sum = ecsLedger(w).Sum })
	if sum != 7 || len(alone) != 2 {
		t.Fatalf("after Close the ledger sums %d with %d receipts, want 7 and 2: a command ran", sum, len(alone))
	}

	r := newRig(t, HostConfig{SaveTo: savePath(t)})
	var hosted []Receipt
	var s Session[push] = r.host
	s.OnReceipt(func(rc Receipt) { hosted = append(hosted, rc) })
	r.step(2)
	op, err := Give(s, addCommand, 5)
	if err != nil || op != 1 {
		t.Fatalf("hosting: op %d, %v; want 1", op, err)
	}
	for i := 0; len(hosted) == 0; i++ {
		if i > 60 {
			t.Fatal("no receipt for the host's own command given with Give")
		}
		r.step(1)
	}
	if rc := hosted[0]; rc.Op != 1 || rc.Status != ReceiptDone {
		t.Fatalf("hosting: receipt %+v, want #1 done", rc)
	}
	if _, err := Give(r.host.Local, addCommand, 1); err == nil || !strings.Contains(err.Error(), "through the Host") {
		t.Fatalf("Give on a host's Local: %v, want it refused, pointing at the Host", err)
	}
}

// A command its own codec cannot read back is not given, and the error
// says why in the codec's terms, wrapping the reader's error: a game's own
// refusal is of the value, not of the codec.
func TestCommandCodecRefusalSaysWhy(t *testing.T) {
	handle := func(*World, Peer, uint32) error { return nil }
	for _, tc := range []struct {
		read func(r *wire.Reader, v *uint32)
		want error
		says string
	}{
		{func(r *wire.Reader, v *uint32) { *v = r.U32() }, wire.ErrTruncated, "it read more bytes than Append wrote"},
		{func(r *wire.Reader, v *uint32) {}, wire.ErrTrailing, "it left bytes Append wrote unread"},
		{func(r *wire.Reader, v *uint32) { r.U8(); r.Fail(wire.ErrInvalid) }, wire.ErrInvalid, "one its layout or the game's rules do not allow"},
		{func(r *wire.Reader, v *uint32) { r.U8(); r.Fail(errAddTooMuch) }, errAddTooMuch, "refuses the value (" + errAddTooMuch.Error() + ")"},
		{func(r *wire.Reader, v *uint32) { r.Count(2) }, wire.ErrTooLarge, "a count or length past the limit its Read gives"},
	} {
		k := NewCommand("one byte", CommandCodec[uint32]{
			Append: func(dst []byte, v *uint32) []byte { return append(dst, byte(*v)) },
			Read:   tc.read,
		}, handle)
		v := uint32(7)
		_, err := k.encode(&v)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), `command "one byte"`) {
			t.Errorf("got %v; want it to wrap %v and say %q", err, tc.want, tc.says)
		}
	}
}

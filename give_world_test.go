package tandem

import (
	"errors"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// worldGiver is the ledger game with a system that gives the add commands
// set in gives through the World Setup gave it, at the step they are set
// for: what a game's system (an AI, a "cast when the button is down") does
// with only the World at hand. The ops and errors of the gives come back in
// ops and errs; gaveAt is the frame of the step that gave them.
type worldGiver struct {
	gives  []uint32
	ops    []uint64
	errs   []error
	gaveAt ecs.Frame
	role   Role // the machine whose system gives (each world has one)
	// setupErr is Give's error through the World during Setup.
	setupErr error
}

func (wg *worldGiver) game() *Game[push] {
	g := ledgerGame()
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		if w.Role != wg.role {
			return
		}
		_, wg.setupErr = Give(w, addCommand, 1)
		w.Schedule.Add("giver", ecs.SystemFunc(func(ew *ecs.World) {
			if len(wg.gives) == 0 {
				return
			}
			wg.ops, wg.errs, wg.gaveAt = nil, nil, ew.Frame()
			for _, n := range wg.gives {
				op, err := Give(w, addCommand, n)
				wg.ops = append(wg.ops, op)
				wg.errs = append(wg.errs, err)
			}
			wg.gives = nil
		}))
	}
	return g
}

// A system gives a command through the World, the one thing it has, on
// every machine: alone it runs at the next step's start, before the game's
// systems, in the order given, and its receipt comes then; on a host it is
// the host's own player's (SendOwn: its receipt after the save); on a client
// it goes to the host, which runs it at the frame the system gave it at.
// Through the World in Setup, before a session exists, it is refused with
// what to do; past the bound of those waiting alone, and once the game
// alone is closed, too.
func TestGiveThroughTheWorld(t *testing.T) {
	t.Run("alone", func(t *testing.T) {
		wg := &worldGiver{role: Alone}
		l, err := NewLocal(wg.game(), LocalConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if wg.setupErr == nil || !strings.Contains(wg.setupErr.Error(), "Setup") {
			t.Fatalf("Give through the World in Setup: %v, want it refused, naming Setup", wg.setupErr)
		}
		var got []Receipt
		l.OnReceipt(func(rc Receipt) { got = append(got, rc) })
		sum := func() (s uint64) {
			l.Do(func(w *World) { s = ecsLedger(w).Sum })
			return s
		}
		l.Step()
		wg.gives = []uint32{0, 4, 5}
		l.Step()
		if wg.ops[0] != 1 || wg.ops[2] != 3 || errors.Join(wg.errs...) != nil {
			t.Fatalf("gives: ops %v, errors %v; want 1, 2, 3", wg.ops, wg.errs)
		}
		if s := sum(); s != 0 || len(got) != 0 {
			t.Fatalf("in the step that gave them, the ledger sums %d with receipts %+v: they ran inside the giving system", s, got)
		}
		l.Step()
		if s := sum(); s != 9 || len(got) != 3 {
			t.Fatalf("the next step: the ledger sums %d with %d receipts, want 9 and 3", s, len(got))
		}
		for i, rc := range got {
			if rc.Op != uint64(i+1) || rc.Frame != wg.gaveAt+1 || rc.Command != "add" {
				t.Fatalf("receipt %d: %+v; want op %d at frame %d (the next step's)", i, rc, i+1, wg.gaveAt+1)
			}
		}
		if got[0].Status != ReceiptRefused || got[0].Reason != "nothing to add" || got[1].Status != ReceiptDone {
			t.Fatalf("receipts %+v: want the first refused with the game's reason, the others done", got)
		}
		// Give through the Session goes on numbering after them.
		if op, err := Give(l, addCommand, 1); op != 4 || err != nil {
			t.Fatalf("Give through the Session after: %d, %v; want op 4", op, err)
		}

		wg.gives = make([]uint32, maxAloneWaiting+1)
		for i := range wg.gives {
			wg.gives[i] = 1
		}
		l.Step()
		if last := wg.errs[maxAloneWaiting]; !errors.Is(last, ErrTooManyCommands) || errors.Join(wg.errs[:maxAloneWaiting]...) != nil {
			t.Fatalf("%d gives in a step: the last %v, want ErrTooManyCommands and the others given", len(wg.errs), last)
		}
		before := sum()
		l.Step()
		if s := sum(); s != before+maxAloneWaiting {
			t.Fatalf("the ledger went from %d to %d, want %d more", before, s, maxAloneWaiting)
		}

		l.Close()
		l.Do(func(w *World) {
			if _, err := Give(w, addCommand, 1); !errors.Is(err, ErrClosed) {
				t.Errorf("Give through the World of a closed game: %v, want ErrClosed", err)
			}
		})
	})

	t.Run("hosting", func(t *testing.T) {
		wg := &worldGiver{role: Hosting}
		r := newRigOf(t, wg.game(), HostConfig{SaveTo: savePath(t)})
		var got []Receipt
		r.host.OnReceipt(func(rc Receipt) { got = append(got, rc) })
		r.step(2)
		wg.gives = []uint32{6}
		r.step(1)
		if wg.ops[0] != 1 || wg.errs[0] != nil {
			t.Fatalf("the host's system gave op %d, %v; want 1", wg.ops[0], wg.errs[0])
		}
		for i := 0; len(got) == 0; i++ {
			if i > 60 {
				t.Fatal("no receipt for the command a host's system gave")
			}
			r.step(1)
		}
		if rc := got[0]; rc.Op != 1 || rc.Status != ReceiptDone || rc.Frame != wg.gaveAt+1 {
			t.Fatalf("receipt %+v; want #1 done at frame %d (the next frame's commands)", rc, wg.gaveAt+1)
		}
		if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:1 Sum:6 ") {
			t.Fatalf("the command did not run once:\n%s", s)
		}
	})

	t.Run("joined", func(t *testing.T) {
		wg := &worldGiver{role: Joined}
		r := newRigOf(t, wg.game(), HostConfig{})
		ann := r.join("ann", ClientConfig[push]{})
		var got []Receipt
		ann.OnReceipt(func(rc Receipt) { got = append(got, rc) })
		r.step(5)
		wg.gives = []uint32{8}
		for i := 0; len(wg.gives) > 0; i++ {
			if i > 10 {
				t.Fatal("the client stepped no step in 10 frames")
			}
			r.step(1) // a client syncing its clock may step none in one
		}
		op := wg.ops[0]
		if op == 0 || wg.errs[0] != nil {
			t.Fatalf("the client's system gave op %d, %v", op, wg.errs[0])
		}
		for i := 0; len(got) == 0; i++ {
			if i > 60 {
				t.Fatal("no receipt for the command a client's system gave")
			}
			r.step(1)
		}
		if rc := got[0]; rc.Op != op || rc.Status != ReceiptDone || rc.Frame != wg.gaveAt {
			t.Fatalf("receipt %+v; want #%d done at host frame %d, the frame the client's system gave it at", rc, op, wg.gaveAt)
		}
		if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:1 Sum:8 ") {
			t.Fatalf("the command did not run once:\n%s", s)
		}
	})
}

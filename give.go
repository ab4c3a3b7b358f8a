package tandem

import (
	"fmt"

	"github.com/tandem-go/tandem/ecs"
)

// Give gives a command of kind k with payload cmd for the player at this
// machine, whichever way the game is played, and returns its operation id; its
// Receipt comes to the Session's OnReceipt observers on all three. On a Client
// it is Send, on a Host SendOwn (the receipt once the save holding the command
// is durable). Alone (NewLocal) the command runs at once with the kind's
// handler (Peer{ID: ecs.HostPeer}), as RunAlone does, and its receipt (done, or
// refused with the game's reason) goes to the observers before Give returns, on
// Give's goroutine with the world locked. s may be a value of the game's own
// that embeds the Session. It fails as those do: for a kind not in the Game's
// Commands, on a spectator, at the limit of commands without a receipt, on a
// closed host, and for a command its kind's codec does not read back (Read
// refuses what Append wrote: nothing is given). Safe from any goroutine;
// from inside a View or Do callback, a system, a hook or an observer on a
// Client and a Host (as Send and SendOwn), not in a game alone, whose
// command runs at once with the world held (there it returns ErrWorldHeld
// after two seconds and gives nothing).
func Give[I comparable, T any](s Session[I], k *CommandKind[T], cmd T) (uint64, error) {
	p, err := k.encode(&cmd)
	if err != nil {
		return 0, err
	}
	return s.give(k, p)
}

// give is Give's work in a game alone; a Host has its own (SendOwn's).
func (l *Local[I]) give(k Command, payload []byte) (uint64, error) {
	op, _, err := l.runAlone(k, payload, true)
	return op, err
}

// runAlone runs command k with payload for the player of a game alone, at
// once, and returns its operation id and the game's refusal (nil: done);
// with receipts set, the Receipt goes to the observers. err is for a kind
// not in the Game's Commands, a Local that is not alone (a Host's), one
// closed (ErrClosed), and a codec that does not read back what it wrote.
func (l *Local[I]) runAlone(k Command, payload []byte, receipts bool) (op uint64, refusal, err error) {
	if _, err := commandIndex(l.g.Commands, k); err != nil {
		return 0, nil, err
	}
	d := k.def()
	if l.closed.Load() {
		return 0, nil, ErrClosed
	}
	if err := l.mu.outside("a command of a game alone (Give, RunAlone)", "give it after the callback returns: in a game alone it runs at once, with the world held"); err != nil {
		return 0, nil, err
	}
	l.Do(func(w *World) {
		switch {
		case w.Role != Alone:
			err = fmt.Errorf("tandem: a host's own player gives command %q through the Host (Give or SendOwn take the Host, not its Local), which saves it and answers with a receipt", d.name)
			return
		case l.closed.Load():
			err = ErrClosed
			return
		}
		l.ops++
		op = l.ops
		var malformed bool
		if refusal, malformed = d.run(w, Peer{ID: ecs.HostPeer}, payload); malformed {
			refusal, err = nil, fmt.Errorf("tandem: command %q does not read back what its codec wrote; fix its CommandCodec", d.name)
			return
		}
		if !receipts {
			return
		}
		rc := Receipt{Op: op, Command: d.name, Status: ReceiptDone, Frame: w.ECS.Frame()}
		if refusal != nil {
			rc.Status, rc.Reason = ReceiptRefused, reason(refusal)
		}
		for _, fn := range l.receipts.list() {
			fn(rc)
		}
	})
	return op, refusal, err
}

// OnReceipt adds fn to the observers of the receipts of the commands given
// with Give in a game alone: each once, as the command runs, with the world
// locked. Safe from any goroutine, inside callbacks, hooks and observers too.
// It returns the function that removes fn: from the next receipt on, it is
// not called.
func (l *Local[I]) OnReceipt(fn func(Receipt)) (remove func()) { return l.receipts.add(fn) }

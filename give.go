package tandem

import (
	"fmt"
	"sync"

	"github.com/tandem-go/tandem/ecs"
)

// Give gives a command of kind k with payload cmd for the player at this
// machine, whichever way the game is played, and returns its operation id; its
// Receipt comes to the Session's OnReceipt observers on all three. g is the
// Session (or a value of the game's own that embeds it), or its World: a
// system, a hook or a command handler has the World (Setup's, kept by the
// closure of a system it adds), not the Session.
//
// On a Client it is Send, on a Host SendOwn (the receipt once the save holding
// the command is durable). A system runs on every machine: one that gives
// what the player at this machine asked for (a key pressed) gives it on each,
// on a host for the host's own player; a host without a player of its own
// (dedicated) skips it (w.Role).
//
// Alone (NewLocal), given through the Session, the
// command runs at once with the kind's handler (Peer{ID: ecs.HostPeer}), as
// RunAlone does, and its receipt (done, or refused with the game's reason)
// goes to the observers before Give returns, on Give's goroutine with the
// world locked; given through the World, it runs at the next step's start,
// before the game's systems, as a host's own player's does, and its receipt
// goes to the observers then (at most MaxWithheld of them wait: 64; those
// waiting when the game alone is closed, which steps no more, do not run
// and get no receipt).
//
// It fails as those do: for a kind not in the Game's Commands, on a
// spectator, at the limit of commands without a receipt, on a closed
// session, and for a command its kind's codec does not read back (Read
// refuses what Append wrote: nothing is given); through the World during
// Setup, before the session that sends it exists. Safe from any goroutine;
// from inside a View or Do callback, a system, a hook or an observer on a
// Client and a Host (as Send and SendOwn), and through the World in a game
// alone. Through the Session of a game alone, whose command runs at once with
// the world held, not from there: it returns ErrWorldHeld after two seconds
// and gives nothing.
func Give[T any](g Giver, k *CommandKind[T], cmd T) (uint64, error) {
	p, err := k.encode(&cmd)
	if err != nil {
		return 0, err
	}
	return g.give(k, p)
}

// Giver is what Give gives a command through: a Session (a Local played
// alone, a Host, a Client, or a value of the game's own that embeds one), or
// a World, which the game's systems and hooks have.
type Giver interface {
	// give is Give's work. Unexported: a Giver is one of the above.
	give(k Command, payload []byte) (uint64, error)
}

// give is Give's work through a World: its session's.
func (w *World) give(k Command, payload []byte) (uint64, error) {
	if w.giver == nil {
		return 0, fmt.Errorf("tandem: command %q was given through the World in Game.Setup, before the session that sends it exists: give it from a system, hook or callback, which run once the game does", k.def().name)
	}
	return w.giver(k, payload)
}

// give is Give's work in a game alone; a Host has its own (SendOwn's).
func (l *Local[I]) give(k Command, payload []byte) (uint64, error) {
	op, _, err := l.runAlone(k, payload, true)
	return op, err
}

// aloneMail holds the commands given through the World of a game alone,
// for the next step's commands system. Its own lock: a system gives them
// with the world held.
type aloneMail struct {
	mu    sync.Mutex
	queue []aloneCommand
	spare []aloneCommand // the last step's queue, run: the next one's room
}

// aloneCommand is a command given through the World of a game alone.
type aloneCommand struct {
	op      uint64
	kind    Command
	payload []byte
}

// maxAloneWaiting bounds the commands of a game alone waiting for the next
// step: a host's default MaxWithheld.
const maxAloneWaiting = 64

// giveNext is Give's work through the World of a game alone: the command
// waits for the next step's start (runGiven).
func (l *Local[I]) giveNext(k Command, payload []byte) (uint64, error) {
	if _, err := commandIndex(l.g.Commands, k); err != nil {
		return 0, err
	}
	m := &l.later
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case l.closed.Load():
		return 0, ErrClosed
	case len(m.queue) >= maxAloneWaiting:
		return 0, fmt.Errorf("%w: %d commands given through the World wait for the next step of the game alone; give fewer in a step", ErrTooManyCommands, len(m.queue))
	}
	op := l.ops.Add(1)
	m.queue = append(m.queue, aloneCommand{op: op, kind: k, payload: payload})
	return op, nil
}

// runGiven runs, at a step's start, the commands given through the World of
// a game alone since the last, in the order given, and tells the receipts'
// observers.
func (l *Local[I]) runGiven(ew *ecs.World) {
	m := &l.later
	m.mu.Lock()
	q := m.queue
	m.queue, m.spare = m.spare[:0], nil
	m.mu.Unlock()
	defer func() {
		clear(q) // the payloads go
		m.mu.Lock()
		m.spare = q[:0]
		m.mu.Unlock()
	}()
	for _, c := range q {
		d := c.kind.def()
		refusal, malformed := d.run(l.w, Peer{ID: ecs.HostPeer}, c.payload)
		if malformed {
			// Give read it back before it waited: a codec whose Read
			// answers differently a second time.
			refusal = fmt.Errorf("tandem: command %q does not read back what its codec wrote; fix its CommandCodec", d.name)
		}
		l.answer(c.op, d.name, refusal, ew.Frame())
	}
}

// answer tells the receipts' observers of a game alone that command op of
// kind name ran at frame, done or refused.
func (l *Local[I]) answer(op uint64, name string, refusal error, frame ecs.Frame) {
	rc := Receipt{Op: op, Command: name, Status: ReceiptDone, Frame: frame}
	if refusal != nil {
		rc.Status, rc.Reason = ReceiptRefused, reason(refusal)
	}
	for _, fn := range l.receipts.list() {
		fn(rc)
	}
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
		op = l.ops.Add(1)
		var malformed bool
		if refusal, malformed = d.run(w, Peer{ID: ecs.HostPeer}, payload); malformed {
			refusal, err = nil, fmt.Errorf("tandem: command %q does not read back what its codec wrote; fix its CommandCodec", d.name)
			return
		}
		if receipts {
			l.answer(op, d.name, refusal, w.ECS.Frame())
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

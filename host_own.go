package tandem

import (
	"sync"
	"sync/atomic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/wire"
)

// The host's own player (ecs.HostPeer) gives commands as every player does:
// SendOwn queues one for the next frame's commands system, which runs it
// once per operation with the kind's handler, keeps and saves its receipt
// with the world it changed, and lets the receipt go (to Host.OnReceipt)
// once that save is durable. Its book and receipts are saved as a player's
// are, under its peer id, and restored with the world.

// ownCommands is the host's own player's side of the commands.
type ownCommands struct {
	pl    *player
	kinds map[uint64]uint8 // the kind of each operation without its receipt yet
	mail  ownMail
}

// ownMail is what SendOwn does without the world: it gives operation ids,
// and holds the commands given while the world was held (from an observer,
// a hook, a View or Do callback, or while another goroutine held it) until
// the commands system takes them. Its lock is taken inside the world's,
// never the other way round, and never held while an observer runs.
type ownMail struct {
	mu      sync.Mutex
	next    uint64 // the operation id of the next SendOwn
	queue   []queued
	observe observers[Receipt]
	// outstanding is the own player's receipts held or queued, as the
	// world last counted them (noteOwn): the mailbox counts them against
	// MaxWithheld with what it holds.
	outstanding atomic.Int64
}

func (h *Host[I]) initOwn() {
	h.own = ownCommands{pl: h.newPlayer(ecs.HostPeer, ""), kinds: map[uint64]uint8{}, mail: ownMail{next: 1}}
}

// takeMail queues the own player's commands given while the world was held,
// in the order they were given. The world is locked.
func (h *Host[I]) takeMail() {
	m := &h.own.mail
	m.mu.Lock()
	h.takeMailLocked()
	m.mu.Unlock()
}

// takeMailLocked is takeMail with the mailbox locked too.
func (h *Host[I]) takeMailLocked() {
	m := &h.own.mail
	for _, q := range m.queue {
		h.own.kinds[q.op] = q.kind
		h.own.pl.queued++
		h.cmds.queue = append(h.cmds.queue, q)
	}
	clear(m.queue)
	m.queue = m.queue[:0]
	h.noteOwn()
}

// dropOwn answers the own player's commands that were given and will never
// run (the host closes or stopped): each goes to the OnReceipt observers as
// refused, with why, so that none is lost without a word. The world is
// locked; SendOwn refuses from now on (life.shut).
func (h *Host[I]) dropOwn(why string) {
	h.takeMail()
	q := h.cmds.queue[:0]
	var dropped []queued
	for _, c := range h.cmds.queue {
		if c.peer == ecs.HostPeer {
			dropped = append(dropped, c)
			continue
		}
		q = append(q, c)
	}
	h.cmds.queue = q
	h.own.pl.queued = 0
	h.noteOwn()
	observe := h.own.mail.observe.list()
	frame := ecs.Frame(0)
	if h.w != nil {
		frame = h.w.ECS.Frame()
	}
	h.mu.enter()
	defer h.mu.exit()
	for _, c := range dropped {
		delete(h.own.kinds, c.op)
		rc := Receipt{Op: c.op, Command: h.g.Commands[c.kind].def().name, Status: ReceiptRefused, Frame: frame, Reason: why}
		for _, fn := range observe {
			fn(rc)
		}
	}
}

// noteOwn copies the own player's receipts held or queued for the mailbox's
// bound. The world is locked.
func (h *Host[I]) noteOwn() {
	h.own.mail.outstanding.Store(int64(h.own.pl.held.Len() + h.own.pl.queued))
}

// restoreOwn gives the own player the book a save kept of it.
func (h *Host[I]) restoreOwn(pl *player, floor uint64, r *restoredPeople) {
	own := h.own.pl
	own.token = pl.token
	if gone := own.book.Restore(floor, r.receipts[ecs.HostPeer]); len(gone) > 0 {
		for _, e := range gone {
			h.saves.tracker.Delete(receiptKey(ecs.HostPeer, e.Op))
		}
		h.putPlayer(own)
	}
	// An id SendOwn gave while the world was released stays given.
	m := &h.own.mail
	m.mu.Lock()
	m.next = max(m.next, own.book.Floor()+1)
	for _, e := range own.book.Entries() {
		m.next = max(m.next, e.Op+1)
	}
	m.mu.Unlock()
}

// SendOwn gives a command of kind k with payload cmd for the host's own
// player (ecs.HostPeer) and returns its operation id. It takes the path of
// every player's command: the next frame's commands system runs k's handler
// once, with Peer{ID: ecs.HostPeer}; its receipt is kept and saved with the
// world the command changed, and goes to the OnReceipt observers once that
// save is durable (at once without a store). It fails for a kind not in the
// Game's Commands, while the host closes (ErrClosed), while MaxWithheld
// receipts of the own player wait for a save (ErrTooManyCommands), and for
// a command its kind's codec does not read back (as Send). Safe from
// any goroutine, inside callbacks, hooks and observers too: a command given
// while the world is locked waits in a mailbox (at most MaxWithheld) for
// the next frame's commands system, as any other.
func SendOwn[I comparable, T any](h *Host[I], k *CommandKind[T], cmd T) (uint64, error) {
	p, err := k.encode(&cmd)
	if err != nil {
		return 0, err
	}
	return h.give(k, p)
}

// give is SendOwn's work, and Give's on a Host.
func (h *Host[I]) give(k Command, payload []byte) (uint64, error) {
	kind, err := commandIndex(h.g.Commands, k)
	if err != nil {
		return 0, err
	}
	if !h.mu.TryLock() {
		return h.mail(uint8(kind), payload)
	}
	defer h.mu.Unlock()
	if h.life.stopping() {
		return 0, ErrClosed
	}
	m := &h.own.mail
	m.mu.Lock()
	defer m.mu.Unlock()
	h.takeMailLocked() // those given before this one go first
	pl := h.own.pl
	if pl.held.Len()+pl.queued >= h.cfg.MaxWithheld {
		return 0, ErrTooManyCommands
	}
	op := m.next
	m.next++
	h.own.kinds[op] = uint8(kind)
	pl.queued++
	h.cmds.queue = append(h.cmds.queue, queued{peer: ecs.HostPeer, op: op, kind: uint8(kind), payload: payload, sum: command.SumOf(uint8(kind), payload)})
	h.noteOwn()
	return op, nil
}

// mail gives a command while someone holds the world (this host's own
// observer, hook or callback, or another goroutine): it waits in the mailbox
// for the commands system.
func (h *Host[I]) mail(kind uint8, payload []byte) (uint64, error) {
	m := &h.own.mail
	m.mu.Lock()
	defer m.mu.Unlock()
	if h.life.shut.Load() {
		return 0, ErrClosed
	}
	if int(m.outstanding.Load())+len(m.queue) >= h.cfg.MaxWithheld {
		return 0, ErrTooManyCommands
	}
	op := m.next
	m.next++
	m.queue = append(m.queue, queued{peer: ecs.HostPeer, op: op, kind: kind, payload: payload, sum: command.SumOf(kind, payload)})
	return op, nil
}

// OnReceipt adds fn to the observers of the host's own player's receipts
// (SendOwn): each command's answer, once, on the simulation goroutine, when
// the save holding it is durable. Safe from any goroutine, inside callbacks,
// hooks and observers too. It returns the function that removes fn: from
// the next receipt on, it is not called.
func (h *Host[I]) OnReceipt(fn func(Receipt)) (remove func()) { return h.own.mail.observe.add(fn) }

// ownReceipt delivers one of the own player's receipts to the observers.
func (h *Host[I]) ownReceipt(msg []byte) {
	var r wire.Receipt
	if err := r.Decode(msg); err != nil {
		return // the host encoded it: cannot happen
	}
	kind, ok := h.own.kinds[r.Op]
	if !ok {
		return // answered already
	}
	delete(h.own.kinds, r.Op)
	rc := Receipt{Op: r.Op, Command: h.g.Commands[kind].def().name, Status: r.Status, Frame: ecs.Frame(r.Frame), Reason: r.Reason}
	observe := h.own.mail.observe.list()
	h.mu.enter()
	defer h.mu.exit()
	for _, fn := range observe {
		fn(rc)
	}
}

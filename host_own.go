package tandem

import (
	"github.com/tandem-go/tandem/ecs"
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
	pl      *player
	next    uint64           // the operation id of the next SendOwn
	kinds   map[uint64]uint8 // the kind of each operation without its receipt yet
	observe []func(Receipt)
}

func (h *Host[I]) initOwn() {
	h.own = ownCommands{pl: h.newPlayer(ecs.HostPeer, ""), next: 1, kinds: map[uint64]uint8{}}
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
	h.own.next = max(h.own.next, own.book.Floor()+1)
	for _, e := range own.book.Entries() {
		h.own.next = max(h.own.next, e.Op+1)
	}
}

// SendOwn gives a command of kind k with payload cmd for the host's own
// player (ecs.HostPeer) and returns its operation id. It takes the path of
// every player's command: the next frame's commands system runs k's handler
// once, with Peer{ID: ecs.HostPeer}; its receipt is kept and saved with the
// world the command changed, and goes to the OnReceipt observers once that
// save is durable (at once without a store). It fails for a kind not in the
// Game's Commands, while the host closes (ErrClosed), and while MaxWithheld
// receipts of the own player wait for a save (ErrTooManyCommands). Safe from
// any goroutine, except from inside a View or Do callback, a hook or an
// observer.
func SendOwn[I comparable, T any](h *Host[I], k *CommandKind[T], cmd T) (uint64, error) {
	return h.give(k, k.encode(&cmd))
}

// give is SendOwn's work, and Give's on a Host.
func (h *Host[I]) give(k Command, payload []byte) (uint64, error) {
	kind, err := commandIndex(h.g.Commands, k)
	if err != nil {
		return 0, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.life.stopping() {
		return 0, ErrClosed
	}
	pl := h.own.pl
	if pl.held.Len()+pl.queued >= h.cfg.MaxWithheld {
		return 0, ErrTooManyCommands
	}
	op := h.own.next
	h.own.next++
	h.own.kinds[op] = uint8(kind)
	pl.queued++
	h.cmds.queue = append(h.cmds.queue, queued{peer: ecs.HostPeer, op: op, kind: uint8(kind), payload: payload})
	return op, nil
}

// OnReceipt adds fn to the observers of the host's own player's receipts
// (SendOwn): each command's answer, once, on the simulation goroutine, when
// the save holding it is durable. Safe from any goroutine, except from
// inside a View or Do callback, a hook or an observer (they run with the
// world locked).
func (h *Host[I]) OnReceipt(fn func(Receipt)) {
	h.mu.Lock()
	h.own.observe = append(h.own.observe, fn)
	h.mu.Unlock()
}

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
	for _, fn := range h.own.observe {
		fn(rc)
	}
}

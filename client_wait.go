package tandem

import (
	"context"
	"fmt"
)

// heardKept is how many of the newest receipts a client keeps for
// WaitReceipt to find after they came.
const heardKept = 64

// receiptWaits is what WaitReceipt needs of a client's commands: the
// newest receipts heard, and the waiters of those to come. Guarded by
// clientCommands.mu.
type receiptWaits struct {
	heard   [heardKept]Receipt // a ring, by arrival
	next    int                // where the next receipt goes
	waiters map[uint64][]chan Receipt
	ended   bool // the session ended: waiters are told, none added
}

// took records rc and hands it to its waiters.
func (rw *receiptWaits) took(rc Receipt) {
	rw.heard[rw.next%heardKept] = rc
	rw.next++
	for _, ch := range rw.waiters[rc.Op] {
		ch <- rc // buffered: never blocks
	}
	delete(rw.waiters, rc.Op)
}

// find returns the receipt of op among those kept.
func (rw *receiptWaits) find(op uint64) (Receipt, bool) {
	for i := range min(rw.next, heardKept) {
		if rc := rw.heard[i]; rc.Op == op {
			return rc, true
		}
	}
	return Receipt{}, false
}

// end tells every waiter that no receipt will come.
func (rw *receiptWaits) end() {
	rw.ended = true
	for op, chs := range rw.waiters {
		for _, ch := range chs {
			close(ch)
		}
		delete(rw.waiters, op)
	}
}

// drop removes the waiter ch of op (its wait was given up).
func (rw *receiptWaits) drop(op uint64, ch chan Receipt) {
	chs := rw.waiters[op]
	for i, w := range chs {
		if w == ch {
			chs = append(chs[:i], chs[i+1:]...)
			break
		}
	}
	if len(chs) == 0 {
		delete(rw.waiters, op)
	} else {
		rw.waiters[op] = chs
	}
}

// WaitReceipt waits for the receipt of the command op (the operation id
// Send or Give returned) and returns it: at once if it came already (the
// client keeps the newest 64 it heard), else when it comes. It returns
// ctx's error if ctx ends first, ErrClosed once the session ended (Err
// says why), and an error at once for an op the client neither holds nor
// heard of lately. A command sent when the session ended unanswered gets
// the client's own ReceiptUnknown then (see ReceiptUnknown), one held and
// never sent its own ReceiptExpired; after the client's own Close a wait
// ends with ErrClosed.
//
// It is for a goroutine other than the one that runs the client (a tool, a
// bot, a menu's goroutine, a test over QUIC): receipts arrive on the
// simulation goroutine, so a wait there never ends, and inside a callback,
// system, hook or observer it returns ErrWorldHeld after two seconds. There
// a game uses OnReceipt; a tandemtest rig, StepUntilReceipt. A Run that
// returns because its context ended leaves the session open: a wait then
// ends with its own context, or at Close.
func (c *Client[I]) WaitReceipt(ctx context.Context, op uint64) (Receipt, error) {
	if err := ctx.Err(); err != nil {
		return Receipt{}, err
	}
	if err := c.mu.outside("Client.WaitReceipt", "hear receipts with OnReceipt there"); err != nil {
		return Receipt{}, err
	}
	cc := &c.cmds
	cc.mu.Lock()
	rw := &cc.waits
	if rc, ok := rw.find(op); ok {
		cc.mu.Unlock()
		return rc, nil
	}
	held := false
	for _, s := range cc.out.Pending() {
		held = held || s.Op == op
	}
	switch {
	case rw.ended:
		cc.mu.Unlock()
		return Receipt{}, ErrClosed
	case !held:
		cc.mu.Unlock()
		return Receipt{}, fmt.Errorf("tandem: WaitReceipt(%d): no command of that operation id waits for its receipt, and none of the client's newest %d receipts is its: give the id Send returned, and wait for it before %d more come", op, heardKept, heardKept)
	}
	ch := make(chan Receipt, 1)
	if rw.waiters == nil {
		rw.waiters = map[uint64][]chan Receipt{}
	}
	rw.waiters[op] = append(rw.waiters[op], ch)
	cc.mu.Unlock()
	select {
	case rc, ok := <-ch:
		if !ok {
			return Receipt{}, ErrClosed
		}
		return rc, nil
	case <-ctx.Done():
		cc.mu.Lock()
		rw.drop(op, ch)
		cc.mu.Unlock()
		select {
		case rc, ok := <-ch: // it came meanwhile
			if ok {
				return rc, nil
			}
		default:
		}
		return Receipt{}, ctx.Err()
	}
}

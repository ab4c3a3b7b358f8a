package tandem

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// clientCommands is a client's side of commands: the outbox of those without
// a receipt, which connection each went out on, and who hears receipts.
//
// mu guards out, sent and stats, so that Send, OnReceipt and the
// counts never wait for the world (they are called from observers, which
// run with it locked); conn and admitted are the world's, and commands go
// out only with the world locked. mu is taken inside the world lock, never
// the other way round, and never held while an observer runs.
type clientCommands struct {
	mu       sync.Mutex
	out      *command.Outbox
	sent     map[uint64]sentOn // when and on which connection each went last
	observe  observers[Receipt]
	waits    receiptWaits
	stats    CommandStats
	conn     uint32 // counts admissions: a new one sends everything again
	admitted bool
	// due is set when a command was added while someone else held the
	// world (an observer of this client, another goroutine's View): the
	// holder sends it as it lets the world go (publish).
	due atomic.Bool
}

// sentOn is when a held command went last, on which connection, and how
// long to wait for its receipt before sending it again.
type sentOn struct {
	conn uint32
	at   time.Time
	wait time.Duration
}

// A command without a receipt is sent again after resendAfter, then after
// twice as long each time, up to resendMax: the host dropped it unanswered
// (it was closing, or more waited their turn than it keeps), or its store
// is slow (the copy is
// then known from the host's book, and costs a few bytes: answered with
// the kept receipt, or, while that first answer waits for the save, by
// that answer when it goes).
const (
	resendAfter = 2 * time.Second
	resendMax   = 30 * time.Second
)

// CommandStats counts a client's commands.
type CommandStats struct {
	// Sent counts commands sent (again after a reconnect, or after waiting
	// long for a receipt, included), Resent those sent again on one
	// connection, Receipts the receipts taken, Stray receipts of operations
	// the client did not hold (answers to a copy sent twice), Malformed
	// the host's lane messages left to the game that were not a receipt on
	// the commands lane (each also counts against the connection).
	// Unknown counts the commands answered ReceiptUnknown by the client
	// itself (among Receipts), Unsent those it answered ReceiptExpired
	// itself, never sent when the session ended or the host let the player
	// that gave them go (among Receipts too).
	// Abandoned counts the commands still waiting for their receipt when
	// the game closed the client (Close): none comes for them (those sent
	// may have run; look at the world when the player is back).
	Sent, Resent, Receipts, Stray, Malformed, Unknown, Unsent, Abandoned uint64
}

// abandon counts the commands waiting for their receipt as abandoned: the
// game closed the client.
func (cc *clientCommands) abandon() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.stats.Abandoned += uint64(len(cc.out.Pending()))
}

func (cc *clientCommands) init(first uint64, clk interface{ Now() time.Time }) {
	if first == 0 {
		first = uint64(max(1, clk.Now().UnixMicro()))
	}
	cc.out = command.NewOutbox(first, command.DefaultPending)
	cc.sent = map[uint64]sentOn{}
}

// sendCommand holds a new command and sends it now if the world is free and
// the client admitted; else whoever holds the world sends it as it lets it
// go (an observer's Send: at the end of the step or call it runs in).
func (c *Client[I]) sendCommand(kind uint8, payload []byte) (uint64, error) {
	if c.cfg.Spectator {
		return 0, ErrSpectator
	}
	c.status.mu.Lock()
	closed := c.status.closed
	c.status.mu.Unlock()
	if closed {
		return 0, ErrClosed // nothing would send it, nor answer it
	}
	cc := &c.cmds
	cc.mu.Lock()
	s, err := cc.out.Add(kind, payload, c.cmdFrame.Load())
	if errors.Is(err, command.ErrTooMany) {
		cc.hasten()
	}
	cc.mu.Unlock()
	if err != nil {
		return 0, err
	}
	c.status.mu.Lock()
	closed = c.status.closed
	c.status.mu.Unlock()
	if closed {
		// The session ended meanwhile, perhaps after its end answered what
		// the client held: taken back unless that answer took it.
		cc.mu.Lock()
		_, held := cc.out.Receipt(s.Op)
		cc.mu.Unlock()
		if held {
			return 0, ErrClosed
		}
		return s.Op, nil
	}
	cc.due.Store(true)
	if c.mu.TryLock() { // the world was free: send now
		c.publish() // flushDue, and the figures with what went out
		c.mu.Unlock()
	}
	return s.Op, nil
}

// hasten brings the next send of the oldest command held, which keeps a
// new one waiting (its receipt is what frees the outbox), to at most
// resendAfter since its last: its wait may have doubled to resendMax while
// the host dropped it. Under cc.mu.
func (cc *clientCommands) hasten() {
	p := cc.out.Pending()
	if len(p) == 0 {
		return
	}
	if on, ok := cc.sent[p[0].Op]; ok && on.wait > resendAfter {
		on.wait = resendAfter
		cc.sent[p[0].Op] = on
		cc.due.Store(true)
	}
}

// flushDue sends the commands added while someone else held the world. The
// world is locked.
func (c *Client[I]) flushDue() {
	if c.cmds.due.Swap(false) {
		c.flushCommands()
	}
}

// flushCommands sends, in id order while the lane takes them, every held
// command not yet sent on this connection or waiting for its receipt longer
// than it should. The world is locked.
func (c *Client[I]) flushCommands() {
	cc := &c.cmds
	if !cc.admitted || c.session.State() == session.Closed {
		return
	}
	now := c.clk.Now()
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for _, s := range cc.out.Pending() {
		on, ok := cc.sent[s.Op]
		if ok && on.conn == cc.conn && now.Sub(on.at) < on.wait {
			continue
		}
		if err := c.session.Conn().SendLane(transport.LaneCommands, s.Msg); err != nil {
			return // the lane is full or closed: try again at the next step
		}
		switch {
		case !ok || on.conn != cc.conn:
			on.wait = resendAfter
		default:
			on.wait = min(2*on.wait, resendMax)
			cc.stats.Resent++
		}
		on.conn, on.at = cc.conn, now
		cc.sent[s.Op] = on
		cc.stats.Sent++
	}
}

// admittedCommands notes an admission on a new connection (a join, a
// resume): every held command goes again, to run as it comes.
func (c *Client[I]) admittedCommands() {
	c.cmds.admitted = true
	c.cmds.conn++
	c.cmdFrame.Store(0) // until the next step: the frames may be another host's
	c.cmds.mu.Lock()
	c.cmds.out.Unstamp() // their frames were of the connection gone
	c.cmds.mu.Unlock()
	c.flushCommands()
}

// laneMessage takes what the host sends on lanes the session leaves to the
// client: receipts on the commands lane. Anything else (a game lane kind: a
// Game has none; a receipt off its lane, or one that does not decode) is
// counted, and counts as malformed against the connection.
func (c *Client[I]) laneMessage(lane transport.Lane, msg []byte) {
	cc := &c.cmds
	var r wire.Receipt
	if lane != transport.LaneCommands || r.Decode(msg) != nil {
		cc.mu.Lock()
		cc.stats.Malformed++
		cc.mu.Unlock()
		c.session.Conn().ReportMalformed(errNotTaken)
		return
	}
	cc.mu.Lock()
	s, ok := cc.out.Receipt(r.Op)
	if !ok {
		cc.stats.Stray++
		cc.mu.Unlock()
		return
	}
	c.answer(s, Receipt{Op: r.Op, Status: r.Status, Frame: ecs.Frame(r.Frame), Reason: r.Reason})
}

// answer ends the held command s with its receipt rc, with cc.mu held, which
// it lets go, and tells the receipt's observers.
func (c *Client[I]) answer(s command.Sent, rc Receipt) {
	cc := &c.cmds
	delete(cc.sent, rc.Op)
	cc.stats.Receipts++
	if int(s.Kind) < len(c.g.Commands) {
		rc.Command = c.g.Commands[s.Kind].def().name
	}
	cc.waits.took(rc)
	cc.mu.Unlock()
	c.mu.enter()
	defer c.mu.exit()
	for _, fn := range cc.observe.list() {
		fn(rc)
	}
}

// The Reasons of a ReceiptUnknown: the host let the player go (a refused
// resume), or the session ended (the host shut down, its world was taken,
// the connection broke for good) before the host answered.
const (
	unknownReason = "the host let this player go before answering, and the client joins again as a new player: the command may have run or not, and is not sent again"
	endedReason   = "the session ended before the host answered: the command may have run or not"
)

// orphanCommands answers ReceiptUnknown with reason, in id order, to every
// command sent and not answered: to the player the host let go (a refused
// resume: sent to the new player, it would run again), or when the session
// ended. Those never sent are expireUnsent's.
func (c *Client[I]) orphanCommands(reason string) {
	cc := &c.cmds
	cc.mu.Lock()
	ops := slices.Sorted(maps.Keys(cc.sent))
	cc.mu.Unlock()
	c.answerOwn(ops, ReceiptUnknown, reason, &cc.stats.Unknown)
}

// answerOwn answers status with reason to each of ops (in their order)
// the client still holds, counting each in *n; one it holds no more (a
// receipt came meanwhile) leaves the sent set.
func (c *Client[I]) answerOwn(ops []uint64, status ReceiptStatus, reason string, n *uint64) {
	cc := &c.cmds
	for _, op := range ops {
		cc.mu.Lock()
		s, ok := cc.out.Receipt(op)
		if !ok {
			delete(cc.sent, op)
			cc.mu.Unlock()
			continue
		}
		*n++
		c.answer(s, Receipt{Op: op, Status: status, Reason: reason}) // lets cc.mu go
	}
}

// The Reasons of the client's own ReceiptExpired, for a command still
// held, never sent: the session ended, or the host let the player it was
// given for go (a refused resume of a client that played).
const (
	unsentReason = "the session ended before the command was sent: it did not run"
	letGoReason  = "the host let this player go before the command was sent, and the client joins again as a new player: it did not run, and is not sent for the new one; give it again if it is meant for the new player"
)

// expireUnsent answers ReceiptExpired with reason, in id order, to every
// command the client holds that never went (sent while the link was down,
// then the session ended): it did not run and will not. Those sent are
// answered by orphanCommands before it.
func (c *Client[I]) expireUnsent(reason string) { c.expireHeld(c.heldUnsent(), reason) }

// heldUnsent returns the operations of the commands the client holds and
// never sent, in id order.
func (c *Client[I]) heldUnsent() []uint64 {
	cc := &c.cmds
	cc.mu.Lock()
	defer cc.mu.Unlock()
	var ops []uint64
	for _, p := range cc.out.Pending() {
		if _, sent := cc.sent[p.Op]; !sent {
			ops = append(ops, p.Op)
		}
	}
	return ops
}

// expireHeld answers ReceiptExpired with reason to each of ops the client
// still holds: those listed before any receipt's observer ran, so that one
// an observer gives again (as the reason asks) goes, the new player's.
func (c *Client[I]) expireHeld(ops []uint64, reason string) {
	c.answerOwn(ops, ReceiptExpired, reason, &c.cmds.stats.Unsent)
}

// OnReceipt adds fn to the observers of receipts: each command's answer,
// once, on the simulation goroutine, as it arrives, with the world locked.
// Safe from any goroutine, inside callbacks, hooks and observers too (one
// added by an observer hears the receipts that come after). It returns the
// function that removes fn: from the next receipt on, it is not called.
func (c *Client[I]) OnReceipt(fn func(Receipt)) (remove func()) { return c.cmds.observe.add(fn) }

// PendingCommands returns how many commands wait for their receipt. Safe from
// any goroutine, inside callbacks, hooks and observers too.
func (c *Client[I]) PendingCommands() int {
	c.cmds.mu.Lock()
	defer c.cmds.mu.Unlock()
	return len(c.cmds.out.Pending())
}

// CommandStats returns the client's command counts. Safe from any goroutine,
// inside callbacks, hooks and observers too.
func (c *Client[I]) CommandStats() CommandStats {
	c.cmds.mu.Lock()
	defer c.cmds.mu.Unlock()
	return c.cmds.stats
}

// errSpectatorInput is the malformed-message reason of a spectator that
// sends input.
var errSpectatorInput = errors.New("tandem: a spectator sent input or a command; spectators watch")

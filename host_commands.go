package tandem

import (
	"errors"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// hostCommands is the host's queue of commands taken this frame, run by the
// commands system at the start of the frame, each player's in the order
// they came, the players taking turns (fair), and the players whose
// commands wait their turn (player.waiting).
type hostCommands struct {
	queue   []queued
	waiters []ecs.PeerID
	// turn picks which player's command goes first of a frame's (fair):
	// it moves on each frame commands of several players ran.
	turn  uint32
	peers []ecs.PeerID   // scratch of fair
	ranks []int          // scratch of fair
	keyed []keyedCommand // scratch of fair
}

// fair orders the frame's commands so that players take turns, one
// command each in turn, each player's in the order it sent them, the player
// to go first moving on each frame: of two players' commands that reach
// the host in one frame (one cell, two builders), neither's always wins.
// The queue comes in the order the players' connections were read, which
// is the same every frame.
func (hc *hostCommands) fair() {
	q := hc.queue
	if len(q) < 2 {
		return
	}
	peers := hc.peers[:0]
	for i := range q {
		if !slices.Contains(peers, q[i].peer) {
			peers = append(peers, q[i].peer)
		}
	}
	hc.peers = peers
	if len(peers) < 2 {
		return
	}
	slices.Sort(peers)
	n := len(peers)
	start := int(hc.turn % uint32(n))
	hc.turn++
	// Each command's place: its rank among its player's, then its
	// player's place in the turn.
	ranks := hc.ranks[:0]
	for range n {
		ranks = append(ranks, 0)
	}
	keyed := hc.keyed[:0]
	for i := range q {
		at, _ := slices.BinarySearch(peers, q[i].peer)
		keyed = append(keyed, keyedCommand{key: ranks[at]*n + (at-start+n)%n, q: q[i]})
		ranks[at]++
	}
	slices.SortFunc(keyed, func(a, b keyedCommand) int { return a.key - b.key })
	for i := range keyed {
		q[i] = keyed[i].q
	}
	clear(keyed)
	hc.keyed, hc.ranks = keyed[:0], ranks[:0]
}

// keyedCommand is a command and its place in the frame's turns (fair).
type keyedCommand struct {
	key int
	q   queued
}

// waitingCommands is how many of a player's commands may wait their turn
// past its rate (HostConfig.CommandRate) or its receipts waiting for a save
// (MaxWithheld): a second's worth, and at least the commands a client holds
// without a receipt (command.DefaultPending), so that an honest client's,
// all sent again at once when it resumes, wait and none is dropped (a
// dropped one, sent again seconds later, ran after newer ones); at most
// maxWaitingCommands (a rate set high to take every command bounds no
// memory).
func (h *Host[I]) waitingCommands() int {
	return int(min(max(command.DefaultPending, math.Ceil(h.cfg.CommandRate)), maxWaitingCommands))
}

const maxWaitingCommands = 256

type queued struct {
	peer    ecs.PeerID
	op      uint64
	kind    uint8
	payload []byte
	sum     command.Sum // the digest of kind and payload, taken once as it came
	// at is the host frame it runs at the earliest: the one its client
	// gave it at (wire.Command.Frame), at most maxCommandLead past the
	// frame it came at; 0 for as it comes.
	at ecs.Frame
	// waited: its frame came and its turn did not (the player's rate,
	// MaxWithheld, or others before it that wait theirs): counted in
	// HostStats.Waited, once.
	waited bool
}

// maxCommandLead bounds, in frames, how far past the host's frame a client
// may give a command: as far as an input may be stamped ahead
// (predict.HostInputConfig.MaxAhead's default), 2 s at 60 Hz. A command
// given further on runs that many frames after it came: an honest client's
// frame is ahead of its host's by its lead, a few frames (one admitted on
// a new connection sends what it held to run as it comes, for a host
// restarted from an older save is behind their frames), and a client that
// says otherwise holds its own commands back, no one else's, and for 2 s
// at most.
const maxCommandLead = 120

// errNotTaken is the malformed-message reason of a message a Game has no use
// for: a game's own datagram or lane kind, or a command or receipt off its
// lane.
var errNotTaken = errors.New("tandem: a message of a kind this game does not take, or off its lane")

// errMalformedCommand is the malformed-message reason of a command that
// does not decode, or names no command kind of the game.
var errMalformedCommand = errors.New("tandem: a command that does not decode, or of no kind the game has")

// laneMessage takes a peer's lane messages the session leaves to the host:
// commands on the commands lane. A command is queued for the frame's
// commands system; given at a frame to come (its client is ahead of the
// host), past the player's rate, or with too many of its receipts
// waiting for a save, or behind others that wait, it waits its turn
// (waitingCommands of them), so the player's commands run in the order
// sent; past that, or when the host is closing, it is dropped without an
// answer (the player sends it again). What does not decode, a spectator's command,
// and a message on another lane (a command elsewhere, a game lane kind: a
// Game has none), counts as malformed.
func (h *Host[I]) laneMessage(peer ecs.PeerID, lane transport.Lane, msg []byte) {
	if lane != transport.LaneCommands {
		h.stats.Malformed++
		h.session.ReportMalformed(peer, errNotTaken)
		return
	}
	var c wire.Command
	if err := c.Decode(msg); err != nil || int(c.Kind) >= len(h.g.Commands) || h.people.spectating(peer) {
		h.stats.Malformed++
		if h.people.spectating(peer) {
			h.session.ReportMalformed(peer, errSpectatorInput)
		} else {
			h.session.ReportMalformed(peer, errMalformedCommand)
		}
		return
	}
	pl := h.people.players[peer]
	if pl == nil || h.life.closing {
		h.stats.Dropped++
		return
	}
	now := h.w.ECS.Frame()
	var at ecs.Frame
	if c.Frame > uint32(now) {
		at = ecs.Frame(min(uint64(c.Frame), uint64(now)+maxCommandLead)) // (frames end at 2³²−1)
	}
	sum := command.SumOf(c.Kind, c.Payload)
	if h.taken(pl, peer, c.Op, sum) {
		// Sent again (a resume sends every command without a receipt)
		// while the first waits or is queued: that one's receipt answers.
		h.stats.Again++
		return
	}
	v, _ := pl.book.Check(c.Op, sum)
	if v != command.Run {
		at = 0 // it runs nothing: its answer waits for no frame
	}
	if v != command.Run && pl.held.Len()+pl.queued < h.cfg.MaxWithheld {
		// One the book answers (it ran, its receipt lost or still on its
		// way) runs nothing: it takes no turn of the rate and waits for none,
		// so that copies sent again do not fill the waiting room ahead of new
		// ones; its answer still counts against MaxWithheld (a flood of old
		// ids is held to it, as new commands are).
		pl.queued++
		h.cmds.queue = append(h.cmds.queue, queued{peer: peer, op: c.Op, kind: c.Kind, payload: append([]byte(nil), c.Payload...), sum: sum})
		return
	}
	// Each command queued this frame will hold a receipt too. One given
	// at a frame to come waits for it, and those after it wait behind it.
	if at != 0 || len(pl.waiting) > 0 || pl.held.Len()+pl.queued >= h.cfg.MaxWithheld || !pl.limit.Allow(h.clk.Now()) {
		if len(pl.waiting) >= h.waitingCommands() {
			h.stats.Dropped++
			return
		}
		if len(pl.waiting) == 0 {
			h.cmds.waiters = append(h.cmds.waiters, peer)
		}
		if at != 0 {
			h.stats.Ahead++
		}
		// Counted in Waited by releaseWaiting if it cannot run at its
		// frame, this one's at the latest.
		pl.waiting = append(pl.waiting, queued{peer: peer, op: c.Op, kind: c.Kind, payload: append([]byte(nil), c.Payload...), sum: sum, at: at})
		return
	}
	pl.queued++
	h.cmds.queue = append(h.cmds.queue, queued{peer: peer, op: c.Op, kind: c.Kind, payload: append([]byte(nil), c.Payload...), sum: sum})
}

// taken reports whether the player's command op, with the content whose
// digest is sum, waits its turn or is queued for this frame's run. One of
// other content is not: it takes its turn, and the book answers it Conflict
// once the first ran.
func (h *Host[I]) taken(pl *player, peer ecs.PeerID, op uint64, sum command.Sum) bool {
	for i := range pl.waiting {
		if w := &pl.waiting[i]; w.op == op && w.sum == sum {
			return true
		}
	}
	if pl.queued == 0 {
		return false
	}
	for i := range h.cmds.queue {
		if q := &h.cmds.queue[i]; q.peer == peer && q.op == op && q.sum == sum {
			return true
		}
	}
	return false
}

// releaseWaiting queues, in the order they came, the waiting commands of
// each player (laneMessage) whose frame has come and that its rate and its
// receipts waiting for a save now allow.
func (h *Host[I]) releaseWaiting() {
	if len(h.cmds.waiters) == 0 {
		return
	}
	now := h.clk.Now()
	frame := h.w.ECS.Frame()
	kept := h.cmds.waiters[:0]
	for _, id := range h.cmds.waiters {
		pl := h.people.players[id]
		if pl == nil || len(pl.waiting) == 0 {
			continue // left since
		}
		n := 0
		for n < len(pl.waiting) && pl.waiting[n].at <= frame && pl.held.Len()+pl.queued < h.cfg.MaxWithheld && pl.limit.Allow(now) {
			pl.queued++
			h.cmds.queue = append(h.cmds.queue, pl.waiting[n])
			n++
		}
		for i := n; i < len(pl.waiting); i++ {
			if w := &pl.waiting[i]; w.at <= frame && !w.waited {
				w.waited = true // due, and held by its turn or by one before it
				h.stats.Waited++
			}
		}
		left := copy(pl.waiting, pl.waiting[n:])
		clear(pl.waiting[left:])
		pl.waiting = pl.waiting[:left]
		if left > 0 {
			kept = append(kept, id)
		}
	}
	h.cmds.waiters = kept
}

// runCommands is the commands system: each command taken this frame is run
// once per operation (its receipt kept and saved), or answered from the
// player's book; every answer waits for the save that holds it.
func (h *Host[I]) runCommands() {
	h.takeMail()
	h.releaseWaiting()
	h.cmds.fair()
	q := h.cmds.queue
	if len(q) == 0 {
		return
	}
	frame := h.w.ECS.Frame()
	gen := h.nextGen()
	for i := range q {
		c := &q[i]
		pl := h.people.players[c.peer]
		if c.peer == ecs.HostPeer {
			pl = h.own.pl
		}
		if pl == nil {
			continue // left since
		}
		pl.queued = max(0, pl.queued-1)
		v, kept := pl.book.Check(c.op, c.sum)
		var msg []byte
		switch v {
		case command.Run:
			err, malformed := h.runHandler(c.kind, c.op, Peer{ID: pl.id, Name: pl.name}, c.payload)
			if malformed {
				// The codec's Read refused it: counted against the peer's
				// connection, and refused with Read's word (a client of
				// another build learns why rather than sending it again),
				// but not counted as a command run.
				h.stats.Malformed++
				h.session.ReportMalformed(c.peer, errMalformedCommand)
			}
			r := wire.Receipt{Op: c.op, Status: wire.ReceiptDone, Frame: uint32(frame)}
			if err != nil {
				r.Status, r.Reason = wire.ReceiptRefused, reason(err)
			}
			msg, _ = r.Encode(nil)
			e := command.Entry{Op: c.op, Sum: c.sum, Receipt: msg}
			gone, ok := pl.book.Add(e)
			if h.saves != nil {
				h.saves.tracker.Put(receiptKey(pl.id, c.op), command.AppendEntry(nil, &e))
				if ok {
					h.saves.tracker.Delete(receiptKey(pl.id, gone.Op))
				}
				if ok || (pl == h.own.pl && pl.book.Len() == 1) {
					h.putPlayer(pl) // its floor rose, or the own player's first receipt needs its record
				}
			}
			if !malformed {
				h.stats.Commands++
			}
		case command.Again:
			msg = kept.Receipt
			h.stats.Again++
			if pl.held.Holds(msg) {
				// Its first answer waits for the save still, and goes
				// with it: a second would take a place of MaxWithheld
				// from a command not yet run.
				continue
			}
		case command.Conflict:
			msg, _ = wire.Receipt{Op: c.op, Status: wire.ReceiptConflict}.Encode(nil)
			h.stats.Conflicts++
		case command.Expired:
			msg, _ = wire.Receipt{Op: c.op, Status: wire.ReceiptExpired}.Encode(nil)
			h.stats.Expired++
		}
		pl.held.Add(gen, msg)
		if h.saves != nil {
			h.saves.want = true
		}
	}
	clear(q)
	h.cmds.queue = q[:0]
	h.noteOwn()
	if h.saves == nil {
		h.releaseReceipts(math.MaxUint64)
	}
}

// reason is err's text as a receipt carries it: at most wire.MaxReasonLen
// bytes, cut at a character.
func reason(err error) string {
	s := err.Error()
	if !utf8.ValidString(s) {
		s = "refused"
	}
	for len(s) > wire.MaxReasonLen {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}

// nextGen is the save generation that will hold what happens now: the next
// one handed to the committer (0 without a store).
func (h *Host[I]) nextGen() uint64 {
	if h.saves == nil {
		return 0
	}
	return h.saves.next
}

// releaseReceipts sends every receipt whose save generation is durable, in
// order, player by player; the host's own player's go to its observers.
func (h *Host[I]) releaseReceipts(durable uint64) {
	h.own.pl.held.Release(durable, h.ownReceipt)
	h.noteOwn()
	for _, pl := range h.people.players {
		if pl.held.Len() == 0 {
			continue
		}
		id := pl.id
		pl.held.Release(durable, func(msg []byte) {
			// A receipt that cannot go now is not lost: the client sends
			// the command again, and the book answers it.
			if h.session == nil || h.session.Send(id, transport.LaneCommands, msg) != nil {
				h.stats.Unsent++
			}
		})
	}
}

// Withheld returns how many receipts wait for a save, as the host last
// published it, as Stats does. Safe from any goroutine, inside callbacks,
// hooks and observers too.
func (h *Host[I]) Withheld() int {
	h.status.mu.Lock()
	defer h.status.mu.Unlock()
	return h.status.withheld
}

// withheldNow counts the receipts waiting for a save. It runs with the
// world locked.
func (h *Host[I]) withheldNow() int {
	n := h.own.pl.held.Len()
	for _, pl := range h.people.players {
		n += pl.held.Len()
	}
	return n
}

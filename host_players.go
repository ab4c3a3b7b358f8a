package tandem

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save"
)

// people is the host's table of who takes part: the players it knows (those
// admitted, those whose connection broke and who may resume, and those a
// restored save lists who are not back yet), and the spectators. A player's
// receipts live with it; it is what a save carries across a restart. Who
// holds which place, and for how long, is the session's (its known peers,
// HostConfig.Grace, MaxPeers and Spectators): this table follows its joins
// and leaves.
type people struct {
	players    map[ecs.PeerID]*player
	spectators map[ecs.PeerID]string
}

// player is one known player.
type player struct {
	id    ecs.PeerID
	name  string
	token [sha256.Size]byte // the hash of its session token
	prev  [sha256.Size]byte // the hash of the one before, while still good (session.KnownPeer.PrevHash); zero: none
	book  *command.Book
	held  command.Withheld
	// queued counts its commands taken this frame, not run yet.
	queued int
	limit  command.Limiter
	// waiting holds its commands past its rate or its receipts waiting for
	// a save, in the order they came, until their turn (releaseWaiting).
	waiting []queued
	// focus is its square of Host.Focus, kept in its record so that a
	// restored save gives it back when the player resumes; refocus: moved
	// since the record was last put.
	focus   focusSquare
	refocus bool
}

// focusSquare is a square of Host.Focus: its centre, if set.
type focusSquare struct {
	set  bool
	x, y float64
}

func (p *people) init() {
	p.players = map[ecs.PeerID]*player{}
	p.spectators = map[ecs.PeerID]string{}
}

func (p *people) spectating(id ecs.PeerID) bool {
	_, ok := p.spectators[id]
	return ok
}

// counts returns the players known (away ones included) and the
// spectators.
func (p *people) counts() (players, spectators int) {
	return len(p.players), len(p.spectators)
}

// empty reports whether nobody takes part or holds a place.
func (p *people) empty() bool { return len(p.players) == 0 && len(p.spectators) == 0 }

func (h *Host[I]) newPlayer(id ecs.PeerID, name string) *player {
	return &player{id: id, name: name, book: command.NewBook(h.cfg.Receipts),
		limit: command.Limiter{Rate: h.cfg.CommandRate, Burst: max(1, h.cfg.CommandRate)}}
}

// join is the session's OnJoin, for a new peer it is about to admit (the
// session checked its place: a player slot, or a spectator's; a resume does
// not come here). A spectator is let in as it is; a player if the Game's
// Join hook agrees, whose refusal goes back to the session, which refuses
// the peer with the hook's reason (a Reject: the client reads it, and no
// slot was taken).
func (h *Host[I]) join(peer ecs.PeerID, name string) error {
	if h.session.Spectator(peer) {
		h.people.spectators[peer] = name
		h.names[peer] = name
		h.stats.Joined++
		if h.g.Watch != nil {
			h.joining = joiningFocus{peer: peer}
			h.mu.call(func() { h.g.Watch(h.w, Peer{ID: peer, Name: name}) })
		}
		return nil
	}
	if h.g.Join != nil {
		var err error
		h.joining = joiningFocus{peer: peer}
		h.mu.call(func() {
			if err = h.g.Join(h.w, Peer{ID: peer, Name: name}); err == nil {
				// Marked before the peer's join pages them.
				h.driven.drivenMarks(h.w.ECS)
			}
		})
		if err != nil {
			h.joining = joiningFocus{}
			h.stats.Refused++
			return err
		}
	}
	pl := h.newPlayer(peer, name)
	pl.token, _ = h.session.TokenHash(peer)
	h.people.players[peer] = pl
	h.names[peer] = name
	h.stats.Joined++
	h.putPlayer(pl)
	h.addMember(peer, name)
	h.rosterChanged()
	return nil
}

// keepToken puts the record of player peer again, saved at the end of the
// step, when its token changed: a kept ticket's resume gives a new one, and
// a host restored from the save must take the player back with it.
func (h *Host[I]) keepToken(peer ecs.PeerID) {
	pl := h.people.players[peer]
	if pl == nil {
		return
	}
	tk, ok := h.session.TokenHash(peer)
	prev, _ := h.session.PrevTokenHash(peer)
	if !ok || tk == pl.token && prev == pl.prev {
		return
	}
	pl.token, pl.prev = tk, prev
	h.putPlayer(pl)
	h.rosterChanged()
	if prev != ([sha256.Size]byte{}) && !slices.Contains(h.tokened, peer) {
		h.tokened = append(h.tokened, peer) // saved again once its client takes the new one
	}
}

// putTokens, before a save, puts again the records of the players whose
// old token (kept beside the new one until their client took it) is over.
func (h *Host[I]) putTokens() {
	for i := 0; i < len(h.tokened); i++ {
		peer := h.tokened[i]
		if pl := h.people.players[peer]; pl != nil {
			if prev, _ := h.session.PrevTokenHash(peer); prev == pl.prev {
				continue
			}
			h.keepToken(peer)
		}
		h.tokened = slices.Delete(h.tokened, i, i+1)
		i--
	}
}

// rosterChanged asks for a save at the end of the step: a player joined or
// left, which a restore after a crash must know (whose places it holds).
func (h *Host[I]) rosterChanged() {
	if h.saves != nil {
		h.saves.soon.Store(true)
	}
}

// addMember gives a player its roster entry (Game.Roster).
func (h *Host[I]) addMember(peer ecs.PeerID, name string) {
	if h.roster != nil {
		h.roster.add(peer, name)
	}
}

// leave forgets a peer that left (its connection ended, or its grace window
// ran out): the session has removed its entities. A player's record and
// receipts leave the save with it.
func (h *Host[I]) leave(peer ecs.PeerID, err error) {
	name, ok := h.names[peer]
	delete(h.names, peer)
	delete(h.resumed, peer)
	h.inputs.RemovePeer(peer)
	if h.roster != nil {
		h.roster.remove(peer)
	}
	if _, spec := h.people.spectators[peer]; spec {
		delete(h.people.spectators, peer)
		h.stats.Left++
		return
	}
	if pl := h.people.players[peer]; pl != nil {
		h.forget(pl)
		h.rosterChanged()
	}
	if !ok {
		return
	}
	h.stats.Left++
	if h.g.Leave != nil {
		h.mu.enter()
		defer h.mu.exit()
		h.g.Leave(h.w, Peer{ID: peer, Name: name})
	}
}

// admitFunc is the session's Admit for HostConfig.Admit, marked as the
// game's code: nil without one.
func (h *Host[I]) admitFunc() func(session.Arrival) error {
	if h.cfg.Admit == nil {
		return nil
	}
	return func(a session.Arrival) error {
		h.mu.enter()
		defer h.mu.exit()
		return h.cfg.Admit(a)
	}
}

// keepFunc is the session's Keep for the Game's: nil without one.
func (h *Host[I]) keepFunc() func(ecs.PeerID, arche.Entity) bool {
	if h.g.Keep == nil {
		return nil
	}
	return func(peer ecs.PeerID, e arche.Entity) bool {
		h.mu.enter()
		keep := h.g.Keep(h.w, Peer{ID: peer, Name: h.names[peer]}, e)
		h.mu.exit()
		// No one drives what is kept: with its Input, the host's own
		// input would (every entity the host owns with Input is its).
		if a := h.w.ECS.Arche(); keep && a.Alive(e) && a.Has(e, h.driven.input) {
			a.Remove(e, h.driven.input)
		}
		return keep
	}
}

// forget drops a player and its records from the table and the save.
func (h *Host[I]) forget(pl *player) {
	delete(h.people.players, pl.id)
	if h.saves == nil {
		return
	}
	t := h.saves.tracker
	t.Delete(playerKey(pl.id))
	for _, e := range pl.book.Entries() {
		t.Delete(receiptKey(pl.id, e.Op))
	}
}

// restoreGrace is how long a restored save's players are held for when the
// host resumes no broken connections (HostConfig.Grace negative).
const restoreGrace = 30 * time.Second

// Keys of the facade's records in a save, after the save package's own.
const (
	keyPlayer  = save.FirstUserPrefix     // + peer id (u16, big-endian)
	keyReceipt = save.FirstUserPrefix + 1 // + peer id (u16) + operation id (u64), big-endian
)

func playerKey(id ecs.PeerID) []byte {
	return binary.BigEndian.AppendUint16([]byte{keyPlayer}, uint16(id))
}

func receiptKey(id ecs.PeerID, op uint64) []byte {
	return command.OpKey(binary.BigEndian.AppendUint16([]byte{keyReceipt}, uint16(id)), op)
}

// putPlayer queues pl's record for the next save: its token's hash, its
// name, its receipts' floor, its square of Focus, if it has one, and the
// hash of its old token while that is still good (16 bytes for the square,
// 32 for the old token: what follows the floor says which; a record
// without either reads as one without, so saves made before they were kept
// read as they are).
func (h *Host[I]) putPlayer(pl *player) {
	if h.saves == nil {
		return
	}
	pl.refocus = false
	w := wire.NewWriter(nil)
	w.Raw(pl.token[:])
	w.String(pl.name)
	w.Uvarint(pl.book.Floor())
	if pl.focus.set {
		w.F64(pl.focus.x)
		w.F64(pl.focus.y)
	}
	if pl.prev != ([sha256.Size]byte{}) {
		w.Raw(pl.prev[:])
	}
	h.saves.tracker.Put(playerKey(pl.id), w.Bytes())
}

// putFocus queues the records of the players whose square of Focus moved
// since their record was put: once a save, however often a camera moved it.
func (h *Host[I]) putFocus() {
	for _, id := range h.refocused {
		if pl := h.people.players[id]; pl != nil && pl.refocus {
			h.putPlayer(pl)
		}
	}
	h.refocused = h.refocused[:0]
}

// restoredPeople collects the players and receipts of a save as Load passes
// them, and checks them once every record is read.
type restoredPeople struct {
	players  map[ecs.PeerID]*player
	floors   map[ecs.PeerID]uint64
	receipts map[ecs.PeerID][]command.Entry
}

func (r *restoredPeople) record(key, value []byte) error {
	switch {
	case key[0] == keyPlayer && len(key) == 3:
		id := ecs.PeerID(binary.BigEndian.Uint16(key[1:]))
		rd := wire.NewReader(value)
		pl := &player{id: id}
		copy(pl.token[:], rd.Raw(sha256.Size))
		pl.name = rd.String(wire.MaxNameLen)
		floor := rd.Uvarint()
		if n := rd.Len(); n == 16 || n == 16+sha256.Size {
			pl.focus = focusSquare{set: true, x: rd.F64(), y: rd.F64()}
		}
		if rd.Len() == sha256.Size {
			copy(pl.prev[:], rd.Raw(sha256.Size))
		}
		if err := rd.Finish(); err != nil {
			return &save.MismatchError{Key: key, Reason: fmt.Sprintf("player %d's record does not read (%v)", id, err)}
		}
		r.players[id] = pl
		r.floors[id] = floor
	case key[0] == keyReceipt && len(key) == 11:
		id := ecs.PeerID(binary.BigEndian.Uint16(key[1:]))
		op := binary.BigEndian.Uint64(key[3:])
		e, err := command.ReadEntry(op, value)
		if err != nil {
			return &save.MismatchError{Key: key, Reason: fmt.Sprintf("a receipt of player %d: %v", id, err)}
		}
		r.receipts[id] = append(r.receipts[id], e)
	default:
		return &save.MismatchError{Key: key, Reason: "a record of a kind this version of the host does not know"}
	}
	return nil
}

// adopt makes the restored players the host's, after checking every
// receipt has its player and every entity an owner the save knows: each
// gets its book of receipts back and its roster entry, and the session
// holds its peer id and slot (RestorePeers) for HostConfig.Grace, so that
// its client, which kept its token, resumes into the restored world as the
// same peer with the same entities. One that does not come back in time
// leaves as any away player does (Game.Leave, its entities removed but
// those Game.Keep keeps). With Grace negative (no resumes after a broken
// connection) they are held for restoreGrace: the restart was the host's,
// not their connections breaking.
func (h *Host[I]) adopt(r *restoredPeople) error {
	for id := range r.receipts {
		if r.players[id] == nil {
			return &save.MismatchError{Reason: fmt.Sprintf("the save holds receipts of player %d but not the player", id)}
		}
	}
	w := h.w.ECS
	for slot := range int32(w.NetSlots()) {
		if e, id, ok := w.SlotEntity(slot); ok {
			ni, _ := w.Identity(e)
			if ni.Owner != ecs.HostPeer && r.players[ni.Owner] == nil {
				return &save.MismatchError{Reason: fmt.Sprintf("entity %d is owned by peer %d, whom the save does not know", id, ni.Owner)}
			}
		}
	}
	known := make([]session.KnownPeer, 0, len(r.players))
	for id, pl := range r.players {
		if id == ecs.HostPeer {
			h.restoreOwn(pl, r.floors[id], r) // the host's own player: no session peer
			continue
		}
		np := h.newPlayer(id, pl.name)
		np.token, np.prev, np.focus = pl.token, pl.prev, pl.focus
		h.people.players[id] = np
		if gone := np.book.Restore(r.floors[id], r.receipts[id]); len(gone) > 0 {
			// Saved with more receipts kept than now: the oldest go, from
			// the save too, and the player's floor rises past them.
			for _, e := range gone {
				h.saves.tracker.Delete(receiptKey(id, e.Op))
			}
			h.putPlayer(np)
		}
		known = append(known, session.KnownPeer{Peer: id, Name: pl.name, TokenHash: pl.token, PrevHash: pl.prev})
		if pl.prev != ([sha256.Size]byte{}) {
			h.tokened = append(h.tokened, id)
		}
	}
	sort.Slice(known, func(i, j int) bool { return known[i].Peer < known[j].Peer })
	window := h.cfg.Grace
	if window < 0 {
		window = restoreGrace // a restart is not the players' connections breaking
	}
	if err := h.RestorePeers(known, window); err != nil {
		return &save.MismatchError{Reason: fmt.Sprintf("the save's players: %v", err)}
	}
	for _, k := range known {
		h.addMember(k.Peer, k.Name)
	}
	return nil
}

// Plays reports whether peer holds a player's place: admitted as a player,
// or known (a restored save's player, a player whose connection broke) and
// within its grace window. Spectators, refused peers and peers that left do
// not. Call it on the simulation goroutine: from an OnEvent observer, a hook,
// or inside Do.
func (h *Host[I]) Plays(peer ecs.PeerID) bool {
	_, ok := h.people.players[peer]
	return ok
}

// AppendPlayers appends the peer id of every player holding a place (see
// Plays), in peer order, to dst and returns the extended slice. Call it on
// the simulation goroutine (inside Do).
func (h *Host[I]) AppendPlayers(dst []ecs.PeerID) []ecs.PeerID {
	n := len(dst)
	for id := range h.people.players {
		dst = append(dst, id)
	}
	sort.Slice(dst[n:], func(i, j int) bool { return dst[n+i] < dst[n+j] })
	return dst
}

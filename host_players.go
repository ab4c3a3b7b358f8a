package tandem

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save"
)

// people is the host's table of who takes part: the players it knows (those
// admitted, and those a save lists who are not back yet, each holding its
// slot, peer id and entities through the grace window), and the spectators.
// A player's receipts live with it. It is what a save carries across a
// restart, and what decides capacity.
type people struct {
	players    map[ecs.PeerID]*player
	spectators map[ecs.PeerID]string
	away       int // players restored and not back
}

// player is one known player.
type player struct {
	id    ecs.PeerID
	name  string
	token [sha256.Size]byte // the hash of its session token
	book  *command.Book
	held  command.Withheld
	limit command.Limiter
	away  bool
	until time.Time // away: when its place is given up
}

func (p *people) init() {
	p.players = map[ecs.PeerID]*player{}
	p.spectators = map[ecs.PeerID]string{}
}

// reserved reports whether id is a known player's, kept from new peers.
func (p *people) reserved(id ecs.PeerID) bool {
	_, ok := p.players[id]
	return ok
}

func (p *people) spectating(id ecs.PeerID) bool {
	_, ok := p.spectators[id]
	return ok
}

// counts returns the players admitted, the spectators, and the players away.
func (p *people) counts() (players, spectators, away int) {
	return len(p.players) - p.away, len(p.spectators), p.away
}

// empty reports whether nobody takes part or holds a place.
func (p *people) empty() bool { return len(p.players) == 0 && len(p.spectators) == 0 }

// sorted returns the players by peer id.
func (p *people) sorted() []*player {
	out := make([]*player, 0, len(p.players))
	for _, pl := range p.players {
		out = append(out, pl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (h *Host[I]) newPlayer(id ecs.PeerID, name string) *player {
	return &player{id: id, name: name, book: command.NewBook(h.cfg.Receipts),
		limit: command.Limiter{Rate: h.cfg.CommandRate, Burst: max(1, h.cfg.CommandRate)}}
}

// join admits a peer the session admitted: a spectator if it asked to watch
// and there is room; a known player back in its place; else a new player if
// a slot is free and the Game's Join hook agrees. A refusal closes the
// peer's connection with the reason.
func (h *Host[I]) join(peer ecs.PeerID, name string) {
	ppl := &h.people
	if h.session.Spectator(peer) {
		if len(ppl.spectators) >= h.cfg.Spectators {
			h.refuse(peer, fmt.Sprintf("no room to watch: the host takes %d spectators", h.cfg.Spectators))
			return
		}
		ppl.spectators[peer] = name
		h.names[peer] = name
		h.stats.Joined++
		return
	}
	if pl, ok := ppl.players[peer]; ok && pl.away {
		// A known player back in the place it held (a resume).
		pl.away, pl.name = false, name
		ppl.away--
		h.names[peer] = name
		h.stats.Joined++
		h.addMember(peer, name)
		return
	}
	if len(ppl.players) >= h.cfg.MaxPeers {
		h.refuse(peer, fmt.Sprintf("the game is full (%d players); try again later", h.cfg.MaxPeers))
		return
	}
	if h.g.Join != nil {
		if err := h.g.Join(h.w, Peer{ID: peer, Name: name}); err != nil {
			h.refuse(peer, err.Error())
			return
		}
	}
	pl := h.newPlayer(peer, name)
	pl.token, _ = h.session.TokenHash(peer)
	ppl.players[peer] = pl
	h.names[peer] = name
	h.stats.Joined++
	h.putPlayer(pl)
	h.addMember(peer, name)
}

// addMember gives a player its roster entry (Game.Roster).
func (h *Host[I]) addMember(peer ecs.PeerID, name string) {
	if h.roster != nil {
		h.roster.add(peer, name)
	}
}

func (h *Host[I]) refuse(peer ecs.PeerID, reason string) {
	h.stats.Refused++
	h.session.Kick(peer, reason)
}

// leave forgets a peer: the session has removed its entities. A player's
// record and receipts leave the save with it.
func (h *Host[I]) leave(peer ecs.PeerID, err error) {
	name, ok := h.names[peer]
	delete(h.names, peer)
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
	}
	if !ok {
		return
	}
	h.stats.Left++
	if h.g.Leave != nil {
		h.g.Leave(h.w, Peer{ID: peer, Name: name})
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

// expireAway gives up the places of known players whose grace ran out: their
// entities leave the world, their records the save, and the Game's Leave
// hook hears of them. Cost: nothing while nobody is away.
func (h *Host[I]) expireAway() {
	if h.people.away == 0 {
		return
	}
	now := h.clk.Now()
	for _, pl := range h.people.sorted() {
		if !pl.away || now.Before(pl.until) {
			continue
		}
		h.people.away--
		for _, e := range ownedBy(h.w.ECS, pl.id) {
			h.w.ECS.Arche().RemoveEntity(e)
		}
		h.forget(pl)
		if h.g.Leave != nil {
			h.g.Leave(h.w, Peer{ID: pl.id, Name: pl.name})
		}
	}
}

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

// putPlayer queues pl's record for the next save: its token's hash, its name
// and its receipts' floor.
func (h *Host[I]) putPlayer(pl *player) {
	if h.saves == nil {
		return
	}
	w := wire.NewWriter(nil)
	w.Raw(pl.token[:])
	w.String(pl.name)
	w.Uvarint(pl.book.Floor())
	h.saves.tracker.Put(playerKey(pl.id), w.Bytes())
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
		if err := rd.Finish(); err != nil || id == ecs.HostPeer {
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

// adopt makes the restored players the host's, away until they come back
// or their grace runs out, after checking every receipt has its player and
// every entity an owner the save knows.
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
	until := h.clk.Now().Add(h.cfg.Grace)
	for id, pl := range r.players {
		np := h.newPlayer(id, pl.name)
		np.token = pl.token
		np.book.Restore(r.floors[id], r.receipts[id])
		np.away, np.until = true, until
		h.people.players[id] = np
		h.people.away++
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
	for _, pl := range h.people.sorted() {
		dst = append(dst, pl.id)
	}
	return dst
}

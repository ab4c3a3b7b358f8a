package session

import (
	"slices"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// Peer ids. A new peer gets the id that has been free the longest among
// the ids given before, once more than reuseAfter of them are free, and
// reuseAfter ids were given and reuseAge passed since it was freed; until
// then it gets the lowest id never given. An id is free when nothing holds
// it: no open connection (admitted, or offered the id in a Welcome) and no
// known peer (one away within its grace window, which may resume, or one
// RestorePeers reserved). So a player who leaves does not hand its id to
// the next one to join: whatever still names it (an event or a message in
// flight, an entity not removed yet on a client, a game's table keyed by
// peer id that missed the leave) does not name the newcomer: the id comes
// back only after at least reuseAfter other ids were given and a minute
// passed, even when many peers left at once or many joins were refused.
// And ids stay small, at most the most ids held at once plus those freed
// within the last reuseAge plus reuseAfter + 1: tables indexed by peer id
// stay short, and a spawn's owner field a few bits. The space is 1 to
// 65,535; once every id was given, the free ids go in order whatever their
// number and age.

// reuseAfter is how many ids given before stay free, at least, behind the
// one free the longest when it is given again, and how many ids are given,
// at least, between its release and that; reuseAge is how long, at least,
// it has been free (refused joins, which take ids and free them at once,
// do not bring a leaver's id back sooner).
const (
	reuseAfter = 32
	reuseAge   = time.Minute
)

// peerIDs hands out peer ids: fresh ones until more than reuseAfter given
// ones are free, then those, free the longest first, each once reuseAfter
// ids were given since it was freed.
type peerIDs struct {
	// top is the highest id there is (^ecs.PeerID(0) unless a test narrows
	// the space).
	top ecs.PeerID
	// fresh is the lowest id never given: those from it to top are free
	// and never given, but for the ones in claimed.
	fresh uint32
	// claimed are ids at or past fresh that RestorePeers reserved: held,
	// or, once their peer is gone, in free.
	claimed map[ecs.PeerID]struct{}
	// free are the ids given before and free again, the one free the
	// longest first.
	free []freedID
	// given counts the ids given (fresh or again).
	given uint64
}

// freedID is a free id given before.
type freedID struct {
	id   ecs.PeerID
	at   uint64    // given when it was freed
	when time.Time // when it was freed
}

// take returns the id the rule above gives at now (a fresh one, or the one
// free the longest), which held does not hold, or 0 if every id is held.
func (s *peerIDs) take(held func(ecs.PeerID) bool, now time.Time) ecs.PeerID {
	id := s.pick(held, now)
	if id != 0 {
		s.given++
	}
	return id
}

// pick is take but for the count of ids given.
func (s *peerIDs) pick(held func(ecs.PeerID) bool, now time.Time) ecs.PeerID {
	s.init()
	for len(s.free) > reuseAfter && s.given-s.free[0].at >= reuseAfter && now.Sub(s.free[0].when) >= reuseAge {
		id := s.free[0].id
		s.free = s.free[1:]
		if !held(id) {
			return id
		}
		// Held after all: its release queues it again.
	}
	for s.fresh <= uint32(s.top) {
		id := ecs.PeerID(s.fresh)
		s.fresh++
		if _, ok := s.claimed[id]; ok {
			delete(s.claimed, id) // held, or waiting in free
			continue
		}
		if !held(id) {
			return id
		}
	}
	for len(s.free) > 0 {
		id := s.free[0].id
		s.free = s.free[1:]
		if !held(id) {
			return id
		}
		// Held after all: its release queues it again.
	}
	return 0
}

// release queues id at the back of the free ids, if held holds it no more
// and it is not free already. Call it whenever something that held id lets
// it go: the last of them queues it.
func (s *peerIDs) release(id ecs.PeerID, held func(ecs.PeerID) bool, now time.Time) {
	s.init()
	if id == ecs.HostPeer || held(id) {
		return
	}
	if _, ok := s.claimed[id]; !ok && uint32(id) >= s.fresh {
		return // never given: free already
	}
	if slices.ContainsFunc(s.free, func(f freedID) bool { return f.id == id }) {
		return
	}
	s.free = append(s.free, freedID{id, s.given, now})
}

// claim reserves id for a known peer RestorePeers restores: it is not
// given while held, and, once released, waits its turn as any id given
// before.
func (s *peerIDs) claim(id ecs.PeerID) {
	s.init()
	if uint32(id) >= s.fresh {
		if s.claimed == nil {
			s.claimed = map[ecs.PeerID]struct{}{}
		}
		s.claimed[id] = struct{}{}
		return
	}
	if i := slices.IndexFunc(s.free, func(f freedID) bool { return f.id == id }); i >= 0 {
		s.free = slices.Delete(s.free, i, i+1)
	}
}

func (s *peerIDs) init() {
	if s.fresh == 0 {
		s.fresh = 1
		if s.top == 0 {
			s.top = ^ecs.PeerID(0)
		}
	}
}

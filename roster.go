package tandem

import (
	"encoding/binary"
	"slices"
	"time"
	"unicode/utf8"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// Member is one player of a session as every machine sees it, with
// Game.Roster set: the peer, the name it joined with, and its round trip to
// the host as the host measures it. Read them with Members.
type Member struct {
	// Peer is the player's peer id (ecs.HostPeer for the player at the host).
	Peer ecs.PeerID
	// Name is the name the peer joined with (wire.CheckName holds for it).
	Name string
	// RTT is the host's smoothed round trip to the peer, to the
	// millisecond, updated once a second; 0 for the player at the host.
	RTT time.Duration
}

// rosterEvery is how often, in steps, the host writes its peers' round trips.
const rosterEvery = 60

// memberName and memberInfo are the two replicated components of a roster
// entity (a name takes the eight integers a component has): the name's
// UTF-8 bytes, and the peer and its round trip.
type (
	memberName struct{ s string }
	memberInfo struct {
		peer ecs.PeerID
		rtt  time.Duration
	}
)

// rosterComponents are the roster's replicated components, after the game's.
func rosterComponents() []Component {
	info := replicate.Codec[memberInfo]{
		Name:   memberInfoSaveName,
		Fields: 2,
		Quantize: func(v *memberInfo, q []int32) {
			q[0], q[1] = int32(v.peer), int32(min(v.rtt.Milliseconds(), 1<<30))
		},
		Dequantize: func(q []int32, v *memberInfo) {
			v.peer = ecs.PeerID(uint32(q[0]))
			v.rtt = time.Duration(max(q[1], 0)) * time.Millisecond
		},
	}
	return []Component{Replicate(rosterNameCodec(), HostOnly), Replicate(info, HostOnly)}
}

// rosterNameCodec carries a name's UTF-8 bytes, four to an integer; what
// decodes to no valid name is shown as "?".
func rosterNameCodec() replicate.Codec[memberName] {
	return replicate.Codec[memberName]{
		Name:   memberNameSaveName,
		Fields: wire.MaxNameLen / 4,
		Quantize: func(v *memberName, q []int32) {
			var b [wire.MaxNameLen]byte
			copy(b[:], v.s)
			for i := range q {
				q[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
			}
		},
		Dequantize: func(q []int32, v *memberName) {
			var b [wire.MaxNameLen]byte
			for i := range q {
				binary.LittleEndian.PutUint32(b[4*i:], uint32(q[i]))
			}
			n := 0
			for n < len(b) && b[n] != 0 {
				n++
			}
			s := string(b[:n])
			if !utf8.ValidString(s) || wire.CheckName(s) != nil {
				s = "?" // not a name the host would have let in
			}
			v.s = s
		},
	}
}

// replicated returns the components a session of g replicates: the game's,
// then the roster's when g.Roster is set, then the mark of the entities a
// player drives (driven.go).
func (g *Game[I]) replicated() []Component {
	all := slices.Clip(g.Components)
	if g.Roster {
		all = append(all, rosterComponents()...)
	}
	return append(all, drivenComponent())
}

// Members appends the members of the session w belongs to, in peer order,
// to dst and returns the extended slice. Without Game.Roster there are none.
// Call it on the simulation goroutine (a system, a hook, View or Do).
func Members(w *World, dst []Member) []Member {
	a := w.ECS.Arche()
	q := generic.NewFilter2[memberName, memberInfo]().Query(a)
	start := len(dst)
	for q.Next() {
		n, in := q.Get()
		dst = append(dst, Member{Peer: in.peer, Name: n.s, RTT: in.rtt})
	}
	slices.SortFunc(dst[start:], func(a, b Member) int { return int(a.Peer) - int(b.Peer) })
	return dst
}

// roster is the host's (or a lone game's) record of its members' entities.
type roster struct {
	w       *World
	members map[ecs.PeerID]arche.Entity
	infoID  arche.ID
	nameMap generic.Map3[memberName, memberInfo, ecs.NetworkIdentity]
	infos   generic.Map[memberInfo]
	rtt     func(ecs.PeerID) (time.Duration, bool)
}

func newRoster(w *World, rtt func(ecs.PeerID) (time.Duration, bool)) *roster {
	a := w.ECS.Arche()
	r := &roster{
		w:       w,
		members: map[ecs.PeerID]arche.Entity{},
		nameMap: generic.NewMap3[memberName, memberInfo, ecs.NetworkIdentity](a),
		infos:   generic.NewMap[memberInfo](a),
		rtt:     rtt,
	}
	r.infoID = arche.ComponentID[memberInfo](a)
	if rtt != nil {
		// In the input stage: what it writes must be journaled before
		// replication reads the frame.
		w.Schedule.AddTo(ecs.StageInput, "tandem.roster", ecs.SystemFunc(r.update))
	}
	return r
}

// add gives peer p, named name, its roster entity.
func (r *roster) add(p ecs.PeerID, name string) {
	if _, ok := r.members[p]; ok {
		return
	}
	r.members[p] = r.nameMap.NewWith(&memberName{name}, &memberInfo{peer: p}, &ecs.NetworkIdentity{Owner: ecs.HostPeer})
}

// remove takes peer p's roster entity away.
func (r *roster) remove(p ecs.PeerID) {
	if e, ok := r.members[p]; ok {
		delete(r.members, p)
		r.w.ECS.Arche().RemoveEntity(e)
	}
}

// update writes each peer's round trip once a second: a system.
func (r *roster) update(w *ecs.World) {
	if w.Frame()%rosterEvery != 0 {
		return
	}
	for p, e := range r.members {
		d, ok := r.rtt(p)
		if !ok || p == ecs.HostPeer {
			continue
		}
		in := r.infos.Get(e)
		if d = d.Round(time.Millisecond); in.rtt != d {
			in.rtt = d
			ecs.MutateComponent(w, e, r.infoID)
		}
	}
}

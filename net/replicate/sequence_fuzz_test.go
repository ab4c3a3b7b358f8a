package replicate

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// FuzzClientSequence: any sequence of messages a host may send (states,
// auth states, join pages, FINALs, with rejoins between them) to a client
// that joined a real world: after each, the call was counted in the Stats
// as it says, its error is one of the package's, and the world holds at
// most MaxEntities, its network index whole (clientcheck_fuzz_test.go).
// data is read as operations: a byte, a length (u16) and that many bytes;
// 0xff rejoins, 0xfe pumps the join, another at or above 0x80 is a lane
// message of that kind, one below it a datagram message. The seeds are a
// host's own states after the join, a rejoin followed by the join again,
// and a rejoin followed by the states (more than MaxHeld), then the join.
func FuzzClientSequence(f *testing.F) {
	host := newScene(1, 30)
	h := NewHost(host.reg, HostConfig{})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	l := &link{rng: rand.New(rand.NewPCG(1, 1)), peer: 1}
	h.AddPeer(1, l)
	host.sched.Step()
	seedJoin := append([][]byte(nil), l.lane...)
	l.lane = nil
	var tail []packet
	for range 30 {
		host.sched.Step()
		tail = append(tail, l.inflight...)
		for _, p := range l.inflight {
			if p.token != 0 {
				h.Delivered(1, p.token)
			}
		}
		l.inflight = nil
	}
	frame := func(dst []byte, op byte, p []byte) []byte {
		dst = append(dst, op)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(p)))
		return append(dst, p...)
	}
	var seq []byte
	for _, p := range tail {
		seq = frame(seq, byte(p.kind), p.payload)
	}
	f.Add(seq)
	// A rejoin, then the join again, then the states.
	var rj []byte
	rj = frame(rj, 0xff, nil)
	for _, m := range seedJoin {
		rj = frame(rj, m[0], m[1:])
	}
	rj = frame(rj, 0xfe, nil)
	rj = append(rj, seq...)
	f.Add(rj)
	// A rejoin, the states (held while joining, past MaxHeld refused),
	// then the join, which applies those held.
	var held []byte
	held = frame(held, 0xff, nil)
	held = append(held, seq...)
	for _, m := range seedJoin {
		held = frame(held, m[0], m[1:])
	}
	held = frame(held, 0xfe, nil)
	f.Add(held)
	// The most entities the seed states hold at once: one spawn more is
	// refused (ErrTooManyEntities).
	sc := seedClient(seedJoin, ClientConfig{Local: 1})
	peak := sc.w.Networked()
	for _, p := range tail {
		sc.HandleDatagram(p.kind, p.payload)
		peak = max(peak, sc.w.Networked())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := joinedClient(t, seedJoin, ClientConfig{Local: 1, MaxHeld: 8, Tombstones: 8, MaxEntities: peak})
		for n := 0; len(data) >= 3 && n < 200; n++ {
			op := data[0]
			k := int(binary.LittleEndian.Uint16(data[1:3]))
			data = data[3:]
			k = min(k, len(data))
			p := data[:k]
			data = data[k:]
			switch {
			case op == 0xff:
				c.Rejoin(1, 60, 0)
				if c.Joined() || c.Waiting() != 0 || len(c.held) != 0 {
					t.Fatalf("a rejoin left joined %v, %d bytes waiting, %d held", c.Joined(), c.Waiting(), len(c.held))
				}
			case op == 0xfe:
				fuzzPump(t, c)
			case op >= 0x80:
				fuzzLane(t, c, append([]byte{op}, p...))
			default:
				fuzzDatagram(t, c, wire.Kind(op), p)
			}
			// Each call counted as it says, the world whole and within
			// bounds (clientcheck_fuzz_test.go).
			checkClientWorld(t, c)
		}
		fuzzPump(t, c)
		checkClientWorld(t, c)
	})
}

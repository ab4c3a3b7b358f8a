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
// that joined a real world: no panic. data is read as operations: a byte, a
// length (u16) and that many bytes; 0xff rejoins, 0xfe pumps the join,
// another at or above 0x80 is a lane message of that kind, one below it a
// datagram message. The seeds are a host's own states after the join, and
// a rejoin followed by the join again.
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
	f.Fuzz(func(t *testing.T, data []byte) {
		c := joinedClient(t, seedJoin, ClientConfig{Local: 1, MaxHeld: 16, Tombstones: 8})
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
			case op == 0xfe:
				c.Pump()
			case op >= 0x80:
				c.HandleLane(append([]byte{op}, p...))
			default:
				c.HandleDatagram(wire.Kind(op), p)
			}
		}
		c.Pump()
	})
}

package condition

import (
	"math/rand/v2"
	"net"
	"time"
)

// Stats count what a Link did to the packets pushed into it, since it was made.
type Stats struct {
	// Sent and SentBytes count the packets (and their bytes) pushed in.
	Sent, SentBytes uint64
	// Delivered and DeliveredBytes count the packets taken out by Pop,
	// duplicates included.
	Delivered, DeliveredBytes uint64
	// Lost counts packets lost at random (Config.Loss).
	Lost uint64
	// BurstLost counts packets lost in bursts (Config.Burst).
	BurstLost uint64
	// QueueDropped counts packets dropped because the bandwidth queue was full.
	QueueDropped uint64
	// LimitDropped counts packets (and copies) dropped because the link already
	// held Config.Limit packets.
	LimitDropped uint64
	// Duplicated counts the extra copies made (Config.Duplicate).
	Duplicated uint64
	// Reordered counts the packets held back (Config.Reorder).
	Reordered uint64
}

// Link conditions one direction of a link. Packets go in with Push, stamped
// with the time they were sent, and come out with Pop once the time passed to
// Pop reaches their delivery time. Given the same Config (Seed included) and
// the same calls, a Link makes the same decisions.
//
// Concurrency: a Link is not safe for concurrent use; its owner serializes
// calls. Buffers: Push copies the packet; the slice Pop returns belongs to the
// Link and is valid until the next Pop. In steady state neither allocates.
type Link struct {
	cfg       Config
	rng       *rand.Rand
	bad       bool      // Gilbert-Elliott state: in a burst
	busyUntil time.Time // when the bandwidth-limited sender is free again
	held      packetHeap
	seq       uint64
	free      [][]byte
	last      []byte // buffer returned by the last Pop, recycled by the next
	stats     Stats
}

// NewLink returns a Link with the given conditions, or the error Validate
// reports for them.
func NewLink(cfg Config) (*Link, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Link{
		cfg: cfg,
		rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
	}, nil
}

// Config returns the link's conditions.
func (l *Link) Config() Config { return l.cfg }

// SetConfig changes the conditions for packets pushed from now on; packets
// already held keep their delivery times and the random sequence goes on
// (Seed is ignored).
func (l *Link) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	l.cfg = cfg
	return nil
}

// Stats returns the link's counters.
func (l *Link) Stats() Stats { return l.stats }

// Len returns the number of packets held (in flight or due and not taken).
func (l *Link) Len() int { return len(l.held) }

// Next returns the delivery time of the earliest packet held, or ok == false
// when the link is empty.
func (l *Link) Next() (due time.Time, ok bool) {
	if len(l.held) == 0 {
		return time.Time{}, false
	}
	return l.held[0].due, true
}

// Push sends p, with its destination addr (nil if unused), at time now. The
// packet may be dropped by the bandwidth queue, lost, delayed, held back or
// duplicated, as the Config says. now must not run backwards between calls.
func (l *Link) Push(now time.Time, p []byte, addr net.Addr) {
	l.stats.Sent++
	l.stats.SentBytes += uint64(len(p))
	depart := now
	if bw := l.cfg.Bandwidth; bw > 0 {
		start := now
		backlog := 0
		if l.busyUntil.After(now) {
			start = l.busyUntil
			backlog = int(int64(l.busyUntil.Sub(now)) * int64(bw) / int64(time.Second))
		}
		if backlog+len(p) > l.cfg.queueBytes() {
			l.stats.QueueDropped++
			return
		}
		l.busyUntil = start.Add(time.Duration(int64(len(p)) * int64(time.Second) / int64(bw)))
		depart = l.busyUntil
	}
	if l.lose() {
		return
	}
	delay := l.delay()
	if l.cfg.Reorder > 0 && l.rng.Float64() < l.cfg.Reorder {
		l.stats.Reordered++
		delay += l.cfg.reorderDelay()
	}
	l.hold(depart.Add(delay), p, addr)
	if l.cfg.Duplicate > 0 && l.rng.Float64() < l.cfg.Duplicate {
		l.stats.Duplicated++
		l.hold(depart.Add(l.delay()), p, addr)
	}
}

// Pop returns the earliest packet due at now, with the addr it was pushed
// with, or ok == false when none is due. Packets due at the same time come out
// in the order they were pushed. p is valid until the next Pop.
func (l *Link) Pop(now time.Time) (p []byte, addr net.Addr, ok bool) {
	if l.last != nil {
		l.free = append(l.free, l.last[:0])
		l.last = nil
	}
	if len(l.held) == 0 || l.held[0].due.After(now) {
		return nil, nil, false
	}
	pk := l.held.pop()
	l.last = pk.buf
	l.stats.Delivered++
	l.stats.DeliveredBytes += uint64(len(pk.buf))
	return pk.buf, pk.addr, true
}

// lose decides whether the next packet is lost, advancing the burst state.
func (l *Link) lose() bool {
	if b := l.cfg.Burst; b.enabled() {
		r := l.rng.Float64()
		if l.bad {
			l.bad = r >= b.Exit
		} else {
			l.bad = r < b.Enter
		}
		if l.bad {
			if l.rng.Float64() < b.Loss {
				l.stats.BurstLost++
				return true
			}
			return false
		}
	}
	if l.cfg.Loss > 0 && l.rng.Float64() < l.cfg.Loss {
		l.stats.Lost++
		return true
	}
	return false
}

// delay draws one packet's delay: Latency plus uniform jitter, never negative.
func (l *Link) delay() time.Duration {
	d := l.cfg.Latency
	if j := l.cfg.Jitter; j > 0 {
		d += time.Duration(l.rng.Int64N(2*int64(j)+1)) - j
	}
	return max(d, 0)
}

// hold stores a copy of p for delivery at due, unless the link is full.
func (l *Link) hold(due time.Time, p []byte, addr net.Addr) {
	if len(l.held) >= l.cfg.limit() {
		l.stats.LimitDropped++
		return
	}
	var buf []byte
	if n := len(l.free); n > 0 && cap(l.free[n-1]) >= len(p) {
		buf = l.free[n-1][:len(p)]
		l.free = l.free[:n-1]
	} else {
		buf = make([]byte, len(p), max(len(p), minBufferCap))
	}
	copy(buf, p)
	l.seq++
	l.held.push(packet{due: due, seq: l.seq, buf: buf, addr: addr})
}

// minBufferCap is the smallest buffer a Link allocates, so buffers fit any
// packet of a 1,500-byte MTU and are reused across sizes.
const minBufferCap = 1500

// packet is one held packet.
type packet struct {
	due  time.Time
	seq  uint64 // push order, breaks ties between equal due times
	buf  []byte
	addr net.Addr
}

// packetHeap is a binary min-heap of packets by (due, seq).
type packetHeap []packet

func (h packetHeap) less(i, j int) bool {
	if h[i].due.Equal(h[j].due) {
		return h[i].seq < h[j].seq
	}
	return h[i].due.Before(h[j].due)
}

func (h *packetHeap) push(p packet) {
	*h = append(*h, p)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *packetHeap) pop() packet {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = packet{}
	s = s[:n]
	for i := 0; ; {
		small := i
		if l := 2*i + 1; l < n && s.less(l, small) {
			small = l
		}
		if r := 2*i + 2; r < n && s.less(r, small) {
			small = r
		}
		if small == i {
			break
		}
		s[i], s[small] = s[small], s[i]
		i = small
	}
	*h = s
	return top
}

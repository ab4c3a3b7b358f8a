package conn

import "time"

// rttEstimator keeps the smoothed round-trip time and its variation the way
// QUIC does (RFC 9002 §5): an exponentially weighted mean with gain 1/8 and
// a mean deviation with gain 1/4, the peer's ack delay taken out of each
// sample unless that would take it below the smallest RTT seen.
type rttEstimator struct {
	smoothed, variance, min, latest time.Duration
	samples                         uint64
}

func (e *rttEstimator) init(initial time.Duration) {
	*e = rttEstimator{smoothed: initial, variance: initial / 2}
}

// sample adds a measurement: raw is the time from sending a datagram to
// receiving its first acknowledgement, ackDelay the time the peer says it
// held that acknowledgement.
func (e *rttEstimator) sample(raw, ackDelay time.Duration) {
	if raw <= 0 {
		raw = time.Microsecond
	}
	e.latest = raw
	if e.samples == 0 || raw < e.min {
		e.min = raw
	}
	adjusted := raw
	if ackDelay > 0 && raw-ackDelay >= e.min {
		adjusted = raw - ackDelay
	}
	if e.samples == 0 {
		e.smoothed = adjusted
		e.variance = adjusted / 2
	} else {
		dev := e.smoothed - adjusted
		if dev < 0 {
			dev = -dev
		}
		e.variance = (3*e.variance + dev) / 4
		e.smoothed = (7*e.smoothed + adjusted) / 8
	}
	e.samples++
}

// rateMeter counts events into ten 100 ms buckets and reports their rate
// per second over the last second.
type rateMeter struct {
	buckets [10]uint64
	cur     int64 // index of the current bucket: time since start / 100 ms
}

const meterBucket = 100 * time.Millisecond

// advance moves the meter to the bucket of t (time since the Conn started),
// emptying the buckets it passes.
func (m *rateMeter) advance(t time.Duration) {
	idx := int64(t / meterBucket)
	if idx <= m.cur {
		return
	}
	if idx-m.cur >= int64(len(m.buckets)) {
		m.buckets = [10]uint64{}
	} else {
		for i := m.cur + 1; i <= idx; i++ {
			m.buckets[i%int64(len(m.buckets))] = 0
		}
	}
	m.cur = idx
}

func (m *rateMeter) add(t time.Duration, n uint64) {
	m.advance(t)
	m.buckets[m.cur%int64(len(m.buckets))] += n
}

// rate returns the events per second over the second ending at t.
func (m *rateMeter) rate(t time.Duration) float64 {
	m.advance(t)
	var sum uint64
	for _, b := range m.buckets {
		sum += b
	}
	// The current bucket is partly filled: the window spans nine whole
	// buckets plus the elapsed part of the current one.
	span := 9*meterBucket + (t - time.Duration(m.cur)*meterBucket)
	if t < 10*meterBucket {
		span = t
	}
	if span <= 0 {
		return 0
	}
	return float64(sum) / span.Seconds()
}

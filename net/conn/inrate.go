package conn

import "time"

// inboundRate is a token bucket per second of the datagrams and datagram
// bytes taken from the peer. Each holds one second of its rate.
type inboundRate struct {
	dgrams, bytes float64 // tokens left
	last          time.Duration
	started       bool
}

// refill adds the tokens earned since the last refill at now, up to one
// second of each rate.
func (r *inboundRate) refill(now time.Duration, perSec, bytesPerSec int) {
	if !r.started || now-r.last >= time.Second {
		r.dgrams, r.bytes = float64(perSec), float64(bytesPerSec)
		r.last, r.started = now, true
		return
	}
	if now <= r.last {
		return
	}
	s := (now - r.last).Seconds()
	r.dgrams = min(float64(perSec), r.dgrams+s*float64(perSec))
	r.bytes = min(float64(bytesPerSec), r.bytes+s*float64(bytesPerSec))
	r.last = now
}

// take spends one datagram of n bytes and reports whether the bucket held
// it.
func (r *inboundRate) take(n int) (dgramsOK, bytesOK bool) {
	r.dgrams--
	r.bytes -= float64(n)
	return r.dgrams >= 0, r.bytes >= 0
}

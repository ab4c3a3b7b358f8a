package command

import (
	"bytes"
	"time"
)

// Withheld holds one player's answers until the save that holds their
// commands is durable, and lets them go in the order they were made: an
// answer tagged with save generation g goes once every save up to g has
// landed, and never before an older answer.
type Withheld struct {
	q []held
}

type held struct {
	gen uint64
	msg []byte
}

// Add holds msg until generation gen is durable.
func (w *Withheld) Add(gen uint64, msg []byte) { w.q = append(w.q, held{gen, msg}) }

// Release passes to send, in order, every answer whose generation is at
// most durable, stopping at the first that is not, and returns how many went.
func (w *Withheld) Release(durable uint64, send func(msg []byte)) int {
	n := 0
	for n < len(w.q) && w.q[n].gen <= durable {
		send(w.q[n].msg)
		w.q[n] = held{}
		n++
	}
	w.q = w.q[:copy(w.q, w.q[n:])]
	return n
}

// Holds reports whether an answer with msg's bytes waits: a command sent
// again while its first answer waits for the save needs no second one (an
// answer names its operation).
func (w *Withheld) Holds(msg []byte) bool {
	for i := range w.q {
		if bytes.Equal(w.q[i].msg, msg) {
			return true
		}
	}
	return false
}

// Len returns how many answers wait.
func (w *Withheld) Len() int { return len(w.q) }

// Limiter is a token bucket: Rate commands a second, at most Burst at once.
// Time comes from the caller.
type Limiter struct {
	Rate   float64
	Burst  float64
	tokens float64
	last   time.Time
}

// Allow reports whether one more command may be taken at now, and takes it.
func (l *Limiter) Allow(now time.Time) bool {
	if l.last.IsZero() {
		l.tokens, l.last = l.Burst, now
	}
	if d := now.Sub(l.last); d > 0 {
		l.tokens = min(l.Burst, l.tokens+d.Seconds()*l.Rate)
		l.last = now
	}
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

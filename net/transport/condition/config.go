// Package condition is the link conditioner: it makes a perfect link behave
// like a bad one, with latency, jitter, random and bursty loss, duplication,
// reordering and a bandwidth cap with a bounded queue.
//
// It sits beside the transports in the pipeline. A Link is the conditioner for
// one direction: packets are pushed into it with the time they were sent and
// pulled out once they are due. It has no goroutines and no clock of its own,
// so the in-memory transport (net/transport/mem) drives it from a fake clock
// and a run is repeatable for a given Config.Seed. PacketConn wraps a
// net.PacketConn with a Link per direction and delivers packets on real timers,
// so real QUIC (net/transport/quicnet) runs through the same conditions and its
// congestion control reacts to them; under testing/synctest those timers are
// virtual.
package condition

import (
	"errors"
	"fmt"
	"time"
)

// Config describes the conditions of one direction of a link. The zero Config
// is a perfect link: no delay, no loss, unlimited bandwidth. Config is
// comparable; a Config equal to Config{} means "no conditioning".
type Config struct {
	// Latency is the one-way base delay added to every packet.
	Latency time.Duration
	// Jitter spreads the delay uniformly over [Latency-Jitter, Latency+Jitter]
	// (never below zero). Packets sent close together may be reordered by it.
	Jitter time.Duration
	// Loss is the probability (0 to 1) that a packet is lost, drawn
	// independently per packet. With Burst enabled it applies in the good state.
	Loss float64
	// Burst adds Gilbert-Elliott bursts of loss; the zero Burst turns them off.
	Burst Burst
	// Duplicate is the probability (0 to 1) that a packet is delivered twice;
	// the copy gets its own delay.
	Duplicate float64
	// Reorder is the probability (0 to 1) that a packet is held back by
	// ReorderDelay on top of its delay, so packets sent after it overtake it.
	Reorder float64
	// ReorderDelay is the extra hold of a reordered packet. Zero means
	// max(Latency/2, 2*Jitter, 1ms).
	ReorderDelay time.Duration
	// Bandwidth caps the link, in bytes per second; zero is unlimited. Packets
	// wait in a queue while the link is busy sending earlier ones.
	Bandwidth int
	// QueueBytes bounds the bandwidth queue, in bytes; a packet that would
	// push the queue past it is dropped (tail drop). Zero means 64 KiB. Only
	// used when Bandwidth is set.
	QueueBytes int
	// Limit bounds the packets held by the link at once (in flight or due and
	// not yet taken); more are dropped. Zero means 4096.
	Limit int
	// Seed seeds the link's random numbers: equal seeds and equal inputs give
	// equal outputs.
	Seed uint64
}

// Burst describes a Gilbert-Elliott loss model: a link in the good state
// enters the bad state with probability Enter per packet and leaves it with
// probability Exit per packet, so a burst lasts 1/Exit packets on average and
// the link spends Enter/(Enter+Exit) of its packets in bursts. In the bad
// state packets are lost with probability Loss (set 1 to lose all of them).
type Burst struct {
	Enter, Exit, Loss float64
}

// enabled reports whether bursts are configured.
func (b Burst) enabled() bool { return b.Enter > 0 }

const (
	defaultQueueBytes = 64 << 10
	defaultLimit      = 4096
)

// Validate reports the first field out of range, with what to change.
func (c Config) Validate() error {
	prob := func(name string, p float64) error {
		if !(p >= 0 && p <= 1) { // also refuses NaN
			return fmt.Errorf("condition: %s = %v is not a probability; use a value from 0 to 1", name, p)
		}
		return nil
	}
	if err := errors.Join(
		prob("Loss", c.Loss), prob("Duplicate", c.Duplicate), prob("Reorder", c.Reorder),
		prob("Burst.Enter", c.Burst.Enter), prob("Burst.Exit", c.Burst.Exit), prob("Burst.Loss", c.Burst.Loss),
	); err != nil {
		return err
	}
	if c.Burst.enabled() && c.Burst.Exit == 0 {
		return errors.New("condition: Burst.Enter is set but Burst.Exit is 0, so a burst would never end; set Burst.Exit above 0")
	}
	if c.Latency < 0 || c.Jitter < 0 || c.ReorderDelay < 0 {
		return errors.New("condition: Latency, Jitter and ReorderDelay must not be negative")
	}
	if c.Bandwidth < 0 || c.QueueBytes < 0 || c.Limit < 0 {
		return errors.New("condition: Bandwidth, QueueBytes and Limit must not be negative; use 0 for the default")
	}
	return nil
}

// reorderDelay returns ReorderDelay or its default.
func (c Config) reorderDelay() time.Duration {
	if c.ReorderDelay > 0 {
		return c.ReorderDelay
	}
	return max(c.Latency/2, 2*c.Jitter, time.Millisecond)
}

func (c Config) queueBytes() int {
	if c.QueueBytes > 0 {
		return c.QueueBytes
	}
	return defaultQueueBytes
}

func (c Config) limit() int {
	if c.Limit > 0 {
		return c.Limit
	}
	return defaultLimit
}

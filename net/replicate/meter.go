package replicate

import "math"

// SymbolMeter counts the symbols of the State items a client applies, by
// stream, to measure their information: Bits is the order-0 entropy of each
// stream's symbols (the least any code that codes each symbol alone, knowing
// the stream's frequencies, could spend), summed over the streams. The
// streams are every number an item carries (id gaps, ages, each field's
// residuals and absolute values) and what its fixed codes say (its kind,
// whether its baseline is the newest image, its component mask, a spawn's
// owner); framing, code blocks and padding are not information and are not
// counted.
//
// For measurements, not for play: it allocates as new symbols appear. Use
// one meter per client; not safe for concurrent use.
type SymbolMeter struct {
	counts [meterStreams]map[uint64]uint64
	n      [meterStreams]uint64
}

func (m *SymbolMeter) count(stream int, u uint64) {
	if m.counts[stream] == nil {
		m.counts[stream] = make(map[uint64]uint64)
	}
	m.counts[stream][u]++
	m.n[stream]++
}

// Bits returns the order-0 entropy of everything counted, in bits.
func (m *SymbolMeter) Bits() float64 {
	total := 0.0
	for s, c := range m.counts {
		n := float64(m.n[s])
		for _, k := range c {
			p := float64(k) / n
			total -= float64(k) * math.Log2(p)
		}
	}
	return total
}

// Reset forgets everything counted.
func (m *SymbolMeter) Reset() { *m = SymbolMeter{} }

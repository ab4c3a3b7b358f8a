package wire

import (
	"errors"
	"math"
	"math/bits"
)

// maxQuantSteps bounds the number of steps a Quantizer may have: beyond 2^52
// a float64 no longer holds every step exactly.
const maxQuantSteps = 1 << 52

// Quantizer maps a float in [Min, Max] to an integer of the fewest bits at a
// precision of Step, and back. Example: Quantizer{Min: -1024, Max: 1024,
// Step: 1.0 / 512} sends a position to 1/512 unit in 21 bits.
//
// The integers run from 0 (Min) to Steps() (Max).
// A Quantizer is a plain value, safe to share between goroutines; a
// Quantizer that fails Validate encodes every value as 0 and has 0 bits.
type Quantizer struct {
	Min, Max float64 // the range, in the value's own units; Max > Min
	Step     float64 // the precision, in the same units; > 0
}

// Validate returns an error describing why q cannot be used, or nil.
func (q Quantizer) Validate() error {
	switch {
	case math.IsNaN(q.Min) || math.IsInf(q.Min, 0) || math.IsNaN(q.Max) || math.IsInf(q.Max, 0):
		return errors.New("wire: Quantizer Min and Max must be finite")
	case !(q.Max > q.Min):
		return errors.New("wire: Quantizer Max must be greater than Min")
	case !(q.Step > 0) || math.IsInf(q.Step, 0):
		return errors.New("wire: Quantizer Step must be a positive finite number")
	case (q.Max-q.Min)/q.Step > maxQuantSteps:
		return errors.New("wire: Quantizer range over Step exceeds 2^52 steps; use a coarser Step or send the float itself")
	}
	return nil
}

// Steps returns the largest integer Encode produces: (Max-Min)/Step rounded
// up, so that Max itself is a step; 0 if q is not valid.
func (q Quantizer) Steps() uint64 {
	if q.Validate() != nil {
		return 0
	}
	x := (q.Max - q.Min) / q.Step
	n := math.Ceil(x)
	if n-x > 1-1e-9 { // x is an integer but for rounding noise
		n--
	}
	return uint64(n)
}

// Bits returns the number of bits an encoded value needs (0 if q is not
// valid).
func (q Quantizer) Bits() uint { return uint(bits.Len64(q.Steps())) }

// Encode returns the step nearest to v, clamped to [0, Steps()]. NaN encodes
// as 0 (Min).
func (q Quantizer) Encode(v float64) uint64 {
	n := q.Steps()
	if n == 0 || math.IsNaN(v) || v <= q.Min {
		return 0
	}
	s := math.Round((v - q.Min) / q.Step)
	if s >= float64(n) || v >= q.Max {
		return n
	}
	// The last step decodes to Max, which may lie nearer than step s.
	if uint64(s) == n-1 && q.Max-v < v-(q.Min+s*q.Step) {
		return n
	}
	return uint64(s)
}

// Decode returns the value of step s: Min + s*Step, at most Max, with s
// clamped to [0, Steps()]. A value in [Min, Max] comes back within Step/2.
func (q Quantizer) Decode(s uint64) float64 {
	n := q.Steps()
	if s > n {
		s = n
	}
	return min(q.Min+float64(s)*q.Step, q.Max)
}

// AngleQuantizer maps an angle in radians to an integer of Bits bits, with
// 2π/2^Bits radians a step. Angles are wrapped to [-π, π) first, so any angle
// encodes. Bits runs from 1 to 32; 0 or more than 32 is taken as 32.
type AngleQuantizer struct {
	Bits uint
}

func (a AngleQuantizer) bits() uint {
	if a.Bits == 0 || a.Bits > 32 {
		return 32
	}
	return a.Bits
}

// Encode returns the step nearest to WrapAngle(rad), in [0, 2^Bits). NaN and
// infinities encode as 0 (-π).
func (a AngleQuantizer) Encode(rad float64) uint64 {
	if math.IsNaN(rad) || math.IsInf(rad, 0) {
		return 0
	}
	n := uint64(1) << a.bits()
	s := math.Round((WrapAngle(rad) + math.Pi) / (2 * math.Pi) * float64(n))
	return uint64(s) & (n - 1)
}

// Decode returns the angle of step s (its low Bits bits), in [-π, π).
func (a AngleQuantizer) Decode(s uint64) float64 {
	n := uint64(1) << a.bits()
	return float64(s&(n-1))*(2*math.Pi/float64(n)) - math.Pi
}

// WrapAngle returns rad wrapped to [-π, π). NaN and infinities give NaN.
// An angle already in range costs a comparison: the check inlines, and
// only the others call the wrapping.
func WrapAngle(rad float64) float64 {
	if rad >= -math.Pi && rad < math.Pi {
		return rad
	}
	return wrapAngle(rad)
}

// wrapAngle is WrapAngle for an angle out of [-π, π).
func wrapAngle(rad float64) float64 {
	w := math.Mod(rad+math.Pi, 2*math.Pi)
	if w < 0 {
		w += 2 * math.Pi
	}
	w -= math.Pi
	if w >= math.Pi { // rounding at the top edge
		w = -math.Pi
	}
	return w
}

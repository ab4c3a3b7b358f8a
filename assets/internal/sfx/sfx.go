// Package sfx synthesizes the demo's sound effects: short mono sounds made
// from sine tones, sweeps and filtered noise, written as 16-bit PCM WAV
// files. The same program always makes the same samples (the noise comes from
// a fixed-seed generator), so the committed files in assets/sounds are what
// `go generate ./assets` writes.
package sfx

import (
	"encoding/binary"
	"math"
)

// Rate is the sample rate of every effect, Hz.
const Rate = 44100

// Effect is one sound: its file name and how it is made.
type Effect struct {
	// Name is the file's base name, without ".wav".
	Name string
	// make returns the samples, -1..1.
	make func() []float64
}

// Effects are the demo's sounds, in file-name order.
var Effects = []Effect{
	{"dash", dash},
	{"goal", goal},
	{"hit", hit},
	{"join", join},
}

// WAV returns e as a WAV file: RIFF, PCM, mono, 16-bit, Rate Hz.
func (e Effect) WAV() []byte {
	s := e.make()
	data := make([]byte, 2*len(s))
	for i, v := range s {
		v = math.Max(-1, math.Min(1, v))
		binary.LittleEndian.PutUint16(data[2*i:], uint16(int16(math.Round(v*32767))))
	}
	h := make([]byte, 0, 44+len(data))
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(36+len(data)))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16) // fmt chunk size
	h = binary.LittleEndian.AppendUint16(h, 1)  // PCM
	h = binary.LittleEndian.AppendUint16(h, 1)  // mono
	h = binary.LittleEndian.AppendUint32(h, Rate)
	h = binary.LittleEndian.AppendUint32(h, Rate*2) // bytes per second
	h = binary.LittleEndian.AppendUint16(h, 2)      // bytes per frame
	h = binary.LittleEndian.AppendUint16(h, 16)     // bits per sample
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(data)))
	return append(h, data...)
}

// samples returns a silent buffer of d seconds.
func samples(d float64) []float64 { return make([]float64, int(d*Rate)) }

// noise is a fixed-seed xorshift generator of white noise in -1..1.
type noise uint64

func (n *noise) next() float64 {
	x := uint64(*n)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*n = noise(x)
	return float64(int64(x>>11)-(1<<52)) / (1 << 52)
}

// env is an envelope: a linear attack of a seconds, then an exponential
// decay with time constant tau seconds.
func env(t, a, tau float64) float64 {
	if t < a {
		return t / a
	}
	return math.Exp(-(t - a) / tau)
}

// hit is a ball struck: a low thump sweeping down from 190 to 70 Hz with a
// short click of noise on top. 0.12 s.
func hit() []float64 {
	s := samples(0.12)
	n := noise(0x9e3779b97f4a7c15)
	phase := 0.0
	for i := range s {
		t := float64(i) / Rate
		f := 70 + 120*math.Exp(-t/0.025)
		phase += 2 * math.Pi * f / Rate
		s[i] = 0.8*env(t, 0.002, 0.035)*math.Sin(phase) + 0.35*env(t, 0.0005, 0.004)*n.next()
	}
	return s
}

// dash is a whoosh: noise through a resonant band-pass filter whose centre
// rises from 400 to 2400 Hz, swelling and fading. 0.26 s.
func dash() []float64 {
	s := samples(0.26)
	n := noise(0x243f6a8885a308d3)
	var lp, bp float64 // state-variable filter
	for i := range s {
		t := float64(i) / Rate
		fc := 400 + 2000*t/0.26
		f := 2 * math.Sin(math.Pi*fc/Rate)
		const q = 0.35
		hp := n.next() - lp - q*bp
		bp += f * hp
		lp += f * bp
		a := math.Sin(math.Pi * t / 0.26)
		s[i] = 0.9 * a * a * bp
	}
	return s
}

// tone adds a bell-like note of frequency f (Hz) to s, starting at t0
// seconds, for d seconds: a sine with its octave and twelfth, decaying.
func tone(s []float64, f, t0, d, gain float64) {
	start := int(t0 * Rate)
	for i := 0; i < int(d*Rate) && start+i < len(s); i++ {
		t := float64(i) / Rate
		w := 2 * math.Pi * f * t
		v := math.Sin(w) + 0.35*math.Sin(2*w) + 0.12*math.Sin(3*w)
		s[start+i] += gain * env(t, 0.004, d/4) * v
	}
}

// goal is a rising fanfare: C5, E5, G5 and a held C6. 0.8 s.
func goal() []float64 {
	s := samples(0.8)
	for i, f := range []float64{523.25, 659.26, 783.99} {
		tone(s, f, float64(i)*0.09, 0.3, 0.3)
	}
	tone(s, 1046.5, 0.27, 0.53, 0.38)
	return s
}

// join is a two-note chime, G5 then C6. 0.42 s.
func join() []float64 {
	s := samples(0.42)
	tone(s, 783.99, 0, 0.3, 0.4)
	tone(s, 1046.5, 0.12, 0.3, 0.4)
	return s
}

package predict

import (
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// Members that agree at the wire.
//
// A correction takes the host's pose as the wire rounded it. Where one
// member differs (a position past its tolerance, a teleport's) and another
// rounds as the prediction's does (a heading the host did not change),
// taking the whole rounded pose moves the second off the exact value the
// client and the host share, by up to half a wire step: a heading up to
// 1/100 of a degree off, which a body thrusting along it turns into a
// drift and the next correction, and so on. So each member whose
// prediction rounds as the host's does keeps the prediction's exact value;
// a change the host made within that rounding is not taken. (A velocity's
// members are taken as they come: there the drift's own trim, drift.go,
// does better.)

// KeepAgreeing sets each member of host, a pose as the wire rounded it
// (fields of it, by quant: the pose codec's Quantize), to own's where the
// pose with own's member rounds as host does: a pose taken from the wire
// keeps the exact members it shared with the host. The predictor's
// corrections do so, and so does a client's rest lock (package tandem).
// Allocates nothing.
func KeepAgreeing(quant func(*ecs.Transform, []int32), fields int, host *ecs.Transform, own ecs.Transform) {
	var want, got [replicate.MaxFields]int32
	quant(host, want[:fields])
	for _, set := range [...]func(d, s *ecs.Transform){
		func(d, s *ecs.Transform) { d.X = s.X },
		func(d, s *ecs.Transform) { d.Y = s.Y },
		func(d, s *ecs.Transform) { d.Angle = s.Angle },
	} {
		mixed := *host
		set(&mixed, &own)
		if quant(&mixed, got[:fields]); got == want {
			*host = mixed
		}
	}
}

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

// PoseAgreement keeps the members of a client's own pose that agree with
// the host's on the wire (Keep). The predictor's corrections use one, and
// so does a client's rest lock (package tandem). Make it with
// NewPoseAgreement; not safe for concurrent use.
type PoseAgreement struct {
	quant     func(*ecs.Transform, []int32)
	fields    int
	mixed     ecs.Transform
	want, got [replicate.MaxFields]int32
}

// NewPoseAgreement returns a PoseAgreement for a pose codec's Quantize of
// fields fields.
func NewPoseAgreement(quant func(*ecs.Transform, []int32), fields int) *PoseAgreement {
	return &PoseAgreement{quant: quant, fields: min(max(fields, 0), replicate.MaxFields)}
}

// Keep sets each member of host, a pose as the wire rounded it, to own's
// where own's is a number and the pose with own's member rounds as host
// does: a pose taken from the wire keeps the exact members it shared with
// the host. Allocates nothing.
func (a *PoseAgreement) Keep(host, own *ecs.Transform) {
	n := a.fields
	a.quant(host, a.want[:n])
	for m := range 3 {
		a.mixed = *host
		switch m {
		case 0:
			a.mixed.X = own.X
		case 1:
			a.mixed.Y = own.Y
		case 2:
			a.mixed.Angle = own.Angle
		}
		if a.mixed == *host || !finite(a.mixed.X) || !finite(a.mixed.Y) || !finite(a.mixed.Angle) {
			continue
		}
		if a.quant(&a.mixed, a.got[:n]); a.got == a.want {
			*host = a.mixed
		}
	}
}

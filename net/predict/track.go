package predict

import (
	"fmt"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// Correction says how a predicted component that differs from the host's is
// corrected.
type Correction uint8

const (
	// HostValue takes the host's value: the component's present value
	// becomes the host's value of frame S. It is meant for values the
	// predicted step does not change (scores, health, state the host alone
	// decides). The prediction recorded since S is not compared with the
	// host's any more; comparisons resume with the frames predicted after
	// the correction. A value the step does change loses what the client
	// predicted since S, and is corrected again whenever that differs.
	HostValue Correction = iota
	// Pose carries the difference host(S) − predicted(S) into the present:
	// Corrector.CorrectPose moves the entity by it, so what happened since S
	// is kept. The component must be ecs.Transform.
	Pose
	// Velocity carries the difference into the present through
	// Corrector.CorrectVelocity. The component must be ecs.Velocity.
	Velocity
	// HostOnly takes the host's value as HostValue does, for a value only
	// the host changes (a lap count, a score, a name): the client never
	// predicts it, so a host value that differs is news rather than a
	// misprediction, and is not counted among the corrections
	// (ClientStats.HostUpdates counts it instead). Unlike HostValue's, the
	// frames recorded since a value was taken are compared with the host's
	// next states: each new value is taken as its state comes.
	HostOnly
)

// String returns the correction's name.
func (c Correction) String() string {
	switch c {
	case HostValue:
		return "host-value"
	case Pose:
		return "pose"
	case Velocity:
		return "velocity"
	case HostOnly:
		return "host-only"
	}
	return fmt.Sprintf("correction(%d)", uint8(c))
}

// tracker records and reconciles one replicated component of owned
// entities. Values are exact copies of the component (T's own assignment),
// one per history entry.
type tracker struct {
	comp   replicate.Component
	id     arche.ID
	name   string
	corr   Correction
	off, n int // the component's wire image in AuthState images
	bit    uint16

	idOf    func(w *arche.World) arche.ID
	store   valueStore
	before  valueStore     // replay: present values before it, by owned index
	arrived valueStore     // Adopt: the newcomers' values as they arrived
	host    unsafe.Pointer // scratch: the host's value
	dequant func(q []int32, p unsafe.Pointer)
	quant   func(p unsafe.Pointer, q []int32)
	// agree, for a Pose tracker (nil for others), sets each member of
	// host (as the wire rounded it) to pred's where pred's rounds as the
	// host's did (PoseAgreement).
	agree  func(host, pred unsafe.Pointer)
	equal  func(a, b unsafe.Pointer) bool
	assign func(dst, src unsafe.Pointer)
}

// valueStore is a slice of some component type, addressed by index.
type valueStore interface {
	// resize makes the store hold n values, all zero.
	resize(n int)
	// restride moves rows of old values each into rows of stride values.
	restride(rows, old, stride int)
	at(i int) unsafe.Pointer
	// len returns how many values the store holds.
	len() int
}

type values[T any] struct{ v []T }

func (s *values[T]) resize(n int) { s.v = make([]T, n) }

func (s *values[T]) restride(rows, old, stride int) {
	v := make([]T, rows*stride)
	for r := 0; r < rows && old > 0; r++ {
		copy(v[r*stride:r*stride+old], s.v[r*old:(r+1)*old])
	}
	s.v = v
}

func (s *values[T]) at(i int) unsafe.Pointer { return unsafe.Pointer(&s.v[i]) }

func (s *values[T]) len() int { return len(s.v) }

// Tracker is a component a Client records and reconciles. Build one with
// Track.
type Tracker struct{ t *tracker }

// Track returns the tracking of component T, replicated with codec (the same
// codec registered for T in the client's Registry, so host images dequantize
// as they were quantized), corrected by corr. Pass it in
// ClientConfig.Components. Track panics if corr is Pose and T is not
// ecs.Transform, or Velocity and T is not ecs.Velocity.
func Track[T any](codec replicate.Codec[T], corr Correction) Tracker {
	if codec.Dequantize == nil || codec.Quantize == nil {
		panic(fmt.Sprintf("predict: codec %q needs Quantize and Dequantize", codec.Name))
	}
	var zero T
	switch corr {
	case Pose:
		if _, ok := any(&zero).(*ecs.Transform); !ok {
			panic(fmt.Sprintf("predict: the Pose correction applies to ecs.Transform, not %T; use HostValue", zero))
		}
	case Velocity:
		if _, ok := any(&zero).(*ecs.Velocity); !ok {
			panic(fmt.Sprintf("predict: the Velocity correction applies to ecs.Velocity, not %T; use HostValue", zero))
		}
	case HostValue, HostOnly:
	default:
		panic(fmt.Sprintf("predict: unknown correction %d", corr))
	}
	deq, quant, n := codec.Dequantize, codec.Quantize, codec.Fields
	equal := func(a, b unsafe.Pointer) bool {
		var qa, qb [replicate.MaxFields]int32
		quant((*T)(a), qa[:n])
		quant((*T)(b), qb[:n])
		return qa == qb
	}
	if codec.Equal != nil {
		eq := codec.Equal
		equal = func(a, b unsafe.Pointer) bool { return eq((*T)(a), (*T)(b)) }
	}
	var agree func(host, pred unsafe.Pointer)
	if corr == Pose {
		pa := NewPoseAgreement(any(quant).(func(*ecs.Transform, []int32)), n)
		agree = func(host, pred unsafe.Pointer) { pa.Keep((*ecs.Transform)(host), (*ecs.Transform)(pred)) }
	}
	return Tracker{&tracker{
		agree:   agree,
		name:    codec.Name,
		corr:    corr,
		n:       n,
		idOf:    func(w *arche.World) arche.ID { return arche.ComponentID[T](w) },
		store:   &values[T]{},
		before:  &values[T]{},
		arrived: &values[T]{},
		host:    unsafe.Pointer(new(T)),
		dequant: func(q []int32, p unsafe.Pointer) { deq(q, (*T)(p)) },
		quant:   func(p unsafe.Pointer, q []int32) { quant((*T)(p), q) },
		equal:   equal,
		assign:  func(dst, src unsafe.Pointer) { *(*T)(dst) = *(*T)(src) },
	}}
}

// bind ties the tracker to its component in reg's world; index is its place
// among the client's trackers.
func (t *tracker) bind(reg *replicate.Registry, index int) {
	typeID := t.idOf(reg.World().Arche())
	c, ok := reg.Lookup(typeID)
	if !ok {
		panic(fmt.Sprintf("predict: tracked component %q is not registered for replication; register it in the Registry first", t.name))
	}
	if reg.Fields(c) != t.n {
		panic(fmt.Sprintf("predict: tracked component %q has %d fields, the registry's codec %d; track it with the codec it was registered with", t.name, t.n, reg.Fields(c)))
	}
	t.comp = c
	t.id = typeID
	t.off = reg.Offset(c)
	t.bit = 1 << uint(index)
}

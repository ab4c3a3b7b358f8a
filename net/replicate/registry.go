package replicate

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// MaxComponents is how many component types one registry replicates; the
// wire carries a component mask of this many bits.
const MaxComponents = 16

// MaxFields is the most integers one component's quantized image holds.
const MaxFields = 8

// Codec says how a component of type T is replicated. Quantize and Dequantize
// are required; the rest have defaults noted on each field.
type Codec[T any] struct {
	// Name identifies the component in errors and stats.
	Name string
	// Fields is how many integers the quantized image holds (1..MaxFields).
	Fields int
	// Quantize writes v's wire image into q[:Fields]. It is the whole wire
	// precision: a client holds exactly Dequantize(Quantize(v)). It reads v
	// alone (what v points at too), never other state: equal values give
	// equal images.
	Quantize func(v *T, q []int32)
	// Dequantize sets v from a wire image.
	Dequantize func(q []int32, v *T)
	// Wrap gives, per field, a modulus for fields that wrap (angles); zero
	// means the field does not wrap. Deltas of wrapping fields go the short way.
	Wrap []int32
	// Delta makes the component travel as a difference from the value the peer
	// acknowledged, where that is smaller. For components that change a little
	// at a time (poses, velocities).
	Delta bool
	// Significant gives, per field, the change in wire steps from the image
	// last sent that makes an update urgent: sent at the full send rate. A
	// smaller change waits, gaining priority in proportion to its size, so a
	// body creeping by a hair is sent a few times a second instead of every
	// send tick, and due at least every 1/MinUrgency send ticks; the last
	// change always reaches the peer. The host measures it once per send tick
	// for every peer. Nil: every change is urgent. Only delta-coded
	// components have sent images to compare against.
	Significant []int32
	// AppendExact appends v at full precision, bit for bit, for a host's
	// saves. Without it (and ReadExact) the registry's AppendExact writes
	// the quantized image as varints, which a save refuses: a host that
	// saves needs both for every replicated component (tandem.Exact sets
	// them for a plain struct).
	AppendExact func(dst []byte, v *T) []byte
	// ReadExact reads what AppendExact wrote. Without it: the quantized
	// image (see AppendExact).
	ReadExact func(r *wire.Reader, v *T)
	// ExactLayout describes AppendExact's encoding, for a save to record
	// and a restore to check (save.Codec.Layout: a save written with
	// another layout is refused rather than read wrong). tandem.Exact sets
	// it with the plain encoding. Empty: not checked.
	ExactLayout string
	// Equal reports whether a and b are equal within the component's
	// tolerance; prediction corrects what is not. Default: equal wire
	// images. A predicted value the client computes itself (a position its
	// systems move) is exact where the host's arrives rounded to the wire,
	// so with the default they drift a wire step apart again and again, and
	// each time it is corrected: give such a component a tolerance of a step
	// or more (TransformCodec allows eight in position and angle).
	// HostConfig.CheckReports checks with it that a value survives the
	// codec; without it, a T of whole numbers (integers and booleans only)
	// must come back from Quantize and Dequantize exactly (a field left out,
	// masked, clamped or wrapped is found), and a T with a float is not
	// checked.
	Equal func(a, b *T) bool
	// Blend returns the value a fraction alpha (0..1) from a to b, for
	// interpolation; alpha is above 1 while the entity is extrapolated past
	// its newest state, so clamp it where T cannot be extrapolated (before
	// its oldest state, the value is the oldest's). Default: a until alpha
	// reaches 1, then b. A client
	// keeps the received values of a component with a Blend beside the
	// poses of the entities it draws in the past (tandem.Blended gives the
	// one at the drawn time); Discrete is that default, set so that a
	// value that does not blend (a team, a carrier) is drawn in step with
	// the poses too.
	Blend func(a, b *T, alpha float64) T
	// Layout describes what the wire image's fields are, where the Go type
	// and Fields do not say it (IntegerCodec: the struct's fields, as
	// "{Team uint8; Score int32}"). It goes into the schema host and client
	// compare (AppendSchema), so two builds whose layouts differ are two
	// games rather than one reading the other's fields wrong. Empty: the
	// type and Fields stand for it.
	Layout string
}

// Component is a registered component's index in its registry: the same
// number on host and clients. Wire-affecting: registration order decides it.
type Component uint8

// component is a type-erased registered component.
type component struct {
	name    string
	typ     string // T's Go type and its codec's Layout, for the schema
	id      arche.ID
	fields  int
	delta   bool
	wrap    [MaxFields]int32
	signif  [MaxFields]int32 // 0: no threshold
	quant   func(p unsafe.Pointer, q []int32)
	dequant func(q []int32, p unsafe.Pointer)
	equal   func(a, b unsafe.Pointer) bool
	// survives reports whether the value at p equals, by the codec's own
	// Equal, what its image q dequantizes to (exactly, for a T of whole
	// numbers without an Equal); nil for a T with a float without an Equal
	// (CheckReports).
	survives func(p unsafe.Pointer, q []int32) bool
	exact    func(dst []byte, p unsafe.Pointer) []byte
	read     func(r *wire.Reader, p unsafe.Pointer)
	blend    func(a, b, out unsafe.Pointer, alpha float64)
	// size is T's size in bytes; flat says T holds no pointer (no slice,
	// string, map or interface), so that its bytes are all of its value and
	// equal bytes quantize alike (the report check's watch, watch.go).
	size int
	flat bool
}

// Registry lists the replicated components of one world. Host and clients
// build theirs by the same Register calls in the same order.
//
// Not safe for concurrent use; register everything before the first step.
type Registry struct {
	world  *ecs.World
	comps  []component
	byBit  [ecs.MaxReplicated]int8 // ecs journal bit → registry index
	byID   map[arche.ID]Component
	fields int // sum of Fields
	offset [MaxComponents]int
	delta  uint16 // delta-coded components
	all    uint16 // every registered component
	order  []int  // components in the order items carry them
	motion *Motion
}

// NewRegistry returns a registry for w with ecs.Transform and ecs.Velocity
// registered (see TransformCodec and VelocityCodec), in that order, and
// poses predicted from velocities on the wire (DefaultMotion).
func NewRegistry(w *ecs.World) *Registry {
	r := NewEmptyRegistry(w)
	pose := Register(r, TransformCodec())
	vel := Register(r, VelocityCodec())
	r.SetMotion(DefaultMotion(pose, vel))
	return r
}

// NewEmptyRegistry returns a registry for w with nothing registered.
func NewEmptyRegistry(w *ecs.World) *Registry {
	r := &Registry{world: w, byID: make(map[arche.ID]Component)}
	for i := range r.byBit {
		r.byBit[i] = -1
	}
	return r
}

// Register makes T a replicated component of r's world and returns its index.
// It panics on an invalid codec, a second registration of T, or past
// MaxComponents.
func Register[T any](r *Registry, c Codec[T]) Component {
	if c.Quantize == nil || c.Dequantize == nil {
		panic(fmt.Sprintf("replicate: codec %q needs Quantize and Dequantize", c.Name))
	}
	if c.Fields < 1 || c.Fields > MaxFields {
		panic(fmt.Sprintf("replicate: codec %q has %d fields; give 1 to %d", c.Name, c.Fields, MaxFields))
	}
	if len(r.comps) == MaxComponents {
		panic(fmt.Sprintf("replicate: more than %d replicated components; merge small ones", MaxComponents))
	}
	id := arche.ComponentID[T](r.world.Arche())
	if _, dup := r.byID[id]; dup {
		panic(fmt.Sprintf("replicate: component %q registered twice", c.Name))
	}
	idx := Component(len(r.comps))
	bit := r.world.SetReplicated(id)
	r.byBit[bit] = int8(idx)
	r.byID[id] = idx
	quant, dequant := c.Quantize, c.Dequantize
	comp := component{
		name:    c.Name,
		typ:     reflect.TypeFor[T]().String() + c.Layout,
		id:      id,
		fields:  c.Fields,
		delta:   c.Delta,
		quant:   func(p unsafe.Pointer, q []int32) { quant((*T)(p), q) },
		dequant: func(q []int32, p unsafe.Pointer) { dequant(q, (*T)(p)) },
		size:    int(reflect.TypeFor[T]().Size()),
		flat:    flat(reflect.TypeFor[T]()),
	}
	copy(comp.wrap[:], c.Wrap)
	copy(comp.signif[:], c.Significant)
	n := c.Fields
	if c.AppendExact != nil && c.ReadExact != nil {
		ae, re := c.AppendExact, c.ReadExact
		comp.exact = func(dst []byte, p unsafe.Pointer) []byte { return ae(dst, (*T)(p)) }
		comp.read = func(rd *wire.Reader, p unsafe.Pointer) { re(rd, (*T)(p)) }
	} else {
		comp.exact = func(dst []byte, p unsafe.Pointer) []byte {
			var q [MaxFields]int32
			quant((*T)(p), q[:n])
			for _, v := range q[:n] {
				dst = wire.AppendUvarint(dst, wire.ZigZag(int64(v)))
			}
			return dst
		}
		comp.read = func(rd *wire.Reader, p unsafe.Pointer) {
			var q [MaxFields]int32
			for i := range q[:n] {
				q[i] = int32(rd.Varint())
			}
			dequant(q[:n], (*T)(p))
		}
	}
	if c.Equal != nil {
		eq := c.Equal
		comp.equal = func(a, b unsafe.Pointer) bool { return eq((*T)(a), (*T)(b)) }
		back := new(T) // what a client holds (one at a time: the simulation goroutine's)
		comp.survives = func(p unsafe.Pointer, q []int32) bool {
			*back = *new(T)
			dequant(q, back)
			return eq((*T)(p), back)
		}
	} else {
		comp.equal = func(a, b unsafe.Pointer) bool {
			var qa, qb [MaxFields]int32
			quant((*T)(a), qa[:n])
			quant((*T)(b), qb[:n])
			return qa == qb
		}
		if t := reflect.TypeFor[T](); wholeValues(t) {
			// Without Equal a value of whole numbers must come back as it
			// was: a field the codec leaves out is found too.
			back := new(T)
			comp.survives = func(p unsafe.Pointer, q []int32) bool {
				*back = *new(T)
				dequant(q, back)
				return reflect.ValueOf(back).Elem().Equal(reflect.ValueOf((*T)(p)).Elem())
			}
		}
	}
	if c.Blend != nil {
		bl := c.Blend
		comp.blend = func(a, b, out unsafe.Pointer, alpha float64) { *(*T)(out) = bl((*T)(a), (*T)(b), alpha) }
	} else {
		comp.blend = func(a, b, out unsafe.Pointer, alpha float64) {
			if alpha >= 1 {
				*(*T)(out) = *(*T)(b)
			} else {
				*(*T)(out) = *(*T)(a)
			}
		}
	}
	r.offset[idx] = r.fields
	r.fields += n
	r.comps = append(r.comps, comp)
	r.all |= 1 << idx
	if c.Delta {
		r.delta |= 1 << idx
	}
	r.setOrder()
	return idx
}

// Motion ties a pose component to a velocity component on the wire: a
// delta of the pose is sent as its difference from where the velocities (the
// baseline's and the new one, averaged) carry it over the delta's frames, which
// costs a few bits where the change itself would cost a dozen. Wire-affecting:
// host and clients must set the same Motion (PROTOCOL.md §9.2).
type Motion struct {
	// Pose and Velocity are the components: delta-coded, Pose with fields
	// x, y, angle and Velocity with x, y, angular.
	Pose, Velocity Component
	// Linear is how many wire steps of the pose's x and y a velocity of one
	// wire step moves in one second: for the default codecs,
	// PositionScale/VelocityScale = 64.
	Linear float64
	// Angular is the same for the angle: angle steps a second per step of
	// angular velocity, 2^AngleBits/(2π·AngularScale) for the defaults.
	Angular float64
}

// DefaultMotion returns the Motion of the default codecs (TransformCodec and
// VelocityCodec) registered as pose and vel.
func DefaultMotion(pose, vel Component) Motion {
	return Motion{
		Pose: pose, Velocity: vel,
		Linear:  float64(PositionScale) / VelocityScale,
		Angular: float64(angleSteps) / (2 * math.Pi * AngularScale),
	}
}

// SetMotion makes poses travel predicted from velocities (see Motion). Both
// components must be registered, delta-coded and have three fields. Call it
// before the first step, the same way on every side.
func (r *Registry) SetMotion(m Motion) {
	for _, c := range []Component{m.Pose, m.Velocity} {
		if int(c) >= len(r.comps) || !r.comps[c].delta || r.comps[c].fields != 3 {
			panic(fmt.Sprintf("replicate: motion needs registered, delta-coded components of three fields (pose %d, velocity %d)", m.Pose, m.Velocity))
		}
	}
	if m.Pose == m.Velocity || !(m.Linear >= 0) || !(m.Angular >= 0) {
		panic("replicate: motion needs two different components and non-negative scales")
	}
	r.motion = &m
	r.setOrder()
}

// AppendSchema appends to dst what of the registry decides how its bytes are
// read, for a hash that host and client compare (PROTOCOL.md §6.2): for each
// component in registration order its name, its Go type (followed by its
// codec's Layout), its field count,
// whether it is delta-coded and its wrap moduli; then the Motion, if set. A
// codec's functions are not in it: a quantization changed with nothing else
// reads the same.
func (r *Registry) AppendSchema(dst []byte) []byte {
	w := wire.NewWriter(dst)
	for _, c := range r.comps {
		w.String(c.name)
		w.String(c.typ)
		w.U8(uint8(c.fields))
		w.Bool(c.delta)
		for _, m := range c.wrap[:c.fields] {
			w.Varint(int64(m))
		}
	}
	if m := r.motion; m != nil {
		w.U8(uint8(m.Pose))
		w.U8(uint8(m.Velocity))
		w.F64(m.Linear)
		w.F64(m.Angular)
	}
	return w.Bytes()
}

// setOrder lists the components in the order items carry them: registration
// order, except that a Motion's velocity goes just before its pose, so a
// client has the new velocity when it reads the pose.
func (r *Registry) setOrder() {
	r.order = r.order[:0]
	for c := range r.comps {
		if r.motion != nil {
			switch Component(c) {
			case r.motion.Velocity:
				continue
			case r.motion.Pose:
				r.order = append(r.order, int(r.motion.Velocity))
			}
		}
		r.order = append(r.order, c)
	}
}

// Len returns the number of registered components.
func (r *Registry) Len() int { return len(r.comps) }

// World returns the registry's world.
func (r *Registry) World() *ecs.World { return r.world }

// Lookup returns the registry index of arche component id.
func (r *Registry) Lookup(id arche.ID) (Component, bool) {
	c, ok := r.byID[id]
	return c, ok
}

// ID returns the arche component id of c.
func (r *Registry) ID(c Component) arche.ID { return r.comps[c].id }

// Name returns the name c was registered with.
func (r *Registry) Name(c Component) string { return r.comps[c].name }

// Fields returns the number of integers in c's wire image.
func (r *Registry) Fields(c Component) int { return r.comps[c].fields }

// Delta reports whether c travels as a difference from the value a peer
// acknowledged (Codec.Delta).
func (r *Registry) Delta(c Component) bool { return r.comps[c].delta }

// Quantize writes the wire image of entity e's component c into q, which must
// hold Fields(c) integers.
func (r *Registry) Quantize(e arche.Entity, c Component, q []int32) {
	comp := &r.comps[c]
	comp.quant(r.world.Arche().Get(e, comp.id), q)
}

// AppendExact appends entity e's component c at full precision.
func (r *Registry) AppendExact(dst []byte, e arche.Entity, c Component) []byte {
	comp := &r.comps[c]
	return comp.exact(dst, r.world.Arche().Get(e, comp.id))
}

// ReadExact reads what AppendExact wrote into entity e's component c, which e
// must have.
func (r *Registry) ReadExact(rd *wire.Reader, e arche.Entity, c Component) {
	comp := &r.comps[c]
	comp.read(rd, r.world.Arche().Get(e, comp.id))
}

// wholeValues reports whether t holds only integers and booleans (in
// structs and arrays): a value whose codec, without an Equal, must give it
// back exactly. One with a float may be rounded on the wire by design.
func wholeValues(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	case reflect.Array:
		return wholeValues(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !wholeValues(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// fromBit returns the registry index of an ecs journal bit, or -1.
func (r *Registry) fromBit(bit uint8) int { return int(r.byBit[bit]) }

// flat reports whether a value of type t is all in its own bytes: no
// pointer, slice, string, map, channel, function or interface in it.
func flat(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() == 0 || flat(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !flat(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}

package tandem

import (
	"crypto/sha256"
	"encoding/binary"
	"reflect"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// Schema returns the hash of what g puts on the wire: its replicated
// components (names, Go types, field counts, delta coding, wrap moduli, in
// order, the roster's included), its commands (names and payload types, in
// order) and its input's Go type (PROTOCOL.md §6.2). A client states it in
// its Hello and every Resume, and a host refuses one whose schema is not its
// own (RejectSchema: Client.Err wraps ErrRefused with both), rather than
// read one component's bytes as another's. Two builds of one game agree
// unless one of those changed. What a codec's functions do is not in it: a
// quantization changed with nothing else should rename its component (a
// version in the name). Nor is the step: a client checks the host's tick
// rate itself, with its own error. Schema registers g's components in a
// world of its own: call it once (to show as a version, say), not per frame.
func (g *Game[I]) Schema() uint64 {
	return g.schemaOf(g.registry(ecs.NewWorld()))
}

// registry returns a registry of w with g's replicated components in their
// order and, when ecs.Transform and ecs.Velocity replicate with the
// default codecs (replicate.TransformCodec and VelocityCodec), poses
// predicted from velocities on the wire (replicate.DefaultMotion): a body
// moving as its velocity says costs its residuals, not its motion. Host,
// client and Schema build it alike.
func (g *Game[I]) registry(w *ecs.World) *replicate.Registry {
	reg := replicate.NewEmptyRegistry(w)
	for _, c := range g.replicated() {
		c.register(reg)
	}
	pose, posed := reg.Lookup(w.IDs.Transform)
	vel, moves := reg.Lookup(w.IDs.Velocity)
	if posed && moves && reg.Name(pose) == "Transform" && reg.Name(vel) == "Velocity" &&
		reg.Delta(pose) && reg.Delta(vel) && reg.Fields(pose) == 3 && reg.Fields(vel) == 3 {
		reg.SetMotion(replicate.DefaultMotion(pose, vel))
	}
	return reg
}

// schemaOf is Schema for a registry g's components are registered in.
func (g *Game[I]) schemaOf(reg *replicate.Registry) uint64 {
	w := wire.NewWriter(nil)
	w.LenBytes(reg.AppendSchema(nil))
	w.Uvarint(uint64(len(g.Commands)))
	for _, c := range g.Commands {
		d := c.def()
		w.String(d.name)
		w.String(d.typ)
	}
	w.String(reflect.TypeFor[I]().String())
	sum := sha256.Sum256(w.Bytes())
	return binary.LittleEndian.Uint64(sum[:8])
}

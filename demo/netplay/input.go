package netplay

import (
	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/net/wire"
)

// inputSize is the encoded size of one game.Input: MoveX, MoveY, flags.
const inputSize = 3

// dashFlag is the flags bit of Input.Dash; the other bits must be zero.
const dashFlag = 1

// InputCodec is how game.Input travels in input messages: three bytes, the
// two thrust axes (two's complement, -InputAxisMax..InputAxisMax) and a flags
// byte whose bit 0 is Dash. A value outside those ranges is refused.
func InputCodec() tandem.InputCodec[game.Input] {
	return tandem.InputCodec[game.Input]{
		Append: func(dst []byte, in *game.Input) []byte {
			var flags byte
			if in.Dash {
				flags = dashFlag
			}
			return append(dst, byte(in.MoveX), byte(in.MoveY), flags)
		},
		Read: func(r *wire.Reader, in *game.Input) {
			x, y, flags := int8(r.U8()), int8(r.U8()), r.U8()
			if r.Err() != nil {
				return
			}
			if x < -game.InputAxisMax || y < -game.InputAxisMax || flags&^dashFlag != 0 {
				r.Fail(wire.ErrInvalid)
				return
			}
			*in = game.Input{MoveX: x, MoveY: y, Dash: flags == dashFlag}
		},
		MaxSize: inputSize,
	}
}

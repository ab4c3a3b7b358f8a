package tandemtest_test

import (
	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/wire"
)

// axesCodec codes an input of two axes, each -1, 0 or 1, a byte each (axes
// gives them); any other value is invalid.
func axesCodec[I any](axes func(*I) (a, b *int8)) tandem.InputCodec[I] {
	return tandem.InputCodec[I]{
		Append: func(dst []byte, in *I) []byte {
			a, b := axes(in)
			return append(dst, byte(*a), byte(*b))
		},
		Read: func(r *wire.Reader, in *I) {
			a, b := axes(in)
			*a, *b = int8(r.U8()), int8(r.U8())
			if *a < -1 || *a > 1 || *b < -1 || *b > 1 {
				r.Fail(wire.ErrInvalid)
			}
		},
		MaxSize: 2,
	}
}

package replicate

import (
	"math"
	"testing"
)

func TestClampRound(t *testing.T) {
	cases := []struct {
		v, scale, limit float64
		want            int32
	}{
		{1.5, 512, 100, 768},
		{-1.5, 512, 100, -768},
		{0.0009765625, 512, 100, 1}, // exactly half a step rounds away from zero
		{-0.0009765625, 512, 100, -1},
		{0.0009, 512, 100, 0},
		{1e9, 512, 100, 51200},
		{-1e9, 512, 100, -51200},
		{math.NaN(), 512, 100, 0},
		{math.Inf(1), 8, 16384, 131072},
	}
	for _, c := range cases {
		if got := clampRound(c.v, c.scale, c.limit); got != c.want {
			t.Errorf("clampRound(%v, %v, %v) = %d, want %d", c.v, c.scale, c.limit, got, c.want)
		}
	}
}

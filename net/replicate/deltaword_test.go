package replicate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/net/wire"
)

// TestCodeTablesAreTheCodes checks each code's table (and code.word)
// against code.put, the general writer: for every order with and without
// the zero flag, values around each prefix of the table, past its end and
// up to 2^62, the same bits, or a refusal only where the table ends (or,
// for code.word, where the code passes 64 bits).
func TestCodeTablesAreTheCodes(t *testing.T) {
	var tabs codeTables
	for z := range 2 {
		for k := range maxOrder + 1 {
			c := code{zero: z == 1, k: uint8(k)}
			tab := tabs.of(c)
			var us []uint64
			for m := range uint64(codePrefixes + 8) {
				for _, d := range []uint64{0, 1, 1<<k - 1} {
					us = append(us, m<<k+d, m<<k+d+1)
				}
			}
			us = append(us, 0, 1, 2, 1<<32-1, 1<<33, 1<<62-1)
			for _, u := range us {
				var w wire.BitWriter
				c.put(&w, u)
				want, wantBits := w.BitLen(), w.Finish()
				same := func(name string, x uint64, l uint) {
					t.Helper()
					var g wire.BitWriter
					g.WriteBits(x, l)
					if int(l) != want || string(g.Finish()) != string(wantBits) {
						t.Fatalf("%s of code %+v, value %d: %d bits, the code %d", name, c, u, l, want)
					}
				}
				v := u
				if c.zero && v > 0 {
					v--
				}
				if x, l := tab.word(u); l != 0 {
					same("the table's word", x, l)
				} else if !c.zero || u != 0 {
					if v>>k < codePrefixes {
						t.Fatalf("the table of code %+v refused %d, within it", c, u)
					}
				}
				if x, l := c.word(u); l != 0 {
					same("code.word", x, l)
				} else if want <= 64 {
					t.Fatalf("code.word refused %d in code %+v (%d bits)", u, c, want)
				}
			}
		}
	}
}

// TestDeltaWordIsTheGeneralPath checks deltaWord, the one-word coding of an
// update's fields, against writeFields' general path (residuals, the
// motion predicted, writeCodes) over random plans: wrapping fields, fields
// not delta-coded, codes of every order, values at the ends of 32 bits,
// velocities that cancel or predict, ages past the prediction's reach.
// Every word it gives is the general path's bits, and the values it keeps
// for the counts are the general path's; it refuses only an item that
// passes 64 bits, a change of more than a turn of its wrap, or a predicted
// residual past 32 bits.
func TestDeltaWordIsTheGeneralPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tabs codeTables
	ends := []int32{0, 1, -1, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1, 1 << 30, -1 << 30}
	value := func() int32 {
		switch rng.IntN(40) {
		case 0:
			return ends[rng.IntN(len(ends))]
		case 1:
			return int32(rng.Uint32())
		default:
			return int32(rng.IntN(16) - 8)
		}
	}
	const nf = 8 // a pose (0-2), its velocity (3-5) and two more fields
	words, refused := 0, 0
	for iter := range 200_000 {
		pr := predictor{on: true, pose: 0, vel: 3, linear: rng.Float64() * 4, angular: rng.Float64() * 4, poseComp: 0, poseBit: 1, velBit: 2}
		var fields []fieldPlan
		for i := range nf {
			if rng.IntN(5) == 0 {
				continue
			}
			f := fieldPlan{off: int32(i), vel: -1, delta: i < 6 || rng.IntN(2) == 0, field: uint8(i % 3)}
			if i < 3 {
				f.vel = int32(3 + i)
			}
			if rng.IntN(3) == 0 {
				f.wrap = int32(1) << (1 + rng.IntN(30))
			}
			f.code = code{zero: rng.IntN(2) == 0, k: uint8(rng.IntN(4))}
			if rng.IntN(8) == 0 {
				f.code.k = uint8(rng.IntN(maxOrder + 1))
			}
			f.table = tabs.of(f.code)
			fields = append(fields, f)
		}
		pair := make([]int32, 2*nf)
		for i := range pair {
			pair[i] = value()
		}
		for _, f := range fields {
			if f.wrap > 0 && rng.IntN(4) != 0 {
				pair[f.off] = int32(uint32(pair[f.off]) % uint32(f.wrap))
				pair[nf+f.off] = int32(uint32(pair[nf+f.off]) % uint32(f.wrap))
			}
		}
		if rng.IntN(3) == 0 {
			for i := range 3 {
				pair[nf+3+i] = -pair[3+i] // the velocities cancel
			}
		}
		cur, bimg := pair[:nf:2*nf], pair[nf:]
		age := uint32(rng.IntN(100))
		if rng.IntN(10) == 0 {
			age = uint32(rng.IntN(2 * maxPredictAge))
		}
		predict := rng.IntN(2) == 0
		dc := deltaContext{us: make([]uint64, len(fields))}
		if dc.moving = predict && pr.moving(pr.velBit, 1, cur, bimg); dc.moving {
			pr.predict(&dc.mo, cur, bimg, age)
		}
		n0 := uint(rng.IntN(3))
		acc0 := uint64(rng.IntN(4)) & (1<<n0 - 1)
		acc, n, ok := deltaWord(acc0, n0, fields, cur, &dc)

		us := make([]uint64, len(fields))
		residuals(us, fields, cur, bimg)
		if predict {
			predictResiduals(&pr, us, fields, cur, bimg, age)
		}
		var w wire.BitWriter
		w.WriteBits(acc0, n0)
		writeCodes(&w, us, fields)
		if !ok {
			refused++
			if w.BitLen() <= 64 && !refusable(fields, cur, bimg, &dc) {
				t.Fatalf("case %d: refused an item of %d bits: fields %+v, image %v, baseline %v, age %d, predicting %v", iter, w.BitLen(), fields, cur, bimg, age, predict)
			}
			continue
		}
		words++
		for i := range us {
			if us[i] != dc.us[i] {
				t.Fatalf("case %d: field %d counted as %d, the general path's value %d", iter, i, dc.us[i], us[i])
			}
		}
		var g wire.BitWriter
		g.WriteBits(acc, n)
		if g.BitLen() != w.BitLen() || string(g.Finish()) != string(w.Finish()) {
			t.Fatalf("case %d: %d bits, the general path %d: fields %+v, image %v, baseline %v, age %d, predicting %v", iter, g.BitLen(), w.BitLen(), fields, cur, bimg, age, predict)
		}
	}
	t.Logf("%d words, %d refused", words, refused)
	if words < 50_000 || refused < 1_000 {
		t.Fatalf("%d words and %d refusals: the cases do not cover both", words, refused)
	}
}

// refusable reports whether deltaWord may refuse an item that fits a word:
// a delta-coded field that changed by more than 32 bits hold, or by a turn
// of its wrap or more, or a predicted residual past 32 bits.
func refusable(fields []fieldPlan, cur, bimg []int32, dc *deltaContext) bool {
	for _, f := range fields {
		if !f.delta {
			continue
		}
		full := int64(cur[f.off]) - int64(bimg[f.off])
		if full != int64(int32(full)) {
			return true // a change past 32 bits
		}
		d := int32(full)
		if f.wrap > 0 && (d <= -f.wrap || d >= f.wrap) {
			return true
		}
		if f.vel >= 0 && dc.moving && dc.mo[f.field&3] != 0 {
			if f.wrap > 0 {
				d = wrapDiff(cur[f.off], bimg[f.off], f.wrap)
			}
			if r := int64(d) - dc.mo[f.field&3]; r != int64(int32(r)) {
				return true
			}
		}
	}
	return false
}

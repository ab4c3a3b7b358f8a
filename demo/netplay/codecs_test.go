package netplay

import (
	"image/color"
	"math"
	"testing"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// roundTrip quantizes v with c and returns what a client holds of it.
func roundTrip[T any](c replicate.Codec[T], v T) T {
	q := make([]int32, c.Fields)
	c.Quantize(&v, q)
	var out T
	c.Dequantize(q, &out)
	return out
}

func TestCodecsRoundTrip(t *testing.T) {
	p := game.Player{Team: game.Right, Color: color.RGBA{0x4d, 0xe0, 0x8a, 0xff}, DashReady: 123456}
	if got := roundTrip(PlayerCodec(), p); got != p {
		t.Errorf("Player %+v came back %+v", p, got)
	}
	s := game.Score{Left: 3, Right: 12, LastGoal: 98765, LastTeam: game.Left}
	if got := roundTrip(ScoreCodec(), s); got != s {
		t.Errorf("Score %+v came back %+v", s, got)
	}
	c := game.Crate{W: 41.3, H: 37.9, Shade: 2, Home: ecs.Transform{X: 300.25, Y: 200.5, Angle: 0.3}}
	got := roundTrip(CrateCodec(), c)
	if d := got.W - c.W; d > 1.0/1024 || d < -1.0/1024 || got.Shade != 2 || math.Hypot(got.Home.X-c.Home.X, got.Home.Y-c.Home.Y) > 1.0/replicate.PositionScale {
		t.Errorf("Crate %+v came back %+v", c, got)
	}
}

// A host sending sizes no body can have (zero, negative, huge) must not
// bring the client down: the physics refuses bodies without mass.
func TestCodecsKeepSizesPhysical(t *testing.T) {
	for _, q := range []int32{0, -5, 1 << 30} {
		var c game.Crate
		CrateCodec().Dequantize([]int32{q, q, 7, 0, 0, 0}, &c)
		if c.W < minSize || c.H < minSize || c.W > maxSize {
			t.Errorf("crate side %d steps read as %v×%v", q, c.W, c.H)
		}
		var b game.Ball
		BallCodec().Dequantize([]int32{q}, &b)
		if b.R < minSize || b.R > maxSize {
			t.Errorf("ball radius %d steps read as %v", q, b.R)
		}
	}
}

func TestTransformToleranceIsTheGames(t *testing.T) {
	eq := TransformCodec().Equal
	a := ecs.Transform{X: 10, Y: 10, Angle: 1}
	if !eq(&a, &ecs.Transform{X: 10.2, Y: 10, Angle: 1.005}) {
		t.Error("poses 0.2 units apart are not equal within PoseTolerance")
	}
	if eq(&a, &ecs.Transform{X: 10.3, Y: 10, Angle: 1}) || eq(&a, &ecs.Transform{X: 10, Y: 10, Angle: 1.02}) {
		t.Error("poses beyond PoseTolerance or AngleTolerance are equal")
	}
}

func TestInputCodec(t *testing.T) {
	c := InputCodec()
	for _, in := range []game.Input{{}, {MoveX: 127, MoveY: -127, Dash: true}, {MoveX: -3, MoveY: 90}} {
		b := c.Append(nil, &in)
		if len(b) != inputSize {
			t.Fatalf("%+v encodes to %d bytes, want %d", in, len(b), inputSize)
		}
		r := wire.NewReader(b)
		var out game.Input
		c.Read(&r, &out)
		if r.Err() != nil || out != in || r.Len() != 0 {
			t.Fatalf("%+v came back %+v (%v)", in, out, r.Err())
		}
	}
	for _, bad := range [][]byte{{0x80, 0, 0}, {0, 0x80, 0}, {0, 0, 2}, {0, 0}} {
		r := wire.NewReader(bad)
		var out game.Input
		c.Read(&r, &out)
		if r.Err() == nil {
			t.Errorf("input % x was accepted as %+v", bad, out)
		}
	}
}

func FuzzInputCodec(f *testing.F) {
	c := InputCodec()
	for _, in := range []game.Input{{}, {MoveX: 127, MoveY: -127, Dash: true}, {MoveX: -3, MoveY: 90}} {
		f.Add(c.Append(nil, &in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := wire.NewReader(b)
		var in game.Input
		c.Read(&r, &in)
		if r.Err() != nil {
			return
		}
		// What was accepted encodes back to the bytes read.
		if again := c.Append(nil, &in); string(again) != string(b[:inputSize]) {
			t.Fatalf("% x read as %+v, which encodes to % x", b[:inputSize], in, again)
		}
		if in.MoveX < -game.InputAxisMax || in.MoveY < -game.InputAxisMax {
			t.Fatalf("% x read as %+v, outside the axes' range", b, in)
		}
	})
}

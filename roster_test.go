package tandem

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// With Game.Roster every machine knows who plays: a client sees the host's
// player and itself by name, with its round trip as the host measured it;
// a second client's arrival and departure reach the first.
func TestRosterReachesEveryClient(t *testing.T) {
	g := testGame()
	g.Roster = true
	arrived := g.Arrived // it gives everything a body: roster entities have none
	g.Arrived = func(w *World, e arche.Entity) {
		if w.ECS.Arche().Has(e, w.ECS.IDs.Transform) {
			arrived(w, e)
		}
	}
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	link := condition.Config{Latency: 25 * time.Millisecond}
	n, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := n.Listen("host")
	h, err := NewHost(g, HostConfig{Clock: clk, Name: "Zoë the host"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	join := func(name string) *Client[push] {
		tc, err := n.Dial(context.Background(), "host")
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewClient(g, tc, ClientConfig[push]{Name: name, Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		hc, _ := l.Accept(context.Background())
		h.Accept(hc)
		return c
	}
	run := func(d time.Duration, cs ...*Client[push]) {
		for end := clk.Now().Add(d); clk.Now().Before(end); {
			clk.Advance(time.Second / 120)
			h.Advance()
			for _, c := range cs {
				c.Advance()
			}
		}
	}
	members := func(c interface{ Do(func(*World)) }) (m []Member) {
		c.Do(func(w *World) { m = Members(w, nil) })
		return m
	}
	a := join("Ana")
	run(3*time.Second, a)
	got := members(a)
	if len(got) != 2 || got[0] != (Member{Peer: ecs.HostPeer, Name: "Zoë the host"}) || got[1].Peer != a.Peer() || got[1].Name != "Ana" {
		t.Fatalf("the client's roster is %+v, want the host's player and Ana", got)
	}
	// 25 ms each way on the link: the host measures a little more than 50 ms (steps and acks add some).
	if rtt := got[1].RTT; rtt < 45*time.Millisecond || rtt > 100*time.Millisecond {
		t.Fatalf("Ana's round trip in the roster is %v, want the host's measure, about 50 ms", rtt)
	}

	b := join("Бора")
	run(2*time.Second, a, b)
	if got := members(a); len(got) != 3 || got[2].Name != "Бора" {
		t.Fatalf("after a second join the first client's roster is %+v", got)
	}
	if got := members(h); len(got) != 3 {
		t.Fatalf("the host's roster is %+v, want three members", got)
	}
	b.Close()
	run(2*time.Second, a)
	if got := members(a); len(got) != 2 || got[1].Name != "Ana" {
		t.Fatalf("after Бора left the first client's roster is %+v", got)
	}
}

// A lone game's roster holds its player, named by LocalConfig.Name.
func TestRosterAlone(t *testing.T) {
	g := testGame()
	g.Roster = true
	l, err := NewLocal(g, LocalConfig{Clock: clock.NewFake(time.Unix(0, 0)), Name: "solo"})
	if err != nil {
		t.Fatal(err)
	}
	var got []Member
	l.Do(func(w *World) { got = Members(w, nil) })
	if len(got) != 1 || got[0] != (Member{Peer: ecs.HostPeer, Name: "solo"}) {
		t.Fatalf("roster %+v, want the one player named solo", got)
	}
}

// A name on the wire that the host would not have let in (not UTF-8, a
// control character) is shown as "?".
func TestRosterNameDecodesOnlyNames(t *testing.T) {
	name := rosterNameCodec()
	for in, want := range map[string]string{"Ana": "Ana", "漢字かな": "漢字かな", "a\nb": "?", "\xff\xfe": "?", "exactly thirty-two bytes long ok": "exactly thirty-two bytes long ok"} {
		q := make([]int32, name.Fields)
		name.Quantize(&memberName{in}, q)
		var out memberName
		name.Dequantize(q, &out)
		if out.s != want {
			t.Errorf("%q decodes as %q, want %q", in, out.s, want)
		}
	}
}

// Whatever integers arrive for a roster name decode to a name wire.CheckName
// accepts, or to "?".
func FuzzRosterName(f *testing.F) {
	f.Add([]byte("Ana"))
	f.Add([]byte{0xff, 0, 'a', '\n'})
	codec := rosterNameCodec()
	f.Fuzz(func(t *testing.T, b []byte) {
		q := make([]int32, codec.Fields)
		for i := range q {
			var w [4]byte
			copy(w[:], b[min(len(b), 4*i):])
			q[i] = int32(binary.LittleEndian.Uint32(w[:]))
		}
		var v memberName
		codec.Dequantize(q, &v)
		if v.s != "?" && wire.CheckName(v.s) != nil {
			t.Fatalf("decoded %q, which is no name", v.s)
		}
	})
}

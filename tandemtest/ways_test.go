package tandemtest

import (
	"testing"

	"github.com/tandem-go/tandem/net/transport/condition"
)

// One link given for both ways of a Loopback client (JoinOver) gets two
// seeds, so the ways do not lose the same packets; links given apart keep
// what they said but their seeds.
func TestWaysApart(t *testing.T) {
	link := condition.Config{Loss: 0.5, Seed: 7}
	out, in := waysApart(link, link)
	if out.Seed == in.Seed {
		t.Fatalf("one link both ways: seeds %d and %d, want them apart", out.Seed, in.Seed)
	}
	out.Seed, in.Seed = link.Seed, link.Seed
	if out != link || in != link {
		t.Fatalf("the ways' links changed beyond their seeds: %+v, %+v", out, in)
	}
	if a, b := waysApart(condition.Config{Seed: 1}, condition.Config{Seed: 0}); a.Seed == b.Seed {
		t.Fatalf("seeds 1 and 0 drawn to %d and %d", a.Seed, b.Seed)
	}
}

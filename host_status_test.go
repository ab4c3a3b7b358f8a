package tandem

import (
	"testing"
)

// A host's figures can be read anywhere: from inside a Do callback and an
// observer (where the world is locked) too, as the host published them at
// the end of its last step or call; publishing allocates nothing.
func TestHostFiguresAnywhere(t *testing.T) {
	r := newRig(t, HostConfig{})
	var seen []int // Joined, as an observer of each join reads it
	r.host.OnEvent(func(e Event) {
		if e.Kind == PeerJoined {
			seen = append(seen, r.host.Stats().Joined)
			_, _, _ = r.host.SaveStats(), r.host.Restored(), r.host.Withheld()
		}
	})
	r.join("ann", ClientConfig[push]{})
	var inside HostStats
	r.host.Do(func(w *World) { inside = r.host.Stats() })
	if inside.Players != 1 || inside.Joined != 1 {
		t.Fatalf("inside Do: %+v, want ann playing", inside)
	}
	if outside := r.host.Stats(); outside != inside {
		t.Fatalf("outside: %+v, inside Do: %+v; want the same", outside, inside)
	}
	r.join("bob", ClientConfig[push]{})
	if st := r.host.Stats(); st.Players != 2 || st.Joined != 2 {
		t.Fatalf("after bob joined: %+v", st)
	}
	// Each observer read the figures published before its step: ann's join
	// saw none, bob's saw ann's.
	if len(seen) != 2 || seen[0] != 0 || seen[1] != 1 {
		t.Fatalf("observers read Joined %v, want [0 1]", seen)
	}
	if n := testing.AllocsPerRun(50, func() { r.host.Do(func(*World) {}) }); n != 0 {
		t.Fatalf("a Do (publishing the figures) allocates %.1f times", n)
	}
}

package predict

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A client whose host leaps ahead again and again (a client too slow for
// it, as under the race detector) jumps each time, counted, but warns at
// most once every 10 s: the next warning says how many jumps went unsaid,
// and the lines and their counts add up to every jump (but those after
// the last line, which the next tells of).
func TestJumpsAreWarnedOfAtMostOnceEveryTenSeconds(t *testing.T) {
	var log bytes.Buffer
	r, repl := joinedToAnEmptyWorld(t, &log)
	host := uint32(200)
	r.w.SetFrame(ecs.Frame(host))
	// 25 s: each second the host is half a second further ahead.
	const seconds = 25
	for step := range seconds * 60 {
		host++
		if step%60 == 59 {
			host += 30
		}
		if _, err := repl.HandleDatagram(wire.KindState, emptyState(r.reg, host)); err != nil {
			t.Fatal(err)
		}
		r.steps(1)
	}
	jumps := r.pred.Sync().Stats().Jumps
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if jumps < 5 {
		t.Fatalf("%d jumps in %d s of a host leaping ahead each second: the test tests nothing", jumps, seconds)
	}
	said := 0
	for i, l := range lines {
		if !strings.Contains(l, "client frame jumped") {
			t.Fatalf("line %d: %s", i, l)
		}
		said++
		if _, n, ok := strings.Cut(l, "jumps_since_last_warning="); ok {
			k, err := strconv.Atoi(strings.Fields(n)[0])
			if err != nil || i == 0 {
				t.Fatalf("line %d counts %q unsaid jumps", i, n)
			}
			said += k
		}
	}
	if quiet := r.pred.jumpLog.quiet; len(lines) < 2 || len(lines) > 1+seconds/10 || uint64(said+quiet) != jumps {
		t.Fatalf("%d jumps in %d s logged %d lines telling of %d, %d since; want one line every 10 s at most, telling of every jump but those since:\n%s", jumps, seconds, len(lines), said, quiet, log.String())
	}
}

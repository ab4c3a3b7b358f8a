package tandemtest

import (
	"strings"
	"testing"
)

// recordingTB keeps what is logged to it.
type recordingTB struct {
	testing.TB
	lines []string
}

func (r *recordingTB) Log(args ...any) {
	for _, a := range args {
		r.lines = append(r.lines, a.(string))
	}
}

// A rig's logger writes each record to the test's log, named, without the
// fake clock's time, and nothing once the test's cleanups ran.
func TestLoggerWritesToTheTest(t *testing.T) {
	rec := &recordingTB{TB: t}
	var stops []func()
	log := newTestWriter(cleanups{rec, &stops}).logger("ann")
	log.Warn("predict: client frame jumped", "from", 10)
	if len(rec.lines) != 1 || !strings.Contains(rec.lines[0], `msg="predict: client frame jumped"`) ||
		!strings.Contains(rec.lines[0], "rig=ann") || strings.Contains(rec.lines[0], "time=") {
		t.Fatalf("logged %q; want one line with the message and rig=ann, without the time", rec.lines)
	}
	for _, stop := range stops {
		stop()
	}
	log.Warn("after the test")
	if len(rec.lines) != 1 {
		t.Fatalf("logged after the cleanups: %q", rec.lines[1:])
	}
}

// cleanups is a recordingTB whose Cleanup keeps the functions, for the
// test to run.
type cleanups struct {
	*recordingTB
	fns *[]func()
}

func (c cleanups) Cleanup(f func()) { *c.fns = append(*c.fns, f) }

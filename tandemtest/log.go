package tandemtest

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
)

// testLogger returns a logger that writes each record to t's log, named by
// who ("host", or a client's name), without the time (a rig's clock is
// fake: its dates mean nothing): what the engine says shows beside the
// test that made it say so, under `go test -v` or when the test fails. A
// record after the test's cleanups ran goes nowhere.
func testLogger(t testing.TB, who string) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.stop) // registered first, so it runs after the rig closed
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})).With("rig", who)
}

// testWriter hands each line written to t.Log until stop.
type testWriter struct {
	t       testing.TB
	mu      sync.Mutex
	stopped bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Log(string(bytes.TrimRight(p, "\n")))
	}
	return len(p), nil
}

func (w *testWriter) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}

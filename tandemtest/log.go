package tandemtest

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
)

// testWriter hands each line written to t.Log until stop: what the engine
// says shows beside the test that made it say so, under `go test -v` or
// when the test fails, and a record after the test's cleanups ran goes
// nowhere. A rig makes one for its host and its clients before it
// registers its close, so that it stops after the rig closed them: what
// they log as they close shows too.
type testWriter struct {
	t       testing.TB
	mu      sync.Mutex
	stopped bool
}

// newTestWriter returns a writer to t's log that stops when t's cleanups
// reach it (they run last registered first).
func newTestWriter(t testing.TB) *testWriter {
	w := &testWriter{t: t}
	t.Cleanup(w.stop)
	return w
}

// logger returns a logger that writes each record to w, named by who
// ("host", or a client's name), without the time (a rig's clock is fake:
// its dates mean nothing).
func (w *testWriter) logger(who string) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})).With("rig", who)
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

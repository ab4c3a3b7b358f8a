package launch

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Log returns a logger that writes each record to w as one line in the form
// of the launch's own lines: "app: message key=value ...", a value quoted
// when it has a space, a quote, an equals sign or a control character; no
// time (a terminal's lines need none) and no level, but an error's message
// begins "error: ". Records under slog.LevelInfo are dropped.
//
// Open gives it (to its Options.Stderr) to the host, the client or the
// session alone, unless the game's own Options.Host, Options.Client or
// Options.Local set a Logger, and always to the QUIC transport it makes (as
// Flags.QUIC does, to standard error), so the engine's notices (a client
// frame that jumped, a refused handshake, a budget that stayed full) read
// like the rest of the program's log. Safe for concurrent use: each line
// is written whole, under a lock shared by the loggers derived from it
// (With, WithGroup) and by every line Open and ServeFleet write to the
// same writer.
func Log(app string, w io.Writer) *slog.Logger {
	return slog.New(&lineHandler{app: app, out: lockWriter(w)})
}

// lockWriter returns w with a lock around each Write: w itself when it is
// one already, so that every writer of a log shares its lock.
func lockWriter(w io.Writer) *lockedWriter {
	if lw, ok := w.(*lockedWriter); ok {
		return lw
	}
	return &lockedWriter{w: w}
}

// lineHandler is Log's slog.Handler.
type lineHandler struct {
	app    string
	out    *lockedWriter
	attrs  []byte // attributes of With, formatted, each with its space
	prefix string // groups of WithGroup, "a.b." before a key
}

// lockedWriter writes to w one Write at a time: whole lines, when each
// Write is one.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lockedWriter) Write(b []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(b)
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	b := make([]byte, 0, 128)
	b = append(b, h.app...)
	b = append(b, ": "...)
	if r.Level >= slog.LevelError {
		b = append(b, "error: "...)
	}
	b = appendText(b, r.Message)
	b = append(b, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		b = appendAttr(b, h.prefix, a)
		return true
	})
	b = append(b, '\n')
	_, err := h.out.Write(b)
	return err
}

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]byte(nil), h.attrs...)
	for _, a := range as {
		c.attrs = appendAttr(c.attrs, h.prefix, a)
	}
	return &c
}

func (h *lineHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}

// appendAttr appends " key=value" to b, the key after prefix; a group's
// attributes each as "group.key=value"; nothing for an empty attribute.
func appendAttr(b []byte, prefix string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return b
	}
	if a.Value.Kind() == slog.KindGroup {
		if a.Key != "" {
			prefix += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			b = appendAttr(b, prefix, g)
		}
		return b
	}
	b = append(b, ' ')
	b = appendText(b, prefix+a.Key)
	b = append(b, '=')
	s := a.Value.String()
	if needsQuote(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// appendText appends s to b as it is, but with its control characters (a
// newline) escaped as in a Go string, so that a line stays one.
func appendText(b []byte, s string) []byte {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return append(b, s...)
	}
	q := strconv.Quote(s)
	return append(b, q[1:len(q)-1]...)
}

// needsQuote reports whether a value must be quoted to stay one token.
func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	return strings.ContainsFunc(s, func(r rune) bool {
		return r == ' ' || r == '"' || r == '=' || unicode.IsControl(r) || unicode.IsSpace(r)
	})
}

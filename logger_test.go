package tandem

import (
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
)

// The engine's warnings go to the Logger of the config: a Do that waits
// while a View callback holds the world for seconds is reported there, by
// a game alone, a host and a client alike, and nothing of it reaches slog's
// default logger.
func TestLoggerHearsTheWorldHeld(t *testing.T) {
	def := captureDefaultLog(t)
	bubble.Test(t, func(t *testing.T) {
		aloneLog, hostLog, clientLog := &lockedText{}, &lockedText{}, &lockedText{}
		alone, err := NewLocal(ledgerGame(), LocalConfig{Logger: slog.New(slog.NewTextHandler(aloneLog, nil))})
		if err != nil {
			t.Fatal(err)
		}
		defer alone.Close()
		r := newRig(t, HostConfig{Logger: slog.New(slog.NewTextHandler(hostLog, nil))})
		c := r.join("ann", ClientConfig[push]{Logger: slog.New(slog.NewTextHandler(clientLog, nil))})
		for _, game := range []struct {
			name string
			view func(time.Time, func(*View))
			do   func(func(*World))
			log  *lockedText
		}{
			{"a game alone", alone.View, alone.Do, aloneLog},
			{"a host", r.host.View, r.host.Do, hostLog},
			{"a client", c.View, c.Do, clientLog},
		} {
			done := make(chan struct{})
			game.view(time.Now(), func(*View) {
				go func() {
					game.do(func(*World) {})
					close(done)
				}()
				synctest.Wait() // the Do waits for the world
				time.Sleep(2 * worldHeldLimit)
			})
			<-done
			if out := game.log.String(); strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "Do has waited") {
				t.Fatalf("%s's Logger heard %q; want one warning of the Do that waited", game.name, out)
			}
		}
		if def.Len() != 0 {
			t.Fatalf("slog's default logger heard %q; want everything on the configs' loggers", def.String())
		}
	})
}

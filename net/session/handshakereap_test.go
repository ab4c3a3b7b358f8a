package session

import (
	"context"
	"testing"

	"github.com/tandem-go/tandem/net/transport/condition"
)

// Connections arriving between two steps, each answered at once by
// Handshake (as a game's loop does on every arrival), and closed past
// MaxPending, are let go by the next Handshake, not held (each with its
// connection's queues) until the step: 1,500 of them held 1,500 in the
// host, 140 KiB each.
func TestHandshakeLetsGoOfWhatItClosed(t *testing.T) {
	wd := newWorld(t, condition.Config{}, HostConfig{})
	wd.step()
	const n = 500
	for range n {
		if _, err := wd.net.Dial(context.Background(), "host"); err != nil {
			t.Fatal(err)
		}
		acceptPending(wd.l, wd.host)
		wd.host.Handshake()
		if held := len(wd.host.peers); held > wd.host.cfg.MaxPending {
			t.Fatalf("the host holds %d connections between steps (MaxPending %d): those it closed are not let go", held, wd.host.cfg.MaxPending)
		}
	}
	if st := wd.host.Stats(); st.Evicted != uint64(n-wd.host.cfg.MaxPending) {
		t.Fatalf("%d connections, %d held at once: %d closed as busy, want %d", n, wd.host.cfg.MaxPending, st.Evicted, n-wd.host.cfg.MaxPending)
	}
}

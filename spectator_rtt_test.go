package tandem

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport/condition"
)

// A spectator, which sends no input, measures its round trip all the same
// (its connection's keep-alive probes, once it plays): the link's 120 ms
// and the steps either side reads at, not the 200 ms assumed before a
// measurement.
func TestSpectatorMeasuresItsRoundTrip(t *testing.T) {
	p := newPairConfigured(t, testGame(), testGame(), condition.Config{Latency: 60 * time.Millisecond}, HostConfig{Spectators: 1}, ClientConfig[push]{Spectator: true})
	p.run(5 * time.Second)
	if st := p.client.State(); st != Playing {
		t.Fatalf("the spectator is %v: %v", st, p.client.Err())
	}
	if got := p.client.NetStats().RTT; got < 120*time.Millisecond || got > 160*time.Millisecond {
		t.Fatalf("over 60 ms each way the spectator measures a round trip of %v; want 120 ms and a step or two", got)
	}
}

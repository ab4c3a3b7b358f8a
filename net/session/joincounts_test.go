package session

import "testing"

// The host's count of a join's pages and bytes is the client's: pages alone,
// bytes with FINAL's.
func TestJoinCountsMatch(t *testing.T) {
	for _, n := range []int{10, 30000} {
		p := newPair(t, n, HostConfig{})
		_, hs, ok := p.host.PeerStats(p.client.cl.Peer())
		if !ok {
			t.Fatal("the host has no stats of its peer")
		}
		cs := p.client.cl.Replicator().Stats()
		if hs.JoinPages == 0 || hs.JoinPages != cs.Pages || hs.JoinBytes != cs.JoinBytes {
			t.Errorf("%d entities: the host sent %d pages in %d bytes, the client counts %d pages in %d bytes", n, hs.JoinPages, hs.JoinBytes, cs.Pages, cs.JoinBytes)
		}
	}
}

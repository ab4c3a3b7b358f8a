package tandem

import "testing"

// A client says the name it was given, and "player" for none.
func TestClientName(t *testing.T) {
	r := newRig(t, HostConfig{})
	for _, c := range []struct{ given, want string }{{"ann", "ann"}, {"", "player"}} {
		if got := r.join(c.given, ClientConfig[push]{}).Name(); got != c.want {
			t.Errorf("a client named %q says %q, want %q", c.given, got, c.want)
		}
	}
}

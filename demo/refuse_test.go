package main

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/wire"
)

// refusingHost listens on loopback and answers every Hello with a Reject of
// code and reason, as a full host does; it returns the join address and
// certificate fingerprint.
func refusingHost(t *testing.T, code wire.RejectCode, reason string) (addr, pin string) {
	t.Helper()
	tr, err := quicnet.New(quicnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := tr.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); l.Close() })
	go func() {
		for {
			c, err := l.Accept(ctx)
			if err != nil {
				return
			}
			qc := c.(*quicnet.Conn)
			go func() {
				defer qc.Close(transport.CloseNormal, "")
				for {
					select {
					case <-qc.Arrived():
					case <-qc.Done():
						return
					case <-ctx.Done():
						return
					}
					if _, msg, ok := qc.RecvMessage(); ok && wire.Kind(msg[0]) == wire.KindHello {
						rj, _ := wire.Reject{Code: code, Version: wire.Version, Reason: reason}.Encode(nil)
						qc.SendMessage(transport.LaneControl, rj)
					}
				}
			}()
		}
	}()
	return l.Addr().String(), tr.Fingerprint()
}

// exitOf runs the demo with args and returns its exit code and output.
func exitOf(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, demoBinary(t), args...).CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("demo %v: %v", args, err)
	return 0, ""
}

// TestRefusedClientExitsNonZero: a client the host refuses exits 1 and
// prints the host's reason.
func TestRefusedClientExitsNonZero(t *testing.T) {
	addr, pin := refusingHost(t, wire.RejectFull, "host full (8 players); try again later")
	code, out := exitOf(t, "-join", addr, "-pin", pin, "-headless", "-ticks", "60")
	if code != 1 || !strings.Contains(out, "host full (8 players); try again later") {
		t.Fatalf("exit %d, output:\n%s\nwant exit 1 and the host's reason", code, out)
	}
}

// TestRestartedHostEndsOldClients: a host killed (SIGKILL, no goodbye) and
// started again on the same port with the same reset key makes its old
// client's connection end at once (a stateless reset), not at the 10 s idle
// timeout. The client tries to reconnect, finds a host with another
// certificate than the one it pinned, and exits 1 saying both.
func TestRestartedHostEndsOldClients(t *testing.T) {
	key := filepath.Join(t.TempDir(), "reset-key")
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "1", "-reset-key", key)
	m := host.waitLine(joinLine)
	addr, pin := m[1], m[2]
	client := start(t, "client", "-join", addr, "-pin", pin, "-headless", "-bot", "-name", "old")
	client.waitLine(joinedLine)
	host.signal(syscall.SIGKILL)
	<-host.done
	killed := time.Now()
	again := start(t, "host again", "-host", "-addr", addr, "-headless", "-bots", "1", "-reset-key", key)
	again.waitLine(joinLine)
	client.waitLine(regexp.MustCompile(`the connection broke, reconnecting: .*no longer knows this connection`))
	noticed := time.Since(killed)
	<-client.done
	took := time.Since(killed)
	var ee *exec.ExitError
	if !errors.As(client.err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("the old client exited with %v, want exit 1", client.err)
	}
	if !regexp.MustCompile(`certificate fingerprint is [0-9a-f]+, not the pinned`).MatchString(client.output()) {
		t.Fatalf("the old client did not say the host is not the one it joined:\n%s", client.output())
	}
	t.Logf("the old client noticed %v after the host was killed, and ended %v after it", noticed.Round(time.Millisecond), took.Round(time.Millisecond))
	if took > 8*time.Second {
		t.Fatalf("the old client ended %v after the kill: that is its idle timeout, not a reset", took)
	}
	again.signal(syscall.SIGINT)
	again.wait()
}

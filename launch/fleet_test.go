package launch

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/agones/agonestest"
	"github.com/tandem-go/tandem/fleet"
)

// ServeFleet listens on -addr, publishes the listener's pin, says Ready,
// opens the world an allocation names from -save with the flags' host
// settings, and with -empty-for ends that world once nobody plays in it:
// its final save, Shutdown, and nil.
func TestServeFleet(t *testing.T) {
	side := agonestest.New()
	side.SetList("players", 8)
	t.Cleanup(side.Close)
	sdk, err := agones.New(agones.Options{HTTPClient: side.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	save := filepath.Join(t.TempDir(), "worlds.db")
	f := &Flags{App: "mygame", Fleet: true}
	fs := newFlagSet()
	f.Register(fs)
	if err := fs.Parse([]string{"-host", "-agones", "-addr", "127.0.0.1:0", "-save", save, "-max-players", "6", "-empty-for", "1s"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Check(fs); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	hosts := make(chan tandem.HostConfig, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- f.ServeFleet(ctx, fleet.Config{SDK: sdk}, func(hc tandem.HostConfig) (fleet.Host, error) {
			hosts <- hc
			return tandem.NewHost(standers, hc)
		}, &stdout, &stderr)
	}()
	if err := side.WaitState(ctx, agones.StateReady); err != nil {
		t.Fatalf("no Ready: %v (said %q %q)", err, stdout.String(), stderr.String())
	}
	m := regexp.MustCompile(`mygame: game server on 127\.0\.0\.1:\d+, certificate ([0-9a-f]{64})`).FindStringSubmatch(stdout.String())
	if m == nil || side.GameServer().ObjectMeta.Annotations[agones.SDKPrefix+fleet.PinAnnotation] != m[1] {
		t.Fatalf("the published pin is not the listener's certificate: said %q, annotations %v", stdout.String(), side.GameServer().ObjectMeta.Annotations)
	}
	if warm := <-hosts; warm.SaveTo != "" || warm.MaxPeers != 6 {
		t.Fatalf("the warm world's host: %+v; want it in memory, 6 people", warm)
	}
	side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-3"})
	var got tandem.HostConfig
	select {
	case got = <-hosts:
	case <-ctx.Done():
		t.Fatal("the allocated world was not opened")
	}
	if got.SaveTo != save || got.World != "arena-3" || got.MaxPeers != 6 {
		t.Fatalf("the allocated world's host: %+v; want it saved to %s as arena-3, 6 people", got, save)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeFleet ended with %v", err)
		}
	case <-ctx.Done():
		t.Fatalf("the empty world was not ended (-empty-for 1s); said %q", stdout.String())
	}
	if !strings.Contains(stdout.String(), "mygame: world arena-3, saved to "+save) || side.Count("/shutdown") != 1 {
		t.Fatalf("said %q, %d Shutdown calls; want the world's line and one Shutdown", stdout.String(), side.Count("/shutdown"))
	}
}

package launch

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/agones/agonestest"
	"github.com/tandem-go/tandem/fleet"
)

// The fleet's -save URL comes from a Secret (deploy/fleet.yaml) and holds the
// database's password: what the game server logs must not.
func TestServeFleetLogsNoPassword(t *testing.T) {
	side := agonestest.New()
	side.SetList("players", 8)
	t.Cleanup(side.Close)
	sdk, _ := agones.New(agones.Options{HTTPClient: side.HTTPClient()})
	f := &Flags{App: "mygame", Fleet: true}
	fs := newFlagSet()
	f.Register(fs)
	const url = "postgres://tandem:s3cretPW@127.0.0.1:1/tandem?sslmode=disable&connect_timeout=1"
	if err := fs.Parse([]string{"-host", "-agones", "-addr", "127.0.0.1:0", "-save", url}); err != nil {
		t.Fatal(err)
	}
	if err := f.Check(fs); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- f.ServeFleet(ctx, fleet.Config{SDK: sdk, OpenTimeout: time.Second}, func(hc tandem.HostConfig) (fleet.Host, error) {
			return tandem.NewHost(standers, hc)
		}, &stdout, &stderr)
	}()
	if err := side.WaitState(ctx, agones.StateReady); err != nil {
		t.Fatal(err)
	}
	side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-3"})
	err := <-done
	out := stdout.String() + stderr.String()
	if strings.Contains(out, "s3cretPW") || (err != nil && strings.Contains(err.Error(), "s3cretPW")) {
		t.Errorf("the database password was logged:\n%s\nRun: %v", out, err)
	}
}

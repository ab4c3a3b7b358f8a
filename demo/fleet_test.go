package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/agones/agonestest"
	"github.com/tandem-go/tandem/fleet"
	"github.com/tandem-go/tandem/store"
)

// TestAgonesGameServer runs the demo binary as a game server (-host
// -agones) against a fake SDK server on loopback: it publishes its pin and
// says Ready, loads the world an allocation names into its save, and on
// SIGTERM saves it and says Shutdown, exiting 0.
func TestAgonesGameServer(t *testing.T) {
	side := agonestest.New()
	side.SetList("players", 8)
	addr := side.Start(t)
	save := filepath.Join(t.TempDir(), "worlds.db")
	p := startWith(t, "game server", []string{agones.PortEnv + "=" + addr[strings.LastIndex(addr, ":")+1:]},
		"-host", "-agones", "-addr", "127.0.0.1:0", "-save", save, "-bots", "2")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := side.WaitState(ctx, agones.StateReady); err != nil {
		t.Fatalf("no Ready: %v", err)
	}
	if pin := side.GameServer().ObjectMeta.Annotations[agones.SDKPrefix+fleet.PinAnnotation]; len(pin) != 64 {
		t.Fatalf("the pin annotation is %q, want the certificate's SHA-256 in hex", pin)
	}
	side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-3"})
	// The allocated world opens (the warm world's host pinged Health too:
	// its pings say nothing of the allocation), then its host pings Health
	// as it ticks (every 2.5 s).
	p.waitLine(regexp.MustCompile(`^` + logName + `: world arena-3, saved to ` + regexp.QuoteMeta(save) + `$`))
	if err := side.WaitCount(ctx, "/health", side.Count("/health")+1); err != nil {
		t.Fatalf("no Health from the allocated world's host: %v", err)
	}
	p.signal(syscall.SIGTERM)
	p.wait()
	if n := side.Count("/shutdown"); n != 1 {
		t.Fatalf("%d Shutdown calls, want 1", n)
	}
	db, err := store.Open(ctx, save, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.OpenWorld(ctx, "arena-3")
	if err != nil {
		t.Fatal(err)
	}
	seq, err := w.Load(ctx, func(key, value []byte) error { return nil })
	if err != nil || seq == 0 {
		t.Fatalf("the allocated world's save: seq %d, %v; want a save", seq, err)
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	cmd := exec.Command(demoBinary(t), "-host", "-agones", "-addr", "127.0.0.1:0", "-save", save, "-bots", "2")
	cmd.Env = append(os.Environ(), agones.PortEnv+"="+addr[strings.LastIndex(addr, ":")+1:])
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := side.WaitCount(ctx, "/ready", 1); err != nil {
		t.Fatalf("no Ready: %v", err)
	}
	if pin := side.GameServer().ObjectMeta.Annotations[agones.SDKPrefix+fleet.PinAnnotation]; len(pin) != 64 {
		t.Fatalf("the pin annotation is %q, want the certificate's SHA-256 in hex", pin)
	}
	side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-3"})
	// The allocated world's host pings Health as it ticks (every 2.5 s).
	if err := side.WaitCount(ctx, "/health", 2); err != nil {
		t.Fatalf("no Health from the allocated world's host: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the game server exited with %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("the game server did not exit after SIGTERM")
	}
	if n := side.Count("/shutdown"); n != 1 {
		t.Fatalf("%d Shutdown calls, want 1", n)
	}
	if !strings.Contains(stdout.String(), "world arena-3, saved to "+save) {
		t.Errorf("stdout does not tell of the allocated world:\n%s", stdout.String())
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

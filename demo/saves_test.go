package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
)

var restoredLine = regexp.MustCompile(`^tandem-demo: restored save \d+: frame (\d+), (\d+) entities`)

// TestHostRestartsOnItsSave: a host with -save stopped (SIGINT: its final
// save) and started again restores its world, logs the frame and entity
// count, and keeps its certificate: the same join line, so the pins its
// players hold still hold; a spectator joins it and watches.
func TestHostRestartsOnItsSave(t *testing.T) {
	save := filepath.Join(t.TempDir(), "world.db")
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "2", "-crates", "6", "-save", save)
	m := host.waitLine(joinLine)
	addr, pin := m[1], m[2]
	host.waitLine(regexp.MustCompile(`^tandem-demo: saving the world to ` + regexp.QuoteMeta(save)))
	client := start(t, "ann", "-join", addr, "-pin", pin, "-headless", "-bot", "-ticks", "120", "-name", "ann")
	client.wait()
	host.waitLine(regexp.MustCompile(`^tandem-demo: peer \d+ \(ann\) left`))
	host.signal(syscall.SIGINT)
	host.wait()

	again := start(t, "host again", "-host", "-addr", addr, "-headless", "-bots", "2", "-crates", "6", "-save", save)
	r := again.waitLine(restoredLine)
	frame, _ := strconv.Atoi(r[1])
	entities, _ := strconv.Atoi(r[2])
	// 6 crates, the ball, the score and two bots; ann left before the save.
	if frame < 120 || entities != 10 {
		t.Fatalf("restored frame %d with %d entities; want past 120 and 10", frame, entities)
	}
	if m2 := again.waitLine(joinLine); m2[2] != pin {
		t.Fatalf("the restarted host presents certificate %s, was %s: pins break", m2[2], pin)
	}
	watcher := start(t, "eve", "-join", addr, "-pin", pin, "-headless", "-spectate", "-ticks", "60", "-name", "eve")
	out := watcher.wait()
	if m := lineOf(t, "eve", out, clientLine); m[2] != "10" {
		t.Fatalf("the spectator holds %s entities, want the 10 of the world (none of its own)", m[2])
	}
	again.signal(syscall.SIGINT)
	again.wait()
}

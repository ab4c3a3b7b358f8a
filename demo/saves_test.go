package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

var restoredLine = regexp.MustCompile(`^` + logName + `: restored save \d+: frame (\d+), (\d+) entities`)

// TestHostRestartsOnItsSave: a host with -save stopped (SIGINT: its final
// save) and started again restores its world, logs the frame and entity
// count, and keeps its certificate: the same join line, so the pins its
// players hold still hold; a spectator joins it and watches.
func TestHostRestartsOnItsSave(t *testing.T) {
	save := filepath.Join(t.TempDir(), "world.db")
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "2", "-crates", "6", "-save", save)
	m := host.waitLine(joinLine)
	addr, pin := m[1], m[2]
	host.waitLine(regexp.MustCompile(`^` + logName + `: saving the world to ` + regexp.QuoteMeta(save)))
	client := start(t, "ann", "-join", addr, "-pin", pin, "-headless", "-bot", "-ticks", "120", "-name", "ann")
	client.wait()
	host.waitLine(regexp.MustCompile(`^` + logName + `: peer \d+ \(ann\) left`))
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

// TestPlayerResumesIntoARestartedHost: over real QUIC on loopback, a host
// with -save is killed (SIGKILL: no final save, nobody told) while a bot
// client plays, and started again on the same address and save. It
// restores the world with its player, presents the same certificate (kept
// in the save: the client's pin holds) and reset key (the client learns at
// once that its connection is gone), and the client, reconnecting by
// itself, resumes into the restored world as the same peer, plays its ticks
// out and exits 0 with resumes=1.
func TestPlayerResumesIntoARestartedHost(t *testing.T) {
	playThroughRestart(t, []string{"-save-every", "100ms", "-idle-timeout", "2s"}, []string{"-idle-timeout", "2s"},
		func(host, _ *proc) {
			// Saves go every 100 ms: wait for the first that holds the player.
			host.waitLine(regexp.MustCompile(`^` + logName + `: save \d+ \(frame \d+\) holds 1 player$`))
			host.signal(syscall.SIGKILL)
			<-host.done
		})
}

// TestPlayerResumesAfterAnAnnouncedRestart: over real QUIC on loopback, a
// host with -save gets SIGHUP while a bot client plays: it saves, tells its
// players to come back (close code 9) and exits 0. The client, told rather
// than left to time out, reconnects at once and, when a host starts again on
// the same save and address, resumes as the same peer, plays its ticks out
// and exits 0 with resumes=1.
func TestPlayerResumesAfterAnAnnouncedRestart(t *testing.T) {
	playThroughRestart(t, nil, nil, func(host, client *proc) {
		host.signal(syscall.SIGHUP)
		host.waitLine(regexp.MustCompile(`^` + logName + `: closing for a restart`))
		host.wait()
		client.waitLine(regexp.MustCompile(`^` + logName + `: the connection broke, reconnecting: .*host restarting`))
	})
}

// playThroughRestart runs a host with -save (and hostArgs) and a bot client
// ann (with clientArgs) until ann is ready, ends the host with stop, starts
// it again on the same save and address, and checks that it restored ann,
// presents the same certificate, and that ann resumed as the same peer,
// played its 240 ticks out and exited 0 with resumes=1.
func playThroughRestart(t *testing.T, hostArgs, clientArgs []string, stop func(host, client *proc)) {
	t.Helper()
	save := filepath.Join(t.TempDir(), "world.db")
	args := slices.Clip(append([]string{"-host", "-headless", "-bots", "1", "-crates", "2", "-save", save, "-grace", "20s"}, hostArgs...))
	host := start(t, "host", append(args, "-addr", "127.0.0.1:0")...)
	m := host.waitLine(joinLine)
	addr, pin := m[1], m[2]
	client := start(t, "ann", append([]string{"-join", addr, "-pin", pin, "-headless", "-bot", "-ticks", "240", "-name", "ann"}, clientArgs...)...)
	peer := client.waitLine(joinedLine)[1]
	host.waitLine(regexp.MustCompile(`^` + logName + `: peer ` + peer + ` \(ann\) ready`))
	stop(host, client)

	again := start(t, "host again", append(args, "-addr", addr)...)
	if r := again.waitLine(regexp.MustCompile(`^` + logName + `: restored save \d+: frame \d+, \d+ entities, (\d+) players?`)); r[1] != "1" {
		t.Fatalf("the restored save holds %s players, want ann", r[1])
	}
	if m2 := again.waitLine(joinLine); m2[2] != pin {
		t.Fatalf("the restarted host presents certificate %s, was %s: pins break", m2[2], pin)
	}
	client.waitLine(regexp.MustCompile(`^` + logName + `: resumed as peer ` + peer + ` \(ann\)`))
	again.waitLine(regexp.MustCompile(`^` + logName + `: peer ` + peer + ` \(ann\) resumed$`))
	out := client.wait()
	if all := client.output(); strings.Contains(all, "session ended") {
		t.Errorf("ann, who played her ticks out and left, says the session ended:\n%s", all)
	}
	cm := lineOf(t, "ann", out, clientLine)
	sm := lineOf(t, "ann", out, regexp.MustCompile(` resumes=(\d+) peer=(\d+)$`))
	if ticks, _ := strconv.Atoi(cm[1]); sm[1] != "1" || sm[2] != peer || ticks < 240 {
		t.Fatalf("client summary %q: want resumes=1 peer=%s and 240 ticks", cm[0], peer)
	}
	again.signal(syscall.SIGINT)
	again.wait()
}

// TestRestartSignalWithoutASave: a host without a save has no world to come
// back to: SIGHUP shuts it down as SIGINT would, saying so, and it exits 0;
// its client is told the host shut down, not to wait for it, and exits 0
// (its join had finished, though it may not have played a frame yet).
func TestRestartSignalWithoutASave(t *testing.T) {
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "0", "-save", "")
	m := host.waitLine(joinLine)
	client := start(t, "ann", "-join", m[1], "-pin", m[2], "-headless", "-bot", "-name", "ann")
	client.waitLine(joinedLine)
	host.signal(syscall.SIGHUP)
	host.waitLine(regexp.MustCompile(`^` + logName + `: no save or no -grace to come back to: shutting down$`))
	host.wait()
	client.waitLine(regexp.MustCompile(`^` + logName + `: the session ended: .*host shut`))
	client.wait()
	if out := client.output(); strings.Contains(out, "reconnecting") {
		t.Fatalf("the client reconnected to a host that shut down:\n%s", out)
	}
}

// TestTicksOfARestoredHost: -ticks counts the ticks this run simulated, not
// the frame the save brought back: a host restored at frame 60 with -ticks
// 60 runs 60 more.
func TestTicksOfARestoredHost(t *testing.T) {
	save := filepath.Join(t.TempDir(), "world.db")
	args := []string{"-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "1", "-crates", "2", "-save", save, "-ticks", "60"}
	for run, want := range []int{60, 120} {
		out := start(t, fmt.Sprintf("host %d", run+1), args...).wait()
		m := lineOf(t, "host", out, summaryLine)
		ticks, _ := strconv.Atoi(m[1])
		frame, _ := strconv.Atoi(m[2])
		if ticks < 60 || ticks > 61 || frame < want || frame > want+2 {
			t.Fatalf("run %d: ticks=%d frame=%d, want 60 ticks ending at frame %d", run+1, ticks, frame, want)
		}
	}
}

//go:build unix

package main

import (
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-go/tandem/demo/game"
)

// TestStoppedClientResumes stops a headless bot client (SIGSTOP) for longer
// than the idle timeout, over real QUIC on loopback, and lets it go on: its
// connection is gone, it reconnects by itself and resumes as the same peer
// within the host's grace window, plays its ticks out and exits 0 with
// resumes=1. The host logs the resume. Short timeouts keep it to seconds.
func TestStoppedClientResumes(t *testing.T) {
	const idle = "1s"
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "1", "-idle-timeout", idle, "-grace", "20s")
	m := host.waitLine(joinLine)
	client := start(t, "client", "-join", m[1], "-pin", m[2], "-headless", "-bot", "-ticks", "300", "-idle-timeout", idle, "-name", "runner")
	peer := client.waitLine(joinedLine)[1]

	client.signal(syscall.SIGSTOP)
	// The host gives the silent client up after its idle timeout; the
	// client's, counted from the same silence, has run out too by then.
	host.waitLine(regexp.MustCompile(`^` + logName + `: peer ` + peer + ` \(runner\) disconnected`))
	client.signal(syscall.SIGCONT)
	continued := time.Now()
	client.waitLine(regexp.MustCompile(`^` + logName + `: resumed as peer ` + peer + ` \(runner\)`))
	resumed := time.Since(continued)
	client.waitLine(regexp.MustCompile(`^` + logName + `: back in the game as peer ` + peer + ` `))
	playing := time.Since(continued)
	host.waitLine(regexp.MustCompile(`^` + logName + `: peer ` + peer + ` \(runner\) resumed$`))

	out := client.wait()
	host.waitLine(regexp.MustCompile(`^` + logName + `: peer ` + peer + ` \(runner\) left`))
	cm := lineOf(t, "client", out, clientLine)
	sm := lineOf(t, "client", out, regexp.MustCompile(` resumes=(\d+) peer=(\d+)$`))
	ticks, _ := strconv.Atoi(cm[1])
	t.Logf("SIGCONT to resumed %v, to playing again %v; %s", resumed.Round(time.Millisecond), playing.Round(time.Millisecond), out)
	if sm[1] != "1" || sm[2] != peer || ticks < 300 {
		t.Fatalf("client summary %q: want resumes=1 peer=%s and 300 ticks", cm[0], peer)
	}
	host.signal(syscall.SIGINT)
	hout := host.wait()
	if hm := lineOf(t, "host", hout, hostSummary); hm[3] != "1" || hm[4] != "1" {
		t.Errorf("host summary %q: want left=1 (the client, at its end) and resumes=1", hm[0])
	}
}

// TestReconnectingWindowSaysSo: while its host does not answer, a client's
// window shows "reconnecting… (N s left)" in the HUD's overlay over the world
// held still: the last frame, written when the client is stopped, has the
// overlay's text across the middle of the field, where nothing else is
// drawn in its colour.
func TestReconnectingWindowSaysSo(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: this test opens a window; run it under xvfb-run (make test does)")
	}
	shot := filepath.Join(t.TempDir(), "client.png")
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "1", "-idle-timeout", "1s")
	m := host.waitLine(joinLine)
	client := start(t, "client", "-join", m[1], "-pin", m[2], "-screenshot", shot, "-idle-timeout", "1s", "-name", "ann")
	client.waitLine(joinedLine)
	host.signal(syscall.SIGSTOP)
	t.Cleanup(func() { host.cmd.Process.Signal(syscall.SIGCONT) })
	client.waitLine(regexp.MustCompile(`the connection broke, reconnecting`))
	// The frame drawn after the signal is the one written: it shows the
	// state the client is in then, reconnecting.
	client.signal(syscall.SIGTERM)
	client.wait()

	img := readPNG(t, shot)
	fl := game.DefaultConfig().Field
	cx, cy := fl.Center()
	band := image.Rect(int(cx)-300, int(cy)-60, int(cx)+300, int(cy)+20)
	n := count(img, band, colText)
	t.Logf("%d pixels of the overlay's text colour across the middle of the field", n)
	if n < 300 {
		t.Fatalf("the reconnecting client's last frame has %d pixels of text in the middle, want the reconnecting notice (at least 300)", n)
	}
}

// TestKilledClientComesBackWithItsTicket kills a headless bot client
// (SIGKILL) that keeps its ticket (-ticket) and starts it again with the
// same line: the new process takes the player back, as the same peer,
// within the host's grace window (the host still holding the dead one's
// connection, or having given it up), plays its ticks out and, quitting,
// removes the ticket. The host logs one resume and no second join.
func TestKilledClientComesBackWithItsTicket(t *testing.T) {
	ticket := filepath.Join(t.TempDir(), "ticket")
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "1", "-idle-timeout", "1s", "-grace", "20s")
	m := host.waitLine(joinLine)
	args := []string{"-join", m[1], "-pin", m[2], "-headless", "-bot", "-idle-timeout", "1s", "-name", "runner", "-ticket", ticket}
	first := start(t, "first", append(args, "-ticks", "100000")...)
	peer := first.waitLine(joinedLine)[1]
	if b, err := os.ReadFile(ticket); err != nil || !regexp.MustCompile(`^`+peer+`:[0-9a-f]{32}@`+m[2]+`\n$`).Match(b) {
		t.Fatalf("the ticket file holds %q (%v), want peer %s's ticket from the host of %s", b, err, peer, m[2])
	}
	first.signal(syscall.SIGKILL)
	<-first.done

	again := start(t, "again", append(args, "-ticks", "120")...)
	again.waitLine(regexp.MustCompile(`^` + logName + `: resumed as peer ` + peer + ` \(runner\)$`))
	again.waitLine(regexp.MustCompile(`^` + logName + `: back in the game as peer ` + peer + ` `))
	host.waitLine(regexp.MustCompile(`^` + logName + `: peer ` + peer + ` \(runner\) resumed$`))
	out := again.wait()
	if sm := lineOf(t, "again", out, regexp.MustCompile(` resumes=(\d+) peer=(\d+)$`)); sm[1] != "1" || sm[2] != peer {
		t.Fatalf("the second process's summary %q: want resumes=1 peer=%s", sm[0], peer)
	}
	if _, err := os.Stat(ticket); !os.IsNotExist(err) {
		t.Fatalf("the ticket is still there after the player quit: %v", err)
	}
	host.waitLine(regexp.MustCompile(`^` + logName + `: peer ` + peer + ` \(runner\) left`))
	host.signal(syscall.SIGINT)
	if hm := lineOf(t, "host", host.wait(), hostSummary); hm[2] != "1" || hm[4] != "1" {
		t.Errorf("host summary %q: want joined=1 (one player, back once) and resumes=1", hm[0])
	}
}

package tandem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// die ends rc as a game process that stops does: it is stepped no more,
// and its connection goes silent (nothing tells the host).
func (p *resumePair) die(rc *rclient) {
	p.clients = slices.DeleteFunc(p.clients, func(x *rclient) bool { return x == rc })
	rc.conn().Cut()
}

// A new process of the game, given the ticket the stopped one kept, takes
// the player's place back: the same peer id and entity, driven by the new
// process's input, the host telling a resume and no leave or join, the
// client's world the host's; and without Dial a ticket the host refuses
// ends the session with ErrRefused.
func TestAKeptTicketTakesThePlayerBack(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newResumePair(t, condition.Config{Latency: 30 * time.Millisecond, Jitter: 4 * time.Millisecond}, HostConfig{})
		joins := 0
		p.host.OnEvent(func(e Event) {
			if e.Kind == PeerJoined {
				joins++
			}
		})
		a := p.join(func(*World) push { return push{X: 1} })
		p.run(time.Second)
		tk, ok := a.Ticket()
		if !ok || tk.Peer != a.Peer() {
			t.Fatalf("ticket of peer %d, ok %v; the client is peer %d", tk.Peer, ok, a.Peer())
		}
		text, _ := tk.MarshalText()
		var kept Ticket
		if err := kept.UnmarshalText(text); err != nil {
			t.Fatal(err)
		}
		var ids []ecs.NetID
		var hostE arche.Entity
		p.host.Do(func(w *World) { ids, hostE = networkIDs(w, tk.Peer), w.ECS.Owned(tk.Peer)[0] })
		p.die(a)
		p.run(200 * time.Millisecond)

		b := p.joinAs(ClientConfig[push]{Input: func(*World) push { return push{X: -1} }, Ticket: kept})
		if b.Peer() != tk.Peer || b.NetStats().Resumes != 1 || joins != 1 || len(p.left) != 0 || len(p.resumed) != 1 {
			t.Fatalf("the new process is peer %d (the ticket's %d) after %d resumes; the host told %d joins, %d leaves, %d resumes",
				b.Peer(), tk.Peer, b.NetStats().Resumes, joins, len(p.left), len(p.resumed))
		}
		if got, ok := b.Ticket(); !ok || got.Peer != tk.Peer || got.Token == tk.Token {
			t.Fatalf("the new process's ticket is peer %d, ok %v, its token new: %v", got.Peer, ok, got.Token != tk.Token)
		}
		p.run(time.Second)
		b.Do(func(w *World) {
			e, ok := b.Local()
			if !ok {
				t.Fatal("the new process drives nothing")
			}
			if ni, _ := w.ECS.Identity(e); ni.ID != ids[0] {
				t.Fatalf("the new process drives entity %d, the player's was %d", ni.ID, ids[0])
			}
		})
		p.host.Do(func(w *World) {
			if got := networkIDs(w, tk.Peer); !slices.Equal(got, ids) || w.ECS.Owned(tk.Peer)[0] != hostE {
				t.Fatalf("the player owns %v on the host, was %v", got, ids)
			}
			in := (*Input[push])(w.ECS.Arche().Get(hostE, arche.ComponentID[Input[push]](w.ECS.Arche())))
			if in.Value.X != -1 {
				t.Fatalf("the player's entity takes input %+v, not the new process's", in.Value)
			}
		})

		// A forged ticket, without Dial: refused, and the session ends.
		forged := tk
		forged.Token[3] ^= 0x40
		tc, err := p.net.Dial(context.Background(), "host")
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewClient(testGame(), tc, ClientConfig[push]{Clock: p.clk, Ticket: forged})
		if err != nil {
			t.Fatal(err)
		}
		p.clients = append(p.clients, &rclient{Client: c})
		for i := 0; c.State() != Closed; i++ {
			if i > 5*120 {
				t.Fatalf("a forged ticket: %v", c.State())
			}
			p.run(time.Second / 120)
		}
		if !errors.Is(c.Err(), ErrRefused) || b.State() != session.Playing || len(p.resumed) != 1 {
			t.Fatalf("a forged ticket ended with %v; the player's client %v, the host resumed %d times", c.Err(), b.State(), len(p.resumed))
		}
	})
}

// A client given a TicketFile keeps its ticket there: the next process of
// the game reads it and takes the player's place back, and a Close removes
// it (the player left). A file that is not a ticket joins a new player.
func TestATicketFileTakesThePlayerBack(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p, file, a := ticketed(t, HostConfig{})
		tk, _ := a.Ticket()
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var kept Ticket
		if err := kept.UnmarshalText(bytes.TrimSpace(text)); err != nil || kept != tk {
			t.Fatalf("the file holds %q: %v", text, err)
		}
		if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
			t.Fatalf("the ticket file's mode is %v", fi.Mode().Perm())
		}
		p.die(a)
		p.run(200 * time.Millisecond)
		b := p.joinAs(ClientConfig[push]{TicketFile: file})
		if b.Peer() != tk.Peer || b.NetStats().Resumes != 1 || len(p.resumed) != 1 {
			t.Fatalf("the next process is peer %d (the file's %d), %d resumes", b.Peer(), tk.Peer, b.NetStats().Resumes)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("after Close the ticket file is still there: %v", err)
		}
		if err := os.WriteFile(file, []byte("not a ticket\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var warned bytes.Buffer
		c := p.joinAs(ClientConfig[push]{TicketFile: file, Logger: slog.New(slog.NewTextHandler(&warned, nil))})
		if c.Peer() == tk.Peer || c.NetStats().Resumes != 0 || !strings.Contains(warned.String(), "not a ticket") {
			t.Fatalf("a bad ticket file: peer %d, %d resumes; logged %q", c.Peer(), c.NetStats().Resumes, warned.String())
		}
		got, _ := c.Ticket()
		text, _ = os.ReadFile(file)
		if err := kept.UnmarshalText(bytes.TrimSpace(text)); err != nil || kept != got {
			t.Fatalf("the new player's ticket did not replace the bad file: %q, %v", text, err)
		}
	})
}

// A client whose place another process took with the same ticket file
// (its connection closed as replaced) leaves the file to that process when
// it closes.
func TestAReplacedClientLeavesTheTicketFile(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p, file, a := ticketed(t, HostConfig{})
		tk, _ := a.Ticket()
		b := p.joinAs(ClientConfig[push]{TicketFile: file})
		if b.Peer() != tk.Peer {
			t.Fatalf("the second process is peer %d, the file's %d", b.Peer(), tk.Peer)
		}
		for i := 0; a.State() != Closed; i++ {
			if i > 5*120 {
				t.Fatalf("the replaced client: %v", a.State())
			}
			p.run(time.Second / 120)
		}
		a.Close()
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("the replaced client's Close removed the file the playing one keeps: %v", err)
		}
		if got, ok := a.Ticket(); ok {
			t.Fatalf("after Close the client still gives its ticket, peer %d", got.Peer)
		}
		b.Close()
		if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("after the player's leave the file is still there: %v", err)
		}
	})
}

// A ticket file that others than its owner may write is not taken: the
// client joins as a new player, the Logger told.
func TestATicketFileOthersMayWriteIsNotTaken(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p, file, a := ticketed(t, HostConfig{})
		tk, _ := a.Ticket()
		p.die(a)
		if err := os.Chmod(file, 0o622); err != nil {
			t.Fatal(err)
		}
		var warned bytes.Buffer
		b := p.joinAs(ClientConfig[push]{TicketFile: file, Logger: slog.New(slog.NewTextHandler(&warned, nil))})
		if b.Peer() == tk.Peer || !strings.Contains(warned.String(), "others than its owner may write it") {
			t.Fatalf("peer %d (the file's %d); logged %q", b.Peer(), tk.Peer, warned.String())
		}
		if strings.Contains(warned.String(), fmt.Sprintf("%x", tk.Token[2:])) {
			t.Fatalf("the log shows the token: %q", warned.String())
		}
	})
}

// A ticket file whose player the host no longer keeps, read by a process
// without Dial: the session ends refused (ErrRefused), and the file goes
// with the refusal, so the next process joins as a new player rather than
// be refused the same way.
func TestARefusedTicketFileGoesWithTheRefusal(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p, file, a := ticketed(t, HostConfig{Grace: 2 * time.Second})
		p.die(a)
		for i := 0; len(p.left) == 0; i++ {
			if i > 60*120 {
				t.Fatal("the host kept the player")
			}
			p.run(time.Second / 120)
		}
		var ends []error
		for range 2 {
			tc, err := p.net.Dial(context.Background(), "host")
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewClient(testGame(), tc, ClientConfig[push]{Clock: p.clk, TicketFile: file})
			if err != nil {
				t.Fatal(err)
			}
			p.clients = append(p.clients, &rclient{Client: c})
			for i := 0; c.State() != Closed && c.State() != Playing; i++ {
				if i > 10*120 {
					t.Fatalf("neither closed nor playing: %v", c.State())
				}
				p.run(time.Second / 120)
			}
			ends = append(ends, c.Err())
			c.Close()
		}
		if !errors.Is(ends[0], ErrRefused) || ends[1] != nil {
			t.Fatalf("the two processes ended with %v: want the first refused, the second a new player", ends)
		}
	})
}

// A process whose link went dark (it has not heard that another process
// took its place with the same ticket file, and is Reconnecting), closed
// by the player, leaves the file to the playing process: that one's
// Resumed gave it a new token, which the file holds now.
func TestADarkOldProcessLeavesTheNewOnesFile(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p, file, a := ticketed(t, HostConfig{})
		a.mu.Lock()
		a.block = true // its redials find no route
		a.mu.Unlock()
		a.conn().Cut()
		b := p.joinAs(ClientConfig[push]{TicketFile: file})
		tk, _ := a.Ticket()
		if b.Peer() != tk.Peer {
			t.Fatalf("the second process is peer %d, the file's %d", b.Peer(), tk.Peer)
		}
		p.run(6 * time.Second)
		a.Close()
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("the old process's Close removed the file the playing one (peer %d) keeps: %v", b.Peer(), err)
		}
	})
}

// ticketed is a pair on a 20 ms link whose first player, a, keeps its
// ticket in file, one of the test's.
func ticketed(t *testing.T, cfg HostConfig) (p *resumePair, file string, a *rclient) {
	p = newResumePair(t, condition.Config{Latency: 20 * time.Millisecond}, cfg)
	file = filepath.Join(t.TempDir(), "ticket")
	return p, file, p.joinAs(ClientConfig[push]{TicketFile: file})
}

package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// die ends the client c as a process that stops does: it is stepped no
// more, and its connection goes silent both ways (nothing tells the host).
func (r *resumeRig) die(c *resumer) {
	r.clients = slices.DeleteFunc(r.clients, func(x *resumer) bool { return x == c })
	c.conn().Cut()
}

// playing steps the rig until c plays.
func (r *resumeRig) playing(c *resumer, what string) {
	r.t.Helper()
	for i := 0; c.cl.State() != Playing; i++ {
		if i > 10*60 {
			r.t.Fatalf("%s: not playing after 10 s: %v, %v", what, c.cl.State(), c.cl.Err())
		}
		r.step()
	}
}

// A new client given the ticket a stopped one kept takes its peer back: the
// same peer id, slot and entities, the whole world joined into its empty
// one, no PeerJoined and no PeerLeft, and another peer sees nothing go. The
// host may still hold the dead client's connection (the resume replaces
// it) or have parked the peer already.
func TestAKeptTicketTakesThePlaceBack(t *testing.T) {
	for _, noticed := range []bool{false, true} {
		t.Run(fmt.Sprintf("host-noticed-%v", noticed), func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond, Jitter: 3 * time.Millisecond}, HostConfig{})
				a := r.join("a")
				watcher := r.join("watcher")
				r.steps(time.Second)
				tk, ok := a.cl.Ticket()
				if !ok || tk.Peer != a.cl.Peer() {
					t.Fatalf("ticket %v %v of peer %d", tk.Peer, ok, a.cl.Peer())
				}
				text, err := tk.MarshalText()
				if err != nil {
					t.Fatal(err)
				}
				var kept Ticket
				if err := kept.UnmarshalText(text); err != nil || kept != tk {
					t.Fatalf("the ticket's text %q reads back as %v, %v", text, kept.Peer, err)
				}
				peer, ids, entities := tk.Peer, r.owned(tk.Peer), r.hw.Networked()
				r.die(a)
				if noticed {
					for i := 0; r.hostCount(PeerDisconnected, peer) == 0; i++ {
						if i > 20*60 {
							t.Fatal("the host never noticed the dead client")
						}
						r.step()
					}
				} else {
					r.steps(100 * time.Millisecond)
				}
				b := r.dialWith("a", "host", func(cfg *ClientConfig) { cfg.Ticket = kept })
				r.playing(b, "the kept ticket")
				if b.cl.Peer() != peer || b.count(PeerResumed) != 1 || b.count(PeerJoined) != 0 || b.count(PeerRejected) != 0 {
					t.Fatalf("the new client is peer %d (the ticket's %d); its events %v", b.cl.Peer(), peer, b.events)
				}
				if got, ok := b.cl.Ticket(); !ok || got.Peer != tk.Peer || got.Token == tk.Token {
					t.Fatalf("the new client's ticket is peer %d %v, its token new: %v", got.Peer, ok, got.Token != tk.Token)
				}
				if got := r.owned(peer); !slices.Equal(got, ids) || r.hw.Networked() != entities {
					t.Fatalf("peer %d owns %v (was %v), the host holds %d entities (was %d)", peer, got, ids, r.hw.Networked(), entities)
				}
				if n := r.hostCount(PeerLeft, peer); n != 0 || r.hostCount(PeerResumed, peer) != 1 {
					t.Fatalf("the host told the peer left %d times, resumed %d", n, r.hostCount(PeerResumed, peer))
				}
				if ws := watcher.cl.Replicator().Stats(); ws.Despawns != 0 {
					t.Fatalf("the watcher saw %d removals", ws.Despawns)
				}
				if st := r.host.Stats(); st.Resumed != 1 || st.ResumeRefused != 0 {
					t.Fatalf("host stats: %d resumed, %d refused", st.Resumed, st.ResumeRefused)
				}
				r.mv.still = true
				r.steps(time.Second)
				if r.host.known(peer).prevGood() {
					t.Fatal("the client's WelcomeAck of its new token did not let the old one go")
				}
				sameImage(t, "the new client", r.hw, r.hreg, b.w, b.reg)
				if b.w.Networked() != entities {
					t.Fatalf("the new client holds %d entities, the host %d", b.w.Networked(), entities)
				}
			})
		})
	}
}

// A ticket the host holds no peer for (its window ran out, or the token is
// not the peer's) is refused: with a Dial the client joins afresh as a new
// peer, the refusal told first; without one its session ends with the
// refusal. A forged token takes nothing.
func TestARefusedTicketJoinsAfresh(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{Grace: 2 * time.Second})
		a := r.join("a")
		tk, _ := a.cl.Ticket()
		forged := tk
		forged.Token[0] ^= 1
		owned := r.owned(tk.Peer)

		lone := r.dialWith("lone", "host", func(cfg *ClientConfig) { cfg.Ticket, cfg.Dial = forged, nil })
		for i := 0; lone.cl.State() != Closed; i++ {
			if i > 5*60 {
				t.Fatalf("a forged ticket without Dial: %v", lone.cl.State())
			}
			r.step()
		}
		var rj *RejectError
		if !errors.As(lone.cl.Err(), &rj) || rj.Code != wire.RejectResume {
			t.Fatalf("a forged ticket without Dial ended with %v, want RejectResume", lone.cl.Err())
		}
		if got := r.owned(tk.Peer); !slices.Equal(got, owned) || a.cl.State() != Playing || r.hostCount(PeerResumed, tk.Peer) != 0 {
			t.Fatalf("a forged ticket moved peer %d: it owns %v (was %v), its client %v", tk.Peer, got, owned, a.cl.State())
		}

		r.die(a)
		for i := 0; r.hostCount(PeerLeft, tk.Peer) == 0; i++ { // the host notices, and the window runs out
			if i > 60*60 {
				t.Fatalf("peer %d never left", tk.Peer)
			}
			r.step()
		}
		b := r.dialWith("a", "host", func(cfg *ClientConfig) { cfg.Ticket = tk })
		r.playing(b, "a ticket past its window")
		if b.cl.Peer() == tk.Peer || b.count(PeerRejected) != 1 || b.count(PeerJoined) != 1 || b.count(PeerResumed) != 0 {
			t.Fatalf("the late ticket plays as peer %d (the ticket's %d); events %v", b.cl.Peer(), tk.Peer, b.events)
		}
		for _, e := range b.events {
			if e.Kind == PeerRejected && (!errors.As(e.Err, &rj) || rj.Code != wire.RejectResume || e.Peer != tk.Peer) {
				t.Fatalf("the refusal was told as %+v", e)
			}
		}
		if got, ok := b.cl.Ticket(); !ok || got.Peer != b.cl.Peer() || bytes.Equal(got.Token[:], tk.Token[:]) {
			t.Fatalf("after the fresh join the ticket is peer %d (the client is %d), its token new: %v", got.Peer, b.cl.Peer(), !bytes.Equal(got.Token[:], tk.Token[:]))
		}
		r.mv.still = true
		r.steps(time.Second)
		sameImage(t, "the fresh join", r.hw, r.hreg, b.w, b.reg)
	})
}

// A kept ticket's join that breaks midway resumes again, as the same peer:
// the peer had finished a join before, so the host keeps it.
func TestAKeptTicketsBrokenJoinResumesAgain(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		// A join of many pages, a few a step.
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{Replication: replicate.HostConfig{JoinBytesPerStep: 4096}})
		for range 2000 {
			r.mv.spawn()
		}
		a := r.join("a")
		tk, _ := a.cl.Ticket()
		r.die(a)
		r.steps(100 * time.Millisecond)
		b := r.dialWith("a", "host", func(cfg *ClientConfig) { cfg.Ticket = tk })
		for i := 0; ; i++ {
			if got, total := b.cl.Progress(); b.cl.State() == Joining && got > 0 && got < total {
				break
			}
			if i > 5*60 {
				t.Fatalf("the kept ticket's join never began: %v, %v", b.cl.State(), b.cl.Err())
			}
			r.step()
		}
		b.conn().Close(transport.CloseTimeout, "the host stopped answering")
		r.playing(b, "the broken join")
		if b.cl.Peer() != tk.Peer || b.count(PeerResumed) != 2 || b.count(PeerJoined) != 0 || b.count(PeerRejected) != 0 {
			t.Fatalf("after the broken join the client is peer %d (the ticket's %d); events %v", b.cl.Peer(), tk.Peer, b.events)
		}
		if r.hostCount(PeerLeft, tk.Peer) != 0 {
			t.Fatal("the host let the peer go")
		}
		r.mv.still = true
		r.steps(time.Second)
		sameImage(t, "the kept ticket", r.hw, r.hreg, b.w, b.reg)
	})
}

// A kept ticket the host answers busy (its bound on one peer's resumes
// spent) is tried again, not given up: the player takes the place back
// once the bound refills.
func TestAKeptTicketAnsweredBusyTriesAgain(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		// One resume a minute for a peer, kept for three.
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{MaxResumesPerPeer: 1, Grace: 3 * time.Minute})
		a := r.join("a")
		tk, _ := a.cl.Ticket()
		r.die(a)
		r.steps(100 * time.Millisecond)
		b := r.dialWith("a", "host", func(cfg *ClientConfig) { cfg.Ticket = tk })
		r.playing(b, "the first kept ticket")
		tk, _ = b.cl.Ticket() // its Resumed gave a new token
		// Asked at once, and after a first connection that went dark (its
		// redials answered busy).
		for _, dark := range []bool{false, true} {
			r.die(b)
			r.steps(100 * time.Millisecond)
			limited := r.host.Stats().ResumeLimited
			c := r.dialWith("a", "host", func(cfg *ClientConfig) { cfg.Ticket = tk })
			if dark {
				c.conn().Cut()
			}
			for i := 0; c.cl.State() != Playing; i++ {
				if i > 100*60 || c.cl.State() == Closed {
					t.Fatalf("dark %v: %v, %v", dark, c.cl.State(), c.cl.Err())
				}
				r.step()
			}
			if c.cl.Peer() != tk.Peer || r.host.Stats().ResumeLimited == limited {
				t.Fatalf("dark %v: back as peer %d (the ticket's %d) after %d busy answers", dark, c.cl.Peer(), tk.Peer, r.host.Stats().ResumeLimited-limited)
			}
			b = c
			tk, _ = c.cl.Ticket()
		}
	})
}

// A kept ticket whose redial reaches another host (its identity differs)
// is not sent there, and still goes to the ticket's host on the next
// dial: the player takes the place back.
func TestAKeptTicketGoesOnPastAnotherHost(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{Grace: time.Minute})
		a := r.join("a")
		tk, _ := a.cl.Ticket()
		r.die(a)
		r.steps(100 * time.Millisecond)
		tk.Host = "b0b"
		b := &resumer{rig: r, addr: "host"}
		dials := 0
		dial := func(ctx context.Context) (transport.Conn, error) {
			tc, err := b.redial(ctx)
			if err != nil {
				return nil, err
			}
			dials++
			if dials == 1 {
				tc.(*mem.Conn).Cut() // another host's, that goes dark before it answers
				return identified{tc.(*mem.Conn), "evil"}, nil
			}
			return identified{tc.(*mem.Conn), "b0b"}, nil
		}
		first, _ := r.net.Dial(context.Background(), "host")
		first.(*mem.Conn).Cut()
		w := ecs.NewWorld()
		b.testClient = &testClient{w: w, reg: replicate.NewRegistry(w), sched: ecs.NewSchedule(w, r.clk, 0)}
		var err error
		b.cl, err = NewClient(b.sched, b.reg, identified{first.(*mem.Conn), "b0b"}, ClientConfig{Name: "a", Clock: r.clk, Dial: dial, Ticket: tk,
			OnEvent: func(e Event) { b.events = append(b.events, e) }})
		if err != nil {
			t.Fatal(err)
		}
		r.clients = append(r.clients, b)
		for i := 0; b.cl.State() != Playing; i++ {
			if i > 40*60 {
				t.Fatalf("the redials: %v, %v", b.cl.State(), b.cl.Err())
			}
			r.step()
		}
		if b.cl.Peer() != tk.Peer || dials < 2 || b.count(PeerResumed) != 1 {
			t.Fatalf("after %d dials, peer %d (the ticket's %d); events %v", dials, b.cl.Peer(), tk.Peer, b.events)
		}
	})
}

// A process the player left behind (its network gone, reconnecting) does
// not take the place back from the new one that resumed it with the
// kept ticket: the Resumed gave the new process a new token, so the old
// one's resume, once its network is back, is refused and it joins afresh.
func TestALeftBehindProcessDoesNotTakeThePlaceBack(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{Grace: time.Minute})
		a := r.join("a")
		tk, _ := a.cl.Ticket()
		a.setBlock(true)
		a.conn().Cut()
		b := r.dialWith("a", "host", func(cfg *ClientConfig) { cfg.Ticket = tk })
		r.playing(b, "the new process")
		for i := 0; a.cl.State() != Reconnecting; i++ {
			if i > 20*60 {
				t.Fatalf("the left-behind process never noticed its break: %v", a.cl.State())
			}
			r.step()
		}
		a.setBlock(false)
		for i := 0; a.cl.State() != Playing; i++ {
			if i > 60*60 {
				t.Fatalf("the left-behind process: %v, %v", a.cl.State(), a.cl.Err())
			}
			r.step()
		}
		r.steps(time.Second)
		if b.cl.State() != Playing || b.cl.Peer() != tk.Peer || a.cl.Peer() == tk.Peer || a.count(PeerRejected) == 0 {
			t.Fatalf("the new process %v as peer %d (the ticket's %d); the left-behind one peer %d, events %v", b.cl.State(), b.cl.Peer(), tk.Peer, a.cl.Peer(), a.events)
		}
	})
}

// identified is a connection whose host showed the identity id.
type identified struct {
	*mem.Conn
	id string
}

func (c identified) PeerIdentity() string { return c.id }

// NewClient refuses a ticket of the other role, or another host's; a
// kept ticket's redial that reaches another host does not send it, and
// joins as a new peer.
func TestATicketGoesToItsHostAndRoleOnly(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{})
		a := r.join("a")
		tk, _ := a.cl.Ticket()
		if tk.Host != "" || tk.Spectator {
			t.Fatalf("a player's ticket over memory: host %q, spectator %v", tk.Host, tk.Spectator)
		}
		newClient := func(tc transport.Conn, cfg ClientConfig) error {
			w := ecs.NewWorld()
			cfg.Clock = r.clk
			_, err := NewClient(ecs.NewSchedule(w, r.clk, 0), replicate.NewRegistry(w), tc, cfg)
			return err
		}
		tc, _ := r.net.Dial(context.Background(), "host")
		if err := newClient(tc, ClientConfig{Name: "w", Spectator: true, Ticket: tk}); !errors.Is(err, ErrTicketRole) {
			t.Fatalf("a player's ticket for a spectator: %v", err)
		}
		if err := newClient(identified{tc.(*mem.Conn), "b0b"}, ClientConfig{Name: "a", Ticket: tk}); !errors.Is(err, ErrTicketHost) {
			t.Fatalf("a ticket of a host without identity, to one with: %v", err)
		}
		tc.Close(transport.CloseNormal, "")

		// A ticket of the host of identity "b0b", whose first connection
		// there goes dark before the host hears it; the redial reaches a
		// host of another identity (none).
		elsewhere := tk
		elsewhere.Host = "b0b"
		b := &resumer{rig: r, addr: "host"}
		first, _ := r.net.Dial(context.Background(), "host")
		w := ecs.NewWorld()
		b.testClient = &testClient{w: w, reg: replicate.NewRegistry(w), sched: ecs.NewSchedule(w, r.clk, 0)}
		var err error
		b.cl, err = NewClient(b.sched, b.reg, identified{first.(*mem.Conn), "b0b"}, ClientConfig{Name: "a", Clock: r.clk, Dial: b.redial, Ticket: elsewhere,
			OnEvent: func(e Event) { b.events = append(b.events, e) }})
		if err != nil {
			t.Fatal(err)
		}
		first.(*mem.Conn).Cut()
		r.clients = append(r.clients, b)
		for i := 0; b.cl.State() != Playing; i++ {
			if i > 40*60 {
				t.Fatalf("the redial: %v, %v", b.cl.State(), b.cl.Err())
			}
			r.step()
		}
		if b.cl.Peer() == tk.Peer || b.count(PeerJoined) != 1 || b.count(PeerResumed) != 0 {
			t.Fatalf("the redial is peer %d (the ticket's %d); events %v", b.cl.Peer(), tk.Peer, b.events)
		}
		refused := false
		for _, e := range b.events {
			refused = refused || e.Kind == PeerRejected && errors.Is(e.Err, ErrTicketHost)
		}
		if !refused || r.hostCount(PeerResumed, tk.Peer) != 0 {
			t.Fatalf("the ticket was sent (%d resumes of peer %d), or its holding back not told (%v): events %v", r.hostCount(PeerResumed, tk.Peer), tk.Peer, refused, b.events)
		}
	})
}

// A ticket's text reads back as the ticket, whatever its role and host;
// text that is not a ticket is refused, its error quoting none of it, and
// leaves the ticket as it was. Printed or logged, a ticket shows no token.
func TestTicketText(t *testing.T) {
	good := Ticket{Peer: 7}
	for i := range good.Token {
		good.Token[i] = byte(i)
	}
	const hexToken = "000102030405060708090a0b0c0d0e0f"
	for _, tk := range []Ticket{good, {Peer: 9, Token: good.Token, Spectator: true}, {Peer: 3, Token: good.Token, Host: strings.Repeat("ab", 32)}, {Peer: 4, Token: good.Token, Spectator: true, Host: "c0ffee"}} {
		text, _ := tk.MarshalText()
		var back Ticket
		if err := back.UnmarshalText(text); err != nil || back != tk {
			t.Errorf("%q reads back as %+v, %v", text, back, err)
		}
	}
	if text, _ := good.MarshalText(); string(text) != "7:"+hexToken {
		t.Fatalf("text %q", text)
	}
	for _, bad := range []string{"", "7", "0:" + hexToken, "70000:" + hexToken, "7:0001", "7:" + hexToken + "00",
		"7:zz0102030405060708090a0b0c0d0e0f", "-1:" + hexToken, "7:" + hexToken + ":watching", "7:" + hexToken + "@a b"} {
		got := good
		err := got.UnmarshalText([]byte(bad))
		if !errors.Is(err, ErrTicket) || got != good {
			t.Errorf("%q: %v, ticket now %+v", bad, err, got)
		}
		if err != nil && strings.Contains(err.Error(), hexToken[4:]) {
			t.Errorf("%q: the error quotes the token: %v", bad, err)
		}
	}
	for _, shown := range []string{fmt.Sprint(good), fmt.Sprintf("%+v", good), slogText(good)} {
		if strings.Contains(shown, hexToken[4:]) || !strings.Contains(shown, "7") {
			t.Errorf("a ticket shown as %q", shown)
		}
	}
	if !(Ticket{}).IsZero() || good.IsZero() {
		t.Fatal("IsZero")
	}
}

// slogText is v logged by slog's text handler.
func slogText(v any) string {
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, nil)).Info("t", "ticket", v)
	return b.String()
}

// A kept ticket's Resumed that never arrives (the connection broke first)
// leaves the new process with the old token: still good for a kept
// ticket's Resume until the join after it finished, so it takes the place.
func TestAKeptTicketWhoseResumedWasLostResumesAgain(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{})
		a := r.join("a")
		tk, _ := a.cl.Ticket()
		r.die(a)
		r.steps(100 * time.Millisecond)
		b := r.dialWith("a", "host", func(cfg *ClientConfig) { cfg.Ticket = tk })
		for i := 0; r.hostCount(PeerResumed, tk.Peer) == 0; i++ {
			if i > 60 {
				t.Fatal("the host never took the kept ticket")
			}
			r.step()
		}
		b.conn().Cut() // its Resumed, on the way, is lost
		for i := 0; b.cl.State() != Playing; i++ {
			if i > 40*60 {
				t.Fatalf("the second try: %v, %v", b.cl.State(), b.cl.Err())
			}
			r.step()
		}
		if b.cl.Peer() != tk.Peer || r.hostCount(PeerResumed, tk.Peer) != 2 || b.count(PeerRejected) != 0 {
			t.Fatalf("peer %d (the ticket's %d) after %d resumes; events %v", b.cl.Peer(), tk.Peer, r.hostCount(PeerResumed, tk.Peer), b.events)
		}
	})
}

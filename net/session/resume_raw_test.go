package session

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// rawResume dials the host and sends a Resume with the given fields.
func (r *resumeRig) rawResume(peer ecs.PeerID, token [wire.TokenLen]byte, flags uint8) *rawPeer {
	r.t.Helper()
	tc, err := r.net.Dial(context.Background(), "host")
	if err != nil {
		r.t.Fatal(err)
	}
	tc.SendMessage(transport.LaneControl, wire.Resume{Version: wire.Version, Flags: flags, PeerID: uint32(peer), Token: token}.Encode(nil))
	return &rawPeer{tc: tc}
}

// breakPeer makes the host keep a client's peer as disconnected: its
// connection closes for a timeout, which the host hears of.
func (r *resumeRig) breakPeer(c *resumer) {
	c.setBlock(true)
	c.conn().Close(transport.CloseTimeout, "the host stopped answering")
	r.step()
}

// kinds counts the lane messages of each kind a raw peer received.
func (p *rawPeer) kinds() map[wire.Kind]int {
	n := map[wire.Kind]int{}
	for _, m := range p.got {
		n[wire.Kind(m[0])]++
	}
	return n
}

// A host answers one Resume per connection and gives a connection at most
// one join: a thousand Resumes on one connection, with the right token or a
// wrong one, get one answer, and the connection ends.
func TestOneAnswerPerConnection(t *testing.T) {
	for _, right := range []bool{true, false} {
		name := map[bool]string{true: "right-token", false: "wrong-token"}[right]
		t.Run(name, func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
				a := r.join("a")
				peer, token := a.cl.Peer(), a.cl.Welcome().Token
				r.breakPeer(a)
				r.clients = nil // a is the raw peer from now on
				if !right {
					token[3] ^= 1
				}
				raw := r.rawResume(peer, token, wire.ResumeHoldsWorld)
				msg := wire.Resume{Version: wire.Version, Flags: wire.ResumeHoldsWorld, PeerID: uint32(peer), Token: token}.Encode(nil)
				sent := 1
				for range 30 { // the answer (and a join) arrive first
					r.step()
					raw.read()
				}
				for range 3 * 60 {
					for sent < 1000 && raw.tc.SendMessage(transport.LaneControl, msg) == nil {
						sent++
					}
					r.step()
					raw.read()
				}
				k := raw.kinds()
				t.Logf("%d of 1000 Resumes sent on one connection; the host answered %v and closed it: %v", sent, k, raw.tc.Err())
				answers := k[wire.KindResumed] + k[wire.KindReject]
				if answers != 1 || k[wire.KindJoinFinal] > 1 {
					t.Fatalf("%d answers and %d joins on one connection, want 1 and at most 1: %v", answers, k[wire.KindJoinFinal], k)
				}
				if right != (k[wire.KindResumed] == 1) {
					t.Fatalf("right token %v, answers %v", right, k)
				}
				if raw.tc.Err() == nil {
					t.Fatal("the host kept a connection that sent a thousand Resumes")
				}
				if st := r.host.Stats(); st.Resumed+st.ResumeRefused != 1 {
					t.Fatalf("host stats %+v: one resume answered, want one", st)
				}
			})
		})
	}
}

// Resumes with guessed tokens admit nobody and cost the host one hash each:
// every one is refused as no session of theirs, none spends the resumes the
// host allows a second, the peer they name stays away, and its own client
// resumes afterwards.
func TestGuessedTokensAdmitNobody(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
		a := r.join("a")
		peer := a.cl.Peer()
		r.breakPeer(a)
		rng := rand.New(rand.NewPCG(1, 2))
		var raws []*rawPeer
		refused, limited, evicted := 0, 0, 0
		start := r.clk.Now()
		for i := 0; i < 200 || len(raws) > 0; {
			// A burst of guesses each frame, 10 at a time; each guesser
			// closes once it read its answer, as a client does.
			for k := 0; k < 10 && i < 200; k, i = k+1, i+1 {
				var tok [wire.TokenLen]byte
				for j := range tok {
					tok[j] = byte(rng.Uint32())
				}
				target := peer
				if i%2 == 1 {
					target = ecs.PeerID(rng.IntN(1 << 16))
				}
				raws = append(raws, r.rawResume(target, tok, wire.ResumeHoldsWorld))
			}
			r.step()
			kept := raws[:0]
			for _, p := range raws {
				p.read()
				rj, ok := p.reject()
				var ce *transport.CloseError
				switch {
				case ok && rj.Code == wire.RejectResume:
					refused++
				case ok && rj.Code == wire.RejectFull && strings.Contains(rj.Reason, "too many resumes"):
					limited++
				case ok:
					t.Fatalf("a guessed resume got %v: %s", rj.Code, rj.Reason)
				case errors.As(p.tc.Err(), &ce) && ce.Code == transport.CloseLimit:
					evicted++ // the host's pending bound made room for a newer one
				case p.tc.Err() != nil:
					t.Fatalf("a guessed resume ended with %v and no Reject", p.tc.Err())
				default:
					kept = append(kept, p)
					continue
				}
				p.tc.Close(transport.CloseNormal, "")
			}
			raws = kept
		}
		took := r.clk.Now().Sub(start)
		st := r.host.Stats()
		t.Logf("200 guessed resumes in %v: %d refused after one hash each, %d refused by the rate, %d evicted while pending; host %+v", took, refused, limited, evicted, st)
		if refused+limited+evicted != 200 || int(st.ResumeRefused) != refused || int(st.ResumeLimited) != limited || st.Resumed != 0 {
			t.Fatalf("refused %d, limited %d, evicted %d; host %+v", refused, limited, evicted, st)
		}
		if limited != 0 {
			t.Fatalf("%d guessed resumes spent the host's resumes a second: strangers could keep players out", limited)
		}
		if len(r.host.Peers()) != 0 || len(r.host.Away()) != 1 {
			t.Fatalf("after the guesses the host has peers %v, away %v", r.host.Peers(), r.host.Away())
		}
		a.setBlock(false)
		for i := 0; a.cl.State() != Playing; i++ {
			if i > 10*60 {
				t.Fatalf("the real client did not resume after the guesses: %v %v", a.cl.State(), a.cl.Err())
			}
			r.step()
		}
		if a.cl.Peer() != peer || a.cl.Resumes() != 1 {
			t.Fatalf("the real client is peer %d after %d resumes, want %d resumed", a.cl.Peer(), a.cl.Resumes(), peer)
		}
	})
}

// A stranger flooding the host with Resumes it has no token for (300 a
// second, each on a connection of its own, far past MaxResumesPerSecond)
// does not keep a player whose connection broke from resuming within its
// grace window.
func TestStrangersResumesDoNotLockPlayersOut(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{Grace: 10 * time.Second})
		a := r.join("a")
		peer := a.cl.Peer()
		garbage := wire.Resume{Version: wire.Version, Flags: wire.ResumeHoldsWorld, PeerID: 9999}.Encode(nil)
		var flood resumeFlood
		broke := 2 * 60
		for i := 0; ; i++ {
			if i == broke {
				a.conn().Close(transport.CloseTimeout, "the host stopped answering")
			}
			if i > broke && a.cl.State() == Playing {
				break
			}
			if i > broke+10*60 || a.cl.State() == Closed {
				t.Fatalf("the player did not resume within its grace window under a flood of strangers' Resumes: %v %v; host %+v",
					a.cl.State(), a.cl.Err(), r.host.Stats())
			}
			flood.step(r, garbage)
		}
		st := r.host.Stats()
		if a.cl.Peer() != peer || st.Resumed != 1 || st.ResumeRefused < 100 {
			t.Fatalf("player is peer %d (was %d); host %+v", a.cl.Peer(), peer, st)
		}
		t.Logf("resumed %v after the break beside %d refused strangers' Resumes", r.clk.Now().Sub(a.cl.re.lost), st.ResumeRefused)
	})
}

// A host with a schema refuses a Hello or a Resume stating another (or none)
// with RejectSchema, naming both: the peer a Resume names stays away for
// its own client, and a client refused so stops rather than join afresh.
func TestSchemaIsChecked(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{Schema: 7})
		r.schema = 7
		a := r.join("a")
		peer, token := a.cl.Peer(), a.cl.Welcome().Token
		r.breakPeer(a)
		hello, _ := wire.Hello{Version: wire.Version, Name: "b", Schema: 8}.Encode(nil)
		resume := wire.Resume{Version: wire.Version, Flags: wire.ResumeHoldsWorld, PeerID: uint32(peer), Token: token, Schema: 8}.Encode(nil)
		for _, msg := range [][]byte{hello, resume} {
			tc, err := r.net.Dial(context.Background(), "host")
			if err != nil {
				t.Fatal(err)
			}
			tc.SendMessage(transport.LaneControl, msg)
			p := &rawPeer{tc: tc}
			r.steps(100 * time.Millisecond)
			p.read()
			rj, ok := p.reject()
			if !ok || rj.Code != wire.RejectSchema || !strings.Contains(rj.Reason, "0000000000000007") || !strings.Contains(rj.Reason, "0000000000000008") {
				t.Fatalf("%v with schema 8 to a host of 7: %+v (%v)", wire.Kind(msg[0]), rj, ok)
			}
		}
		if away := r.host.Away(); len(away) != 1 || away[0] != peer {
			t.Fatalf("after a Resume of another schema the host holds away %v, want peer %d", away, peer)
		}
		r.schema = 0
		b := r.dial("b", "host")
		r.steps(time.Second)
		var re *RejectError
		if !errors.As(b.cl.Err(), &re) || re.Code != wire.RejectSchema || b.cl.State() != Closed {
			t.Fatalf("a client stating no schema: %v %v", b.cl.State(), b.cl.Err())
		}
		a.setBlock(false)
		for i := 0; a.cl.State() != Playing; i++ {
			if i > 10*60 {
				t.Fatalf("the client of the host's schema did not resume: %v %v", a.cl.State(), a.cl.Err())
			}
			r.step()
		}
	})
}

// A peer is resumed at most MaxResumesPerPeer times a minute: past it the
// host answers RejectFull and the client tries again until it is let back.
func TestResumesPerPeerAreBounded(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{MaxResumesPerPeer: 3})
		a := r.join("a")
		for i := range 4 {
			a.conn().Close(transport.CloseTimeout, "the host stopped answering")
			r.step()
			for j := 0; a.cl.State() != Playing; j++ {
				if j > 40*60 {
					t.Fatalf("resume %d: not back after 40 s: %v %v", i+1, a.cl.State(), a.cl.Err())
				}
				r.step()
			}
		}
		st := r.host.Stats()
		if st.Resumed != 4 || st.ResumeLimited == 0 {
			t.Fatalf("four resumes with a bound of three a minute: host %+v", st)
		}
		t.Logf("4 resumes, %d refused as too often; the fourth came %v after the break", st.ResumeLimited, r.clk.Now().Sub(a.cl.re.lost))
	})
}

// fakeHost is a listener whose connections the test answers by hand.
type fakeHost struct {
	l transport.Listener
}

// next runs the rig until a connection to the fake host brought its first
// message, and returns both.
func (f *fakeHost) next(t *testing.T, r *resumeRig) (transport.Conn, []byte, bool) {
	t.Helper()
	var tc transport.Conn
	for range 5 * 60 {
		r.step()
		if tc == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 0)
			tc, _ = f.l.Accept(ctx)
			cancel()
			if tc != nil {
				tc.Admit()
			}
		}
		if tc != nil {
			if _, msg, ok := tc.RecvMessage(); ok {
				return tc, msg, true
			}
		}
	}
	t.Fatal("nothing reached the fake host in 5 s")
	return nil, nil, false
}

// A reconnecting client acts on the first answer of a connection and on
// nothing after it: a Resumed followed by a second Resumed and a Reject
// leaves it resumed once; a Reject followed by a Resumed leaves it refused.
func TestClientTakesTheFirstAnswer(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
		a := r.join("a")
		peer := a.cl.Peer()
		fl, err := r.net.Listen("fake")
		if err != nil {
			t.Fatal(err)
		}
		fake := &fakeHost{l: fl}
		a.addr = "fake"
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		hc, msg, ok := fake.next(t, r)
		var res wire.Resume
		if !ok || res.Decode(msg) != nil || res.PeerID != uint32(peer) || res.Flags != wire.ResumeHoldsWorld || res.Token != a.cl.Welcome().Token {
			t.Fatalf("the client's first message on its new connection: % x", msg)
		}
		resumed := wire.Resumed{PeerID: uint32(peer), TickRate: 60, SendRate: 30, Frame: uint64(r.hw.Frame()), GraceMillis: 30000, Runs: wire.LineageOf(wire.RunStart{Run: 1, Fresh: 1})}.Encode(nil)
		refusal, _ := wire.Reject{Code: wire.RejectResume, Version: wire.Version, Reason: "late"}.Encode(nil)
		hc.SendMessage(transport.LaneControl, resumed)
		hc.SendMessage(transport.LaneControl, resumed)
		hc.SendMessage(transport.LaneControl, refusal)
		r.steps(100 * time.Millisecond)
		if a.cl.Resumes() != 1 || a.count(PeerResumed) != 1 || a.count(PeerRejected) != 0 || a.cl.State() != Joining {
			t.Fatalf("after Resumed, Resumed, Reject: %d resumes, state %v, events %v", a.cl.Resumes(), a.cl.State(), a.events)
		}
		if hc.Err() != nil || a.cl.Conn().Stats().Malformed != 2 {
			t.Fatalf("the late answers: connection %v, %d counted malformed (want 2)", hc.Err(), a.cl.Conn().Stats().Malformed)
		}

		// Again, the refusal first.
		hc.Close(transport.CloseTimeout, "gone")
		hc, _, _ = fake.next(t, r)
		busy, _ := wire.Reject{Code: wire.RejectFull, Version: wire.Version, Reason: "busy"}.Encode(nil)
		hc.SendMessage(transport.LaneControl, busy)
		hc.SendMessage(transport.LaneControl, resumed)
		r.steps(50 * time.Millisecond)
		if a.cl.Resumes() != 1 || a.cl.State() != Reconnecting {
			t.Fatalf("after Reject, Resumed: %d resumes, state %v", a.cl.Resumes(), a.cl.State())
		}
		var ce *transport.CloseError
		if !errors.As(hc.Err(), &ce) || !ce.Remote {
			t.Fatalf("the client kept a refused connection: %v", hc.Err())
		}
	})
}

// A host's Welcome or Resumed giving a peer id or a frame the client cannot
// hold (the wire's fields are wider) is malformed: the client ends the
// connection rather than play as another peer (a peer id past 16 bits cut
// to 0 would make it the host's own) or at another frame.
func TestClientRefusesWhatItCannotHold(t *testing.T) {
	for _, tc := range []struct {
		name        string
		peer        uint32
		frame       uint64
		resumeFirst bool
	}{
		{"welcome-peer-0", 0, 5, false},
		{"welcome-peer-65536", 1 << 16, 5, false},
		{"welcome-frame-past-32-bits", 7, 1<<32 + 5, false},
		{"resumed-frame-past-32-bits", 0, 1<<32 + 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
				fl, err := r.net.Listen("fake")
				if err != nil {
					t.Fatal(err)
				}
				fake := &fakeHost{l: fl}
				var a *resumer
				var msg []byte
				if tc.resumeFirst {
					a = r.join("a")
					tc.peer = uint32(a.cl.Peer())
					a.addr = "fake"
					a.conn().Close(transport.CloseTimeout, "the host stopped answering")
					var hc transport.Conn
					hc, _, _ = fake.next(t, r)
					msg = wire.Resumed{PeerID: tc.peer, TickRate: 60, SendRate: 30, Frame: tc.frame, GraceMillis: 30000, Runs: wire.LineageOf(wire.RunStart{Run: 1, Fresh: 1})}.Encode(nil)
					hc.SendMessage(transport.LaneControl, msg)
				} else {
					a = r.dial("a", "fake")
					hc, first, ok := fake.next(t, r)
					if !ok || wire.Kind(first[0]) != wire.KindHello {
						t.Fatalf("first message % x", first)
					}
					msg = wire.Welcome{PeerID: tc.peer, TickRate: 60, SendRate: 30, Frame: tc.frame, Runs: wire.LineageOf(wire.RunStart{Run: 1, Fresh: 1})}.Encode(nil)
					hc.SendMessage(transport.LaneControl, msg)
				}
				r.steps(100 * time.Millisecond)
				if a.cl.State() != Closed || a.cl.Err() == nil || !strings.Contains(a.cl.Err().Error(), "malformed") {
					t.Fatalf("after % x: state %v, peer %d, frame %d, err %v", msg, a.cl.State(), a.cl.Peer(), a.sched.World().Frame(), a.cl.Err())
				}
			})
		})
	}
}

// A host's lane messages of kinds a client does not take (a Command, a
// Hello, a reserved kind) count as malformed against the client's
// connection, each once; a receipt and the game's own kind reach its hook.
func TestClientCountsWhatItDoesNotTake(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
		var heard []wire.Kind
		r.onLane = func(_ transport.Lane, msg []byte) { heard = append(heard, wire.Kind(msg[0])) }
		fl, err := r.net.Listen("fake")
		if err != nil {
			t.Fatal(err)
		}
		fake := &fakeHost{l: fl}
		a := r.dial("a", "fake")
		hc, first, ok := fake.next(t, r)
		if !ok || wire.Kind(first[0]) != wire.KindHello {
			t.Fatalf("first message % x", first)
		}
		hc.SendMessage(transport.LaneControl, wire.Welcome{PeerID: 3, TickRate: 60, SendRate: 30, Frame: 5, Runs: wire.LineageOf(wire.RunStart{Run: 1, Fresh: 1})}.Encode(nil))
		r.steps(50 * time.Millisecond)
		cmd, _ := wire.Command{Op: 1, Kind: 0}.Encode(nil)
		hello, _ := wire.Hello{Version: wire.Version, Name: "host"}.Encode(nil)
		for _, m := range [][]byte{cmd, hello, {0x8a, 1}, {byte(wire.KindReceipt), 1}, {byte(wire.KindGameLane), 1}} {
			hc.SendMessage(transport.LaneCommands, m)
		}
		r.steps(100 * time.Millisecond)
		if got := a.cl.Conn().Stats().Malformed; got != 3 || len(heard) != 2 || heard[0] != wire.KindReceipt || heard[1] != wire.KindGameLane {
			t.Fatalf("three lane messages no client takes: %d counted malformed; the hook heard %v", got, heard)
		}
	})
}

// The game's Admit hook refuses a Hello before any peer id or slot is
// given, and OnJoin refusing refuses the peer: each with a Reject whose
// reason the client reads, and nothing of the peer stays on the host.
func TestHooksRefuseWithAReject(t *testing.T) {
	for _, hook := range []string{"admit", "join"} {
		t.Run(hook, func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				cfg := HostConfig{}
				var r *resumeRig
				if hook == "admit" {
					cfg.Admit = func(a Arrival) error {
						if a.Name == "mallory" {
							return errors.New("mallory is banned from this server")
						}
						return nil
					}
				} else {
					cfg.OnJoin = func(p ecs.PeerID, name string) error {
						r.spawn.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
						if name == "mallory" {
							return errors.New("mallory is banned from this server")
						}
						return nil
					}
				}
				r = newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, cfg)
				r.join("alice")
				entities := r.hw.Networked()
				m := r.dial("mallory", "host")
				r.steps(time.Second)
				var rj *RejectError
				if !errors.As(m.cl.Err(), &rj) || !errors.Is(m.cl.Err(), ErrRejected) || rj.Code != wire.RejectDenied || rj.Reason != "mallory is banned from this server" {
					t.Fatalf("mallory's client ended with %v, want a RejectDenied with the hook's reason", m.cl.Err())
				}
				st := r.host.Stats()
				if st.Admitted != 1 || len(r.host.Peers()) != 1 || r.hw.Networked() != entities || len(r.host.KnownPeers(nil)) != 1 {
					t.Fatalf("after refusing mallory: host %+v, peers %v, %d entities (was %d)", st, r.host.Peers(), r.hw.Networked(), entities)
				}
			})
		})
	}
}

// The host's known peers (peer id, name, token hash) go into a save; a host
// that restores the save reserves them, and a client that kept its token
// resumes into the restored world as the same peer, holding that world.
func TestKnownPeersResumeIntoARestoredWorld(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
		a := r.join("a")
		r.join("b")
		r.steps(time.Second)
		peer := a.cl.Peer()
		saved := r.host.KnownPeers(nil)
		if len(saved) != 2 || saved[0].Peer != peer || saved[0].Name != "a" || saved[0].TokenHash == ([32]byte{}) {
			t.Fatalf("known peers %+v", saved)
		}

		// Another host restores the save: its own world, the peers known.
		r2 := newResumeRigOn(t, r.net, r.clk, "restored", HostConfig{})
		if err := r2.host.RestorePeers(saved, 0); err != nil {
			t.Fatal(err)
		}
		if err := r2.host.RestorePeers(saved[:1], 0); !errors.Is(err, ErrPeerTaken) {
			t.Fatalf("restoring a peer twice: %v, want ErrPeerTaken", err)
		}
		r2.spawn.NewWith(&ecs.Transform{X: 77}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: peer})
		if got := r2.host.Away(); len(got) != 2 {
			t.Fatalf("restored host has away peers %v", got)
		}

		// a's host is gone; its client dials the restored one.
		a.addr = "restored"
		a.conn().Cut()
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		r.clients = nil
		r2.clients = []*resumer{a}
		a.rig = r2
		for i := 0; a.cl.State() != Playing; i++ {
			if i > 10*60 {
				t.Fatalf("not resumed into the restored world: %v %v", a.cl.State(), a.cl.Err())
			}
			r2.step()
		}
		r2.mv.still = true
		r2.steps(time.Second)
		if a.cl.Peer() != peer || a.cl.Resumes() != 1 || len(r2.owned(peer)) != 1 {
			t.Fatalf("resumed into the restored world as peer %d (was %d) after %d resumes, owning %v", a.cl.Peer(), peer, a.cl.Resumes(), r2.owned(peer))
		}
		sameImage(t, "restored", r2.hw, r2.hreg, a.w, a.reg)
		if a.cl.Replicator().Stats().Swept == 0 {
			t.Fatal("the old world's entities were not swept")
		}
		// b never came back: past the window it leaves.
		r2.steps(31 * time.Second)
		if len(r2.host.Away()) != 0 || r2.host.Stats().Expired != 1 {
			t.Fatalf("after the window: away %v, host %+v", r2.host.Away(), r2.host.Stats())
		}
	})
}

// resumeFlood sends the host Resumes of one message, five a step, each on
// a connection of its own opened a few steps before, so that they reach the
// host beside a player's; it closes each as its answer comes.
type resumeFlood struct{ opened, asked []*rawPeer }

// step sends five of msg, opens five connections for the steps to come,
// steps the rig and reads the answers.
func (f *resumeFlood) step(r *resumeRig, msg []byte) {
	r.t.Helper()
	for k := 0; k < 5 && len(f.opened) > 10; k++ {
		f.opened[0].tc.SendMessage(transport.LaneControl, msg)
		f.asked = append(f.asked, f.opened[0])
		f.opened = f.opened[1:]
	}
	for range 5 {
		tc, err := r.net.Dial(context.Background(), "host")
		if err != nil {
			r.t.Fatal(err)
		}
		f.opened = append(f.opened, &rawPeer{tc: tc})
	}
	r.step()
	kept := f.asked[:0]
	for _, p := range f.asked {
		p.read()
		if _, ok := p.reject(); ok || p.tc.Err() != nil {
			p.tc.Close(transport.CloseNormal, "")
			continue
		}
		kept = append(kept, p)
	}
	f.asked = kept
}

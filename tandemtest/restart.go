package tandemtest

import (
	"sync/atomic"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
)

// Restart restarts the host as a deploy does, over real QUIC: the host
// closes for a restart (Host.CloseForRestart: its world saved, its players
// kept in the save and told to come back), its process ends (its UDP socket
// closes), and a new host of the same game and configuration (the one
// NewLoopback was given) restores that save and listens on the same address
// (Addr), presenting the same certificate and stateless-reset key, so that
// the join line (Line) and the pins the clients hold still match, as a game
// keeps its own (tandem.OpenSave, quicnet.LoadIdentity). Host is the new
// host when it returns.
//
// Then it waits until every client of Join that had not ended (closed, or
// its Run returned) resumes its peer on the new host and plays again (State
// Playing, NetStats.Resumes one more than before; a spectator, which a save
// does not keep, watches again as a new peer), checking every 5 ms, for
// at most JoinWait from the new host's start. On loopback that takes some
// 50 ms on an idle machine (told to come back, a client dials again at
// once), a few tenths of a second on a busy one or under -race (a trial
// measured 0.3 s on two shared cores, 1.7 s with -race). The clients run
// on meanwhile, each on its goroutine, their worlds held still while they
// reconnect (ClientConfig.Dial).
//
// The host must be able to restart (Host.Restartable: it saves, with
// SaveTo or Store, and keeps a grace window); the test fails, saying what
// to set, if it cannot. It fails too if the host's close or the new host
// fails, or if a client does not resume within the wait: its Run ended (its
// error is said), or it joined afresh as another peer (the new host did not
// take its player back). Call it from the test's goroutine.
func (lb *Loopback[I]) Restart() {
	lb.t.Helper()
	if !lb.Host.Restartable() {
		switch {
		case lb.hostCfg.SaveTo == "" && lb.hostCfg.Store == nil:
			lb.t.Fatalf("tandemtest: Restart of a host that cannot restart: it keeps no save to restore; give HostConfig a SaveTo (a file in t.TempDir(), say) or a Store")
		case lb.hostCfg.Grace < 0:
			lb.t.Fatalf("tandemtest: Restart of a host that cannot restart: HostConfig.Grace is negative, which keeps no one; leave it at its default or make it positive")
		default:
			lb.t.Fatalf("tandemtest: Restart of a host that cannot restart: it has closed or stopped (its error: %v)", lb.Host.Err())
		}
	}
	if err := lb.Host.CloseForRestart(); err != nil {
		lb.t.Fatalf("tandemtest: the host's close for a restart: %v", err)
	}
	addr := lb.listener.Addr().String()
	// The process ends: whatever the old host's transport still held goes
	// with its socket (CloseForRestart closed its connections, which
	// closes the socket once their goroutines end).
	_ = lb.listener.Close()
	_ = lb.socket.Close()
	lb.listener, lb.socket = nil, nil

	// Who comes back: every client that has not ended, as the peer it is,
	// with one resume more than now (no resume can land between the old
	// host's close and the new one's start).
	type back struct {
		c       *tandem.Client[I]
		peer    ecs.PeerID
		resumes int
		end     *runEnd
		joined  *atomic.Bool // a spectator's: let in again (PeerJoined)
	}
	var coming []back
	lb.mu.Lock()
	for _, c := range lb.Clients {
		end := lb.runs[c]
		select {
		case <-end.done:
			continue
		default:
		}
		if c.State() == tandem.Closed {
			continue
		}
		b := back{c: c, peer: c.Peer(), resumes: c.NetStats().Resumes, end: end}
		if end.spectator {
			joined := &atomic.Bool{}
			b.joined = joined
			defer c.OnEvent(func(e tandem.Event) {
				if e.Kind == tandem.PeerJoined {
					joined.Store(true)
				}
			})()
		}
		coming = append(coming, b)
	}
	lb.mu.Unlock()

	h, err := tandem.NewHost(lb.game, lb.hostCfg)
	if err != nil {
		lb.t.Fatalf("tandemtest: the restarted host: %v", err)
	}
	lb.Host = h
	if _, err := lb.listen(addr); err != nil {
		lb.t.Fatalf("tandemtest: the restarted host cannot listen on %s again: %v", addr, err)
	}
	lb.start(h)

	deadline := time.Now().Add(JoinWait)
	for _, b := range coming {
		for {
			select {
			case <-b.end.done:
				lb.t.Fatalf("tandemtest: %s did not resume after the restart: its Run ended with %v (its error: %v; the new host's: %v)", b.end.name, b.end.err, b.c.Err(), h.Err())
			default:
			}
			if b.joined != nil {
				if b.c.State() == tandem.Playing && b.joined.Load() {
					break // back, afresh: no save keeps a spectator
				}
			} else if b.c.State() == tandem.Playing {
				if p := b.c.Peer(); p != b.peer {
					lb.t.Fatalf("tandemtest: %s joined the restarted host afresh as peer %d instead of resuming peer %d: the restored save did not keep its player (was it past the host's Grace?)", b.end.name, p, b.peer)
				}
				if b.c.NetStats().Resumes > b.resumes {
					break
				}
			}
			if time.Now().After(deadline) {
				lb.t.Fatalf("tandemtest: %s did not resume within %v of the restart: %v (its error: %v; the new host's: %v)", b.end.name, JoinWait, b.c.State(), b.c.Err(), h.Err())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

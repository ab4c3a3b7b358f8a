package fleet

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/ecs"
)

// playerValue is a player's value in the List: its peer id in decimal.
func playerValue(id ecs.PeerID) string { return strconv.FormatUint(uint64(id), 10) }

// players keeps the List of players in step with the host's: the simulation
// goroutine records what the list should hold (want), and one goroutine of
// its own makes the SDK calls that get it there, so a slow or failing SDK
// server never holds a step. Changes are coalesced: a player that joins and
// leaves before the calls catch up costs none.
type players struct {
	sdk     *agones.Client
	name    string
	timeout time.Duration
	onError func(error)

	mu     sync.Mutex
	gen    uint64          // the host whose events count
	wanted map[string]bool // values the list should hold
	listed map[string]bool // values it holds, as far as the calls told
	read   bool            // the list is to be read before the next change
	kick   chan struct{}
}

func newPlayers(cfg Config) *players {
	return &players{sdk: cfg.SDK, name: cfg.Players, timeout: cfg.CallTimeout, onError: cfg.OnError,
		wanted: map[string]bool{}, listed: map[string]bool{}, kick: make(chan struct{}, 1)}
}

// reset starts over with the players of host gen: the list is read again
// and brought to hold those values only.
func (p *players) reset(gen uint64, values []string) {
	p.mu.Lock()
	p.gen = gen
	clear(p.wanted)
	for _, v := range values {
		p.wanted[v] = true
	}
	p.read = true
	p.mu.Unlock()
	p.wake()
}

// want records that value should be in the list (in) or not, for an event
// of host gen. Safe from any goroutine; it never waits for a call.
func (p *players) want(gen uint64, value string, in bool) {
	p.mu.Lock()
	if gen != p.gen {
		p.mu.Unlock()
		return
	}
	if in {
		p.wanted[value] = true
	} else {
		delete(p.wanted, value)
	}
	p.mu.Unlock()
	p.wake()
}

func (p *players) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// run makes the calls until ctx ends, trying a failed one again after a
// growing pause.
func (p *players) run(ctx context.Context) {
	var retry <-chan time.Time
	wait := 100 * time.Millisecond
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.kick:
		case <-retry:
		}
		retry = nil
		if err := p.sync(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			p.onError(fmt.Errorf("fleet: the %s list: %w; trying again in %v", p.name, err, wait))
			retry = time.After(wait)
			wait = min(2*wait, 10*time.Second)
			continue
		}
		wait = 100 * time.Millisecond
	}
}

// sync makes the calls that bring the list to what is wanted now, in value
// order, removals first (so a full list makes room); it stops at the first
// call that fails.
func (p *players) sync(ctx context.Context) error {
	for {
		p.mu.Lock()
		read := p.read
		p.mu.Unlock()
		if read {
			cctx, cancel := context.WithTimeout(ctx, p.timeout)
			l, err := p.sdk.GetList(cctx, p.name)
			cancel()
			if err != nil {
				return err
			}
			p.mu.Lock()
			p.read = false
			clear(p.listed)
			for _, v := range l.Values {
				p.listed[v] = true
			}
			p.mu.Unlock()
		}
		value, add, ok := p.next()
		if !ok {
			return nil
		}
		cctx, cancel := context.WithTimeout(ctx, p.timeout)
		var err error
		if add {
			_, err = p.sdk.AddListValue(cctx, p.name, value)
		} else {
			_, err = p.sdk.RemoveListValue(cctx, p.name, value)
		}
		cancel()
		if err != nil {
			return err
		}
		p.mu.Lock()
		if add {
			p.listed[value] = true
		} else {
			delete(p.listed, value)
		}
		p.mu.Unlock()
	}
}

// next returns the next call to make: a value listed and not wanted
// (removed), else one wanted and not listed (added); ok false when the list
// is as wanted.
func (p *players) next() (value string, add, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var removes, adds []string
	for v := range p.listed {
		if !p.wanted[v] {
			removes = append(removes, v)
		}
	}
	if len(removes) > 0 {
		return slices.Min(removes), false, true
	}
	for v := range p.wanted {
		if !p.listed[v] {
			adds = append(adds, v)
		}
	}
	if len(adds) > 0 {
		return slices.Min(adds), true, true
	}
	return "", false, false
}

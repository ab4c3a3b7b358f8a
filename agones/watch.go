package agones

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// WatchGameServer calls fn with the GameServer at once and then after each
// change the SDK server reports (GET /watch/gameserver), until ctx ends; it
// then returns ctx's error. When the stream breaks it reconnects with
// backoff (Options.WatchBackoff) and reports the break to Options.OnError;
// the first event of a new stream is the current GameServer, so fn may see
// the same state twice and must act on what changed, not on each call (load
// a world once, even if the allocation is reported again). fn runs on the
// calling goroutine; the watch waits for it.
func (c *Client) WatchGameServer(ctx context.Context, fn func(*GameServer)) error {
	wait := c.backoff[0]
	for {
		got, err := c.watchOnce(ctx, fn)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if got {
			wait = c.backoff[0]
		}
		c.onError(fmt.Errorf("agones: watching the GameServer: %w; reconnecting in %v", err, wait))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, c.backoff[1])
	}
}

// watchOnce reads one watch stream until it breaks; got reports whether an
// event arrived.
func (c *Client) watchOnce(ctx context.Context, fn func(*GameServer)) (got bool, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/watch/gameserver", nil)
	if err != nil {
		return false, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return false, &Error{Method: "GET", Path: "/watch/gameserver", Err: err, addr: c.base[len("http://"):]}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var p [4096]byte
		n, _ := resp.Body.Read(p[:])
		return false, &Error{Method: "GET", Path: "/watch/gameserver", Status: resp.StatusCode, Message: errorMessage(p[:n])}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var ev struct {
			Result *GameServer `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			return got, fmt.Errorf("a watch event that is not JSON: %w", err)
		}
		if ev.Error != nil {
			return got, fmt.Errorf("the SDK server ended the stream: %s", ev.Error.Message)
		}
		if ev.Result == nil {
			continue
		}
		got = true
		fn(ev.Result)
	}
	if err := sc.Err(); err != nil {
		return got, err
	}
	return got, errors.New("the stream ended")
}

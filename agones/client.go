package agones

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// PortEnv is the environment variable Agones sets to the SDK server's REST
// port; DefaultPort is used when it is unset.
const (
	PortEnv     = "AGONES_SDK_HTTP_PORT"
	DefaultPort = 9358
)

// Options configure New.
type Options struct {
	// Addr is the SDK server's host:port. Default: localhost and the port
	// of AGONES_SDK_HTTP_PORT (9358 if unset).
	Addr string
	// HTTPClient makes the requests. Default: a client with no overall
	// timeout (the watch stream is long-lived); give each call a context
	// with a deadline.
	HTTPClient *http.Client
	// OnError is told of errors the background loops (WatchGameServer,
	// HealthPinger) survive: a broken watch stream, a failed Health call.
	// Called on those loops' goroutines. Default: ignore them.
	OnError func(error)
	// WatchBackoff is the first wait before reconnecting a broken watch
	// stream (default 100 ms); it doubles on each failure up to
	// WatchBackoffMax (default 5 s) and starts over after an event arrives.
	WatchBackoff, WatchBackoffMax time.Duration
}

// Client speaks to the Agones SDK server (the sidecar of a GameServer pod)
// over its REST interface. Safe for concurrent use.
type Client struct {
	base    string // http://host:port
	http    *http.Client
	onError func(error)
	backoff [2]time.Duration
}

// New returns a client of the SDK server. It makes no request.
func New(opts Options) (*Client, error) {
	addr := opts.Addr
	if addr == "" {
		port := DefaultPort
		if s := os.Getenv(PortEnv); s != "" {
			p, err := strconv.Atoi(s)
			if err != nil || p <= 0 || p > 65535 {
				return nil, fmt.Errorf("agones: %s=%q is not a port: unset it to use %d, or set the SDK server's HTTP port", PortEnv, s, DefaultPort)
			}
			port = p
		}
		addr = net.JoinHostPort("localhost", strconv.Itoa(port))
	}
	c := &Client{base: "http://" + addr, http: opts.HTTPClient, onError: opts.OnError,
		backoff: [2]time.Duration{opts.WatchBackoff, opts.WatchBackoffMax}}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.onError == nil {
		c.onError = func(error) {}
	}
	if c.backoff[0] <= 0 {
		c.backoff[0] = 100 * time.Millisecond
	}
	if c.backoff[1] < c.backoff[0] {
		c.backoff[1] = max(5*time.Second, c.backoff[0])
	}
	return c, nil
}

// Ready tells Agones the server is ready to take players: call it once the
// listener is bound and the world loaded.
func (c *Client) Ready(ctx context.Context) error {
	return c.do(ctx, "POST", "/ready", struct{}{}, nil)
}

// Health tells Agones the server is healthy. Agones expects one call per
// health period (Spec.Health); HealthPinger sends them while the game runs.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, "POST", "/health", struct{}{}, nil)
}

// Allocate marks the server Allocated itself (a matchmaker usually does it
// through a GameServerAllocation instead).
func (c *Client) Allocate(ctx context.Context) error {
	return c.do(ctx, "POST", "/allocate", struct{}{}, nil)
}

// Reserve marks the server Reserved for d (whole seconds, rounded up; 0
// keeps it Reserved until the next state change): it is not allocated or
// scaled down meanwhile.
func (c *Client) Reserve(ctx context.Context, d time.Duration) error {
	secs := int64((d + time.Second - 1) / time.Second)
	if d < 0 {
		secs = 0
	}
	return c.do(ctx, "POST", "/reserve", map[string]Int64{"seconds": Int64(secs)}, nil)
}

// Shutdown tells Agones the server is done: call it after the world's final
// save. The pod is then stopped.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.do(ctx, "POST", "/shutdown", struct{}{}, nil)
}

// GameServer returns the GameServer as the SDK server has it now.
func (c *Client) GameServer(ctx context.Context) (*GameServer, error) {
	gs := new(GameServer)
	if err := c.do(ctx, "GET", "/gameserver", nil, gs); err != nil {
		return nil, err
	}
	return gs, nil
}

// SetLabel sets the label SDKPrefix+key on the GameServer. Keys and values
// follow Kubernetes' label rules: the key's name (its last part, after the
// "sdk-" the prefix ends with) and the value at most 63 characters of
// [A-Za-z0-9_.-], beginning and ending with a letter or digit (the value
// may be empty); others are refused here, sending nothing.
func (c *Client) SetLabel(ctx context.Context, key, value string) error {
	if err := checkLabel(key, value); err != nil {
		return err
	}
	return c.do(ctx, "PUT", "/metadata/label", map[string]string{"key": key, "value": value}, nil)
}

// checkLabel reports a label key or value Kubernetes would refuse.
func checkLabel(key, value string) error {
	name := SDKPrefix[strings.LastIndexByte(SDKPrefix, '/')+1:] + key
	if key == "" || !labelText(name) {
		return fmt.Errorf("agones: label key %q: give at most %d characters of A-Z, a-z, 0-9, '-', '_' and '.', ending with a letter or digit (Kubernetes' label rules; the key is the label's name after %q)", key, 63-len(name)+len(key), SDKPrefix)
	}
	if value != "" && !labelText(value) {
		return fmt.Errorf("agones: label %q's value %q: give at most 63 characters of A-Z, a-z, 0-9, '-', '_' and '.', beginning and ending with a letter or digit, or none (Kubernetes' label rules)", key, value)
	}
	return nil
}

// labelText reports whether s is a label name or a non-empty value.
func labelText(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	alnum := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' }
	for i := 0; i < len(s); i++ {
		if b := s[i]; !alnum(b) && b != '-' && b != '_' && b != '.' {
			return false
		}
	}
	return alnum(s[0]) && alnum(s[len(s)-1])
}

// SetAnnotation sets the annotation SDKPrefix+key on the GameServer.
func (c *Client) SetAnnotation(ctx context.Context, key, value string) error {
	return c.do(ctx, "PUT", "/metadata/annotation", map[string]string{"key": key, "value": value}, nil)
}

// GetList returns the List called name (beta Counters and Lists).
func (c *Client) GetList(ctx context.Context, name string) (*List, error) {
	l := new(List)
	if err := c.do(ctx, "GET", "/v1beta1/lists/"+url.PathEscape(name), nil, l); err != nil {
		return nil, err
	}
	return l, nil
}

// AddListValue adds value to the List called name (beta Counters and
// Lists). A value already in the list is not an error: added is false.
func (c *Client) AddListValue(ctx context.Context, name, value string) (added bool, err error) {
	err = c.do(ctx, "POST", "/v1beta1/lists/"+url.PathEscape(name)+":addValue", map[string]string{"value": value}, nil)
	if e, ok := errors.AsType[*Error](err); ok && e.Status == http.StatusInternalServerError && strings.HasPrefix(e.Message, "already exists") {
		return false, nil
	}
	return err == nil, err
}

// RemoveListValue removes value from the List called name. A value not in
// the list is not an error: removed is false.
func (c *Client) RemoveListValue(ctx context.Context, name, value string) (removed bool, err error) {
	err = c.do(ctx, "POST", "/v1beta1/lists/"+url.PathEscape(name)+":removeValue", map[string]string{"value": value}, nil)
	if e, ok := errors.AsType[*Error](err); ok && e.Status == http.StatusInternalServerError && strings.HasPrefix(e.Message, "not found: value") {
		return false, nil
	}
	return err == nil, err
}

// Error is a call the SDK server refused or that did not reach it.
type Error struct {
	Method, Path string // the HTTP method and path called ("POST", "/ready")
	Status       int    // the HTTP status; 0 if no answer came
	Message      string // the server's message (grpc-gateway's "message")
	Err          error  // the transport's error when no answer came
	addr         string
}

// Error says which call failed, why, and what to do.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("agones: %s %s: the SDK server at %s did not answer (%v): run inside an Agones GameServer pod, run the local SDK server (sdk-server --local), or point %s at it",
			e.Method, e.Path, e.addr, e.Err, PortEnv)
	}
	msg := fmt.Sprintf("agones: %s %s: HTTP %d: %s", e.Method, e.Path, e.Status, e.Message)
	switch {
	case strings.Contains(e.Message, "not enabled"):
		msg += " (enable the CountsAndLists feature gate of Agones)"
	case strings.HasPrefix(e.Message, "list not found"), strings.Contains(e.Message, "List not found"):
		msg += " (declare the list under spec.lists of the Fleet's GameServer template)"
	case strings.HasPrefix(e.Message, "out of range"):
		msg += " (the list is full: raise its capacity in the Fleet, or refuse the player)"
	case e.Status == http.StatusNotFound:
		msg += " (this SDK server does not know the path: is it an Agones version with this call?)"
	}
	return msg
}

// Unwrap returns the transport's error, if any.
func (e *Error) Unwrap() error { return e.Err }

// do sends a request with a JSON body (nil: none) and decodes the answer
// into out (nil: discard it).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		p, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(p)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Method: method, Path: path, Err: err, addr: strings.TrimPrefix(c.base, "http://")}
	}
	defer resp.Body.Close()
	p, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Method: method, Path: path, Err: err, addr: strings.TrimPrefix(c.base, "http://")}
	}
	if resp.StatusCode != http.StatusOK {
		return &Error{Method: method, Path: path, Status: resp.StatusCode, Message: errorMessage(p)}
	}
	if out != nil {
		if err := json.Unmarshal(p, out); err != nil {
			return fmt.Errorf("agones: %s %s: reading the answer: %w", method, path, err)
		}
	}
	return nil
}

// errorMessage returns the message of a grpc-gateway error body
// ({"code":2,"message":"...","details":[]}), or the body itself, on one
// line of at most 300 bytes (and an ellipsis): it ends up in logs.
func errorMessage(p []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	s := string(p)
	if json.Unmarshal(p, &e) == nil && e.Message != "" {
		s = e.Message
	}
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
}

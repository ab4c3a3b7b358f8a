// Package agonestest is a fake Agones SDK server for tests: an HTTP handler
// that speaks the REST paths and JSON of the real one (ready, health,
// allocate, reserve, shutdown, gameserver, the watch stream, labels,
// annotations, beta Lists), records the calls in the order they came, pushes
// GameServer changes to watchers (an allocation naming a world), and fails or
// delays calls on demand.
//
// Serve it on loopback with Start, or in memory with HTTPClient (which works
// inside a testing/synctest bubble, where a real socket would not let fake
// time advance).
package agonestest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-go/tandem/agones"
)

// Call is one request the sidecar received.
type Call struct {
	Method string
	Path   string    // the URL path, e.g. /ready, /v1beta1/lists/players:addValue
	Body   string    // the request body as sent
	At     time.Time // when it arrived (fake time inside a synctest bubble)
}

// String returns "METHOD PATH".
func (c Call) String() string { return c.Method + " " + c.Path }

// Fault is what the sidecar does to a call instead of, or before, answering.
type Fault struct {
	// Delay holds the answer back (the client's context still ends it).
	Delay time.Duration
	// Status, when non-zero, answers with this HTTP status and Message in
	// grpc-gateway's error JSON instead of doing the call.
	Status  int
	Message string
}

// Sidecar is the fake SDK server. Create it with New. Safe for concurrent
// use.
type Sidecar struct {
	mu      sync.Mutex
	gs      agones.GameServer
	calls   []Call
	faults  map[string][]Fault // path → faults for its next calls
	always  map[string]Fault   // path → the fault of every call after those
	changed chan struct{}      // closed and replaced on every change of gs or calls
	broken  chan struct{}      // closed and replaced by BreakWatches
	closed  chan struct{}
	watches int
	onCall  func(Call)

	server  *httptest.Server
	mem     *memListener
	memSrv  *http.Server
	memTran *http.Transport
}

// New returns a sidecar for a GameServer called "gameserver-test" in state
// Scheduled, with Agones' default health settings and no lists (add them
// with SetList).
func New() *Sidecar {
	s := &Sidecar{faults: map[string][]Fault{}, always: map[string]Fault{}, changed: make(chan struct{}), broken: make(chan struct{}), closed: make(chan struct{})}
	s.gs = agones.GameServer{
		ObjectMeta: agones.ObjectMeta{Name: "gameserver-test", Namespace: "default", UID: "uid-test",
			Annotations: map[string]string{}, Labels: map[string]string{}},
		Spec: agones.Spec{Health: agones.Health{PeriodSeconds: 5, FailureThreshold: 3, InitialDelaySeconds: 5}},
		Status: agones.Status{State: agones.StateScheduled, Address: "127.0.0.1",
			Addresses: []agones.Address{{Type: "InternalIP", Address: "127.0.0.1"}},
			Ports:     []agones.Port{{Name: "default", Port: 7777}},
			Counters:  map[string]agones.CounterStatus{}, Lists: map[string]agones.ListStatus{}},
	}
	return s
}

// Start serves the sidecar on a loopback port until the test ends and
// returns its address, for agones.Options.Addr.
func (s *Sidecar) Start(t testing.TB) string {
	t.Helper()
	s.mu.Lock()
	s.server = httptest.NewServer(s)
	addr := s.server.Listener.Addr().String()
	s.mu.Unlock()
	t.Cleanup(s.Close)
	return addr
}

// HTTPClient returns an HTTP client connected to the sidecar through
// in-memory pipes, for agones.Options.HTTPClient (any Addr). Inside a
// synctest bubble, call it inside the bubble, and Close the sidecar before
// the bubble's function returns.
func (s *Sidecar) HTTPClient() *http.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem == nil {
		s.mem = &memListener{conns: make(chan net.Conn), done: make(chan struct{})}
		s.memSrv = &http.Server{Handler: s}
		go s.memSrv.Serve(s.mem)
		s.memTran = &http.Transport{DialContext: s.mem.dial, DisableCompression: true}
	}
	return &http.Client{Transport: s.memTran}
}

// Close stops serving: watch streams end, the loopback server and the
// in-memory one shut down.
func (s *Sidecar) Close() {
	s.mu.Lock()
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
	server, memSrv, memTran := s.server, s.memSrv, s.memTran
	s.mu.Unlock()
	if server != nil {
		server.CloseClientConnections()
		server.Close()
	}
	if memSrv != nil {
		memSrv.Close()
		memTran.CloseIdleConnections()
	}
}

// Calls returns the calls received so far, in order.
func (s *Sidecar) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Count returns how many calls of path were received.
func (s *Sidecar) Count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if c.Path == path {
			n++
		}
	}
	return n
}

// WaitCount waits until n calls of path were received, or ctx ends (for
// the state a call sets, WaitState).
func (s *Sidecar) WaitCount(ctx context.Context, path string, n int) error {
	return s.wait(ctx, func() bool {
		k := 0
		for _, c := range s.calls {
			if c.Path == path {
				k++
			}
		}
		return k >= n
	})
}

// WaitState waits until the GameServer is in state st, or ctx ends. A call
// is counted (Count, WaitCount) when it arrives, before the state it sets:
// a test that acts on the state a call made (an Allocate after Ready, say)
// waits for the state, or the call's own update may land after its action.
func (s *Sidecar) WaitState(ctx context.Context, st agones.State) error {
	return s.wait(ctx, func() bool { return s.gs.Status.State == st })
}

// WaitWatchers waits until n watch streams are connected, or ctx ends.
func (s *Sidecar) WaitWatchers(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return s.watches >= n })
}

func (s *Sidecar) wait(ctx context.Context, done func() bool) error {
	for {
		s.mu.Lock()
		ok, ch := done(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// notify wakes waiters and watch streams; s.mu is held.
func (s *Sidecar) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// GameServer returns a copy of the GameServer as the sidecar has it.
func (s *Sidecar) GameServer() agones.GameServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyGS(s.gs)
}

// Update changes the GameServer and pushes it to the watch streams.
func (s *Sidecar) Update(fn func(gs *agones.GameServer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&s.gs)
	s.notify()
}

// Allocate does what a GameServerAllocation does: the state becomes
// Allocated and the labels and annotations given are set (unprefixed, as an
// allocation's metadata sets them), then watchers are told.
func (s *Sidecar) Allocate(labels, annotations map[string]string) {
	s.Update(func(gs *agones.GameServer) {
		gs.Status.State = agones.StateAllocated
		for k, v := range labels {
			gs.ObjectMeta.Labels[k] = v
		}
		for k, v := range annotations {
			gs.ObjectMeta.Annotations[k] = v
		}
	})
}

// SetList declares a List (beta Counters and Lists) with a capacity and
// values.
func (s *Sidecar) SetList(name string, capacity int64, values ...string) {
	s.Update(func(gs *agones.GameServer) {
		gs.Status.Lists[name] = agones.ListStatus{Capacity: agones.Int64(capacity), Values: slices.Clone(values)}
	})
}

// OnCall makes fn hear of each call as it arrives, before it is answered
// (and before any fault set for it), on the goroutine serving it: a test
// checks there what must hold when the call is made (the world saved before
// Shutdown, say). fn must not call the sidecar's methods that wait.
func (s *Sidecar) OnCall(fn func(Call)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onCall = fn
}

// Fail makes the next times calls of path meet f (times < 0: every call
// from then on, until Heal).
func (s *Sidecar) Fail(path string, f Fault, times int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if times < 0 {
		s.always[path] = f
		return
	}
	for range times {
		s.faults[path] = append(s.faults[path], f)
	}
}

// Heal removes the faults set for path.
func (s *Sidecar) Heal(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.faults, path)
	delete(s.always, path)
}

// BreakWatches ends every watch stream now open, as a restart of the SDK
// server would.
func (s *Sidecar) BreakWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.broken)
	s.broken = make(chan struct{})
}

func (s *Sidecar) nextFault(path string) (Fault, bool) {
	q := s.faults[path]
	if len(q) == 0 {
		f, ok := s.always[path]
		return f, ok
	}
	s.faults[path] = q[1:]
	return q[0], true
}

// ServeHTTP answers one SDK call.
func (s *Sidecar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	path := r.URL.Path
	s.mu.Lock()
	call := Call{Method: r.Method, Path: path, Body: string(body), At: time.Now()}
	s.calls = append(s.calls, call)
	f, faulty := s.nextFault(path)
	s.notify()
	onCall := s.onCall
	s.mu.Unlock()
	if onCall != nil {
		onCall(call)
	}
	if faulty {
		if f.Delay > 0 {
			t := time.NewTimer(f.Delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if f.Status != 0 {
			gatewayError(w, f.Status, f.Message)
			return
		}
	}
	switch {
	case r.Method == "POST" && path == "/ready":
		s.setState(agones.StateReady)
	case r.Method == "POST" && path == "/allocate":
		s.setState(agones.StateAllocated)
	case r.Method == "POST" && path == "/shutdown":
		s.setState(agones.StateShutdown)
	case r.Method == "POST" && path == "/reserve":
		var d struct {
			Seconds agones.Int64 `json:"seconds"`
		}
		if len(body) > 0 && json.Unmarshal(body, &d) != nil {
			gatewayError(w, http.StatusBadRequest, "invalid Duration")
			return
		}
		s.setState(agones.StateReserved)
	case r.Method == "POST" && path == "/health":
	case r.Method == "GET" && path == "/gameserver":
		writeJSON(w, s.GameServer())
		return
	case r.Method == "GET" && path == "/watch/gameserver":
		s.watch(w, r)
		return
	case r.Method == "PUT" && (path == "/metadata/label" || path == "/metadata/annotation"):
		var kv struct{ Key, Value string }
		if err := json.Unmarshal(body, &kv); err != nil || kv.Key == "" {
			gatewayError(w, http.StatusBadRequest, "invalid key/value")
			return
		}
		s.Update(func(gs *agones.GameServer) {
			if path == "/metadata/label" {
				gs.ObjectMeta.Labels[agones.SDKPrefix+kv.Key] = kv.Value
			} else {
				gs.ObjectMeta.Annotations[agones.SDKPrefix+kv.Key] = kv.Value
			}
		})
	case strings.HasPrefix(path, "/v1beta1/lists/"):
		s.list(w, r, strings.TrimPrefix(path, "/v1beta1/lists/"), body)
		return
	default:
		gatewayError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, struct{}{})
}

func (s *Sidecar) setState(st agones.State) {
	s.Update(func(gs *agones.GameServer) { gs.Status.State = st })
}

func (s *Sidecar) list(w http.ResponseWriter, r *http.Request, rest string, body []byte) {
	name, verb, _ := strings.Cut(rest, ":")
	var req struct{ Value string }
	if verb != "" && json.Unmarshal(body, &req) != nil {
		gatewayError(w, http.StatusBadRequest, "invalid request body")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.gs.Status.Lists[name]
	if !ok {
		gatewayError(w, http.StatusInternalServerError, "list not found: "+name)
		return
	}
	switch {
	case r.Method == "GET" && verb == "":
	case r.Method == "POST" && verb == "addValue":
		if int(l.Capacity) <= len(l.Values) {
			gatewayError(w, http.StatusInternalServerError, "out of range. No available capacity. Current Capacity: "+strconv.Itoa(int(l.Capacity))+", List Size: "+strconv.Itoa(len(l.Values)))
			return
		}
		if slices.Contains(l.Values, req.Value) {
			gatewayError(w, http.StatusInternalServerError, "already exists. Value: "+req.Value+" already in List: "+name)
			return
		}
		l.Values = append(slices.Clone(l.Values), req.Value)
	case r.Method == "POST" && verb == "removeValue":
		i := slices.Index(l.Values, req.Value)
		if i < 0 {
			gatewayError(w, http.StatusInternalServerError, "not found: value "+req.Value+" not in list "+name)
			return
		}
		l.Values = slices.Delete(slices.Clone(l.Values), i, i+1)
	default:
		gatewayError(w, http.StatusNotFound, "Not Found")
		return
	}
	s.gs.Status.Lists[name] = l
	s.notify()
	writeJSON(w, agones.List{Name: name, Capacity: l.Capacity, Values: l.Values})
}

// watch streams {"result": GameServer} lines: the current one, then one per
// change, until the client leaves, BreakWatches or Close.
func (s *Sidecar) watch(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.watches++
	broken := s.broken
	s.notify()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.watches--
		s.notify()
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "application/json")
	var sent []byte
	for {
		s.mu.Lock()
		p, _ := json.Marshal(map[string]any{"result": s.gs})
		ch := s.changed
		s.mu.Unlock()
		if string(p) != string(sent) {
			if _, err := w.Write(append(p, '\n')); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			sent = p
		}
		select {
		case <-ch:
		case <-broken:
			return
		case <-s.closed:
			return
		case <-r.Context().Done():
			return
		}
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	p, _ := json.Marshal(v)
	w.Write(p)
}

// gatewayError answers as grpc-gateway does for a failed call.
func gatewayError(w http.ResponseWriter, status int, msg string) {
	code := 2 // Unknown: what the SDK server's plain errors become
	switch status {
	case http.StatusBadRequest:
		code = 3
	case http.StatusNotFound:
		code = 5
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	p, _ := json.Marshal(map[string]any{"code": code, "message": msg, "details": []any{}})
	w.Write(p)
}

func copyGS(gs agones.GameServer) agones.GameServer {
	p, _ := json.Marshal(gs)
	var c agones.GameServer
	_ = json.Unmarshal(p, &c)
	return c
}

// memListener is a net.Listener of in-memory pipes.
type memListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *memListener) Addr() net.Addr { return memAddr{} }

func (l *memListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type memAddr struct{}

func (memAddr) Network() string { return "memory" }
func (memAddr) String() string  { return "agonestest" }

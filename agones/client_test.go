package agones_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/agones/agonestest"
)

func newClient(t *testing.T, side *agonestest.Sidecar, opts agones.Options) *agones.Client {
	t.Helper()
	opts.Addr = side.Start(t)
	c, err := agones.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCallsInOrder(t *testing.T) {
	side := agonestest.New()
	c := newClient(t, side, agones.Options{})
	ctx := context.Background()
	steps := []func() error{
		func() error { return c.SetAnnotation(ctx, "pin", "3f9c") },
		func() error { return c.Ready(ctx) },
		func() error { return c.SetLabel(ctx, "world", "arena-1") },
		func() error { return c.Reserve(ctx, 1500*time.Millisecond) },
		func() error { return c.Allocate(ctx) },
		func() error { return c.Health(ctx) },
		func() error { return c.Shutdown(ctx) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := []string{
		`PUT /metadata/annotation {"key":"pin","value":"3f9c"}`,
		`POST /ready {}`,
		`PUT /metadata/label {"key":"world","value":"arena-1"}`,
		`POST /reserve {"seconds":"2"}`,
		`POST /allocate {}`,
		`POST /health {}`,
		`POST /shutdown {}`,
	}
	calls := side.Calls()
	if len(calls) != len(want) {
		t.Fatalf("calls %v, want %d", calls, len(want))
	}
	for i, call := range calls {
		if got := call.String() + " " + call.Body; got != want[i] {
			t.Errorf("call %d: %s, want %s", i, got, want[i])
		}
	}
	gs, err := c.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gs.Status.State != agones.StateShutdown {
		t.Errorf("state %q, want Shutdown", gs.Status.State)
	}
	if v, ok := gs.SDKAnnotation("pin"); !ok || v != "3f9c" {
		t.Errorf("annotation pin = %q %v; annotations %v", v, ok, gs.ObjectMeta.Annotations)
	}
	if v, _ := gs.SDKLabel("world"); v != "arena-1" || gs.ObjectMeta.Labels["agones.dev/sdk-world"] != "arena-1" {
		t.Errorf("label world = %q; labels %v", v, gs.ObjectMeta.Labels)
	}
}

// TestGameServerJSON reads a GameServer as the SDK server writes it: proto
// field names, int64 as strings, every field present.
func TestGameServerJSON(t *testing.T) {
	const doc = `{"object_meta":{"name":"fleet-abc","namespace":"default","uid":"u1","resource_version":"812",
		"generation":"3","creation_timestamp":"1767225600","deletion_timestamp":"0",
		"annotations":{"agones.dev/sdk-pin":"ab"},"labels":{"world":"arena-2"}},
		"spec":{"health":{"disabled":false,"period_seconds":5,"failure_threshold":3,"initial_delay_seconds":5}},
		"status":{"state":"Allocated","address":"10.0.0.7","addresses":[{"type":"InternalIP","address":"10.0.0.7"}],
		"ports":[{"name":"default","port":7654}],"players":null,
		"counters":{"rooms":{"count":"1","capacity":"10"}},
		"lists":{"players":{"capacity":"8","values":["p1","p2"]}}}}`
	var gs agones.GameServer
	if err := json.Unmarshal([]byte(doc), &gs); err != nil {
		t.Fatal(err)
	}
	m, st := gs.ObjectMeta, gs.Status
	switch {
	case m.Name != "fleet-abc" || m.Generation != 3 || m.CreationTimestamp != 1767225600 || m.Labels["world"] != "arena-2":
		t.Errorf("object_meta read as %+v", m)
	case gs.Spec.Health.PeriodSeconds != 5 || gs.Spec.Health.FailureThreshold != 3:
		t.Errorf("health read as %+v", gs.Spec.Health)
	case st.State != agones.StateAllocated || len(st.Ports) != 1 || st.Ports[0].Port != 7654 || st.Address != "10.0.0.7":
		t.Errorf("status read as %+v", st)
	case st.Counters["rooms"].Capacity != 10 || st.Lists["players"].Capacity != 8 || len(st.Lists["players"].Values) != 2:
		t.Errorf("counters %+v lists %+v", st.Counters, st.Lists)
	}
	if v, _ := gs.SDKAnnotation("pin"); v != "ab" {
		t.Errorf("SDKAnnotation(pin) = %q", v)
	}
	p, _ := json.Marshal(agones.Int64(-42))
	var n agones.Int64
	if string(p) != `"-42"` || json.Unmarshal([]byte(`17`), &n) != nil || n != 17 {
		t.Errorf("Int64: marshals as %s, reads 17 as %d", p, n)
	}
}

func TestListValues(t *testing.T) {
	side := agonestest.New()
	side.SetList("players", 2)
	c := newClient(t, side, agones.Options{})
	ctx := context.Background()
	for _, step := range []struct {
		add   bool
		value string
		want  bool // added / removed
	}{
		{true, "p1", true},
		{true, "p1", false}, // a duplicate add is tolerated
		{true, "p2", true},
		{false, "p1", true},
		{false, "p1", false}, // removing an absent value too
		{true, "p3", true},
	} {
		var got bool
		var err error
		if step.add {
			got, err = c.AddListValue(ctx, "players", step.value)
		} else {
			got, err = c.RemoveListValue(ctx, "players", step.value)
		}
		if err != nil || got != step.want {
			t.Fatalf("add=%v %s: %v, %v; want %v, nil", step.add, step.value, got, err, step.want)
		}
	}
	l, err := c.GetList(ctx, "players")
	if err != nil || strings.Join(l.Values, ",") != "p2,p3" || l.Capacity != 2 {
		t.Fatalf("GetList: %+v, %v; want p2,p3 of capacity 2", l, err)
	}
	if _, err := c.AddListValue(ctx, "players", "p4"); err == nil || !strings.Contains(err.Error(), "raise its capacity") {
		t.Errorf("add to a full list: %v, want an error saying to raise the capacity", err)
	}
	if _, err := c.AddListValue(ctx, "spectators", "p1"); err == nil || !strings.Contains(err.Error(), "spec.lists") {
		t.Errorf("add to an undeclared list: %v, want an error saying to declare it", err)
	}
	want := `POST /v1beta1/lists/players:addValue {"value":"p1"}`
	if c0 := side.Calls()[0]; c0.String()+" "+c0.Body != want {
		t.Errorf("first call %s %s, want %s", c0, c0.Body, want)
	}
}

func TestUnreachable(t *testing.T) {
	c, err := agones.New(agones.Options{Addr: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Ready(context.Background())
	var e *agones.Error
	if !errors.As(err, &e) || e.Err == nil {
		t.Fatalf("Ready with no SDK server: %v, want an *Error with the transport's error", err)
	}
	for _, s := range []string{"POST /ready", "127.0.0.1:1", "sdk-server --local", agones.PortEnv} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestRefusedCall(t *testing.T) {
	side := agonestest.New()
	side.Fail("/v1beta1/lists/players:addValue", agonestest.Fault{Status: 500, Message: "CountsAndLists not enabled"}, 1)
	side.SetList("players", 4)
	c := newClient(t, side, agones.Options{})
	_, err := c.AddListValue(context.Background(), "players", "p1")
	var e *agones.Error
	if !errors.As(err, &e) || e.Status != 500 || e.Message != "CountsAndLists not enabled" || !strings.Contains(err.Error(), "feature gate") {
		t.Fatalf("refused call: %v, want HTTP 500 with the server's message and what to do", err)
	}
	if added, err := c.AddListValue(context.Background(), "players", "p1"); !added || err != nil {
		t.Fatalf("the call after the fault: %v, %v", added, err)
	}
}

func TestContextCancel(t *testing.T) {
	side := agonestest.New()
	side.Fail("/ready", agonestest.Fault{Delay: time.Hour}, 1)
	c := newClient(t, side, agones.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Ready(ctx) }()
	if err := side.WaitCount(context.Background(), "/ready", 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Ready canceled while the server held it: %v, want context.Canceled", err)
	}
	if st := side.GameServer().Status.State; st == agones.StateReady {
		t.Error("the canceled Ready took effect")
	}
}

func TestPortFromEnvironment(t *testing.T) {
	side := agonestest.New()
	addr := side.Start(t)
	_, port, _ := strings.Cut(addr, ":")
	t.Setenv(agones.PortEnv, port)
	c, err := agones.New(agones.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Health(context.Background()); err != nil {
		t.Fatalf("Health through %s=%s: %v", agones.PortEnv, port, err)
	}
	if side.Count("/health") != 1 {
		t.Error("the health call did not reach the sidecar on the port of the environment")
	}
	t.Setenv(agones.PortEnv, "nine")
	if _, err := agones.New(agones.Options{}); err == nil || !strings.Contains(err.Error(), agones.PortEnv) {
		t.Errorf("New with %s=nine: %v, want an error naming the variable", agones.PortEnv, err)
	}
}

// A label Kubernetes would refuse is refused by SetLabel, naming the rule,
// and nothing is sent; one at the limits goes.
func TestSetLabelFollowsKubernetesRules(t *testing.T) {
	side := agonestest.New()
	c := newClient(t, side, agones.Options{})
	ctx := context.Background()
	for _, bad := range [][2]string{
		{"has space", "x"},
		{"", "x"},
		{"ends-", "x"},
		{strings.Repeat("k", 60), "x"}, // "sdk-" and 60: past 63
		{"world", "has space"},
		{"world", "-dash"},
		{"world", strings.Repeat("v", 64)},
	} {
		if err := c.SetLabel(ctx, bad[0], bad[1]); err == nil || !strings.Contains(err.Error(), "Kubernetes' label rules") {
			t.Errorf("SetLabel(%q, %q) = %v, want it refused by the label rules", bad[0], bad[1], err)
		}
	}
	if gs, err := c.GameServer(ctx); err != nil || len(gs.ObjectMeta.Labels) != 0 {
		t.Fatalf("labels after refused calls: %v, %v; want none", gs.ObjectMeta.Labels, err)
	}
	for _, good := range [][2]string{{"world", "arena-1"}, {strings.Repeat("k", 59), strings.Repeat("v", 63)}, {"a.b_c-d", ""}} {
		if err := c.SetLabel(ctx, good[0], good[1]); err != nil {
			t.Errorf("SetLabel(%q, %q) = %v", good[0], good[1], err)
		}
	}
}

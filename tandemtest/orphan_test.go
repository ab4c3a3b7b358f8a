package tandemtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// When the session ends unanswered the client answers its sent commands
// ReceiptUnknown ("the session ended"), to WaitReceipt too; an OnReceipt
// observer hearing that answer finds the client closed, as the event
// observers do, and a command it sends then is refused (ErrClosed): nothing
// would send it, nor answer it.
func TestUnknownAtTheEndIsHeardClosed(t *testing.T) {
	link := condition.Config{Latency: 50 * time.Millisecond}
	r := tandemtest.New(t, walkersWith(step), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	var state tandem.ClientState
	var heard bool
	var again error
	ann.OnReceipt(func(rc tandem.Receipt) {
		if rc.Status == tandem.ReceiptUnknown {
			heard, state = true, ann.State()
			_, again = tandem.Send(ann, step, struct{}{})
		}
	})
	op, err := tandem.Send(ann, step, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan tandem.Receipt, 1)
	go func() {
		rc, _ := ann.WaitReceipt(context.Background(), op)
		waited <- rc
	}()
	r.Step(1) // the client sends it, 50 ms from the host
	if st := ann.CommandStats(); st.Sent != 1 {
		t.Fatalf("command stats %+v: want it sent", st)
	}
	if err := r.Host.Close(); err != nil { // before it arrives: it never runs
		t.Fatal(err)
	}
	r.StepUntil(60, func() bool { return ann.State() == tandem.Closed })
	if rc := <-waited; rc.Status != tandem.ReceiptUnknown {
		t.Errorf("WaitReceipt: %v, want unknown", rc)
	}
	if !heard || state != tandem.Closed {
		t.Errorf("the observer heard unknown=%v with the client %v; want it heard with the client closed", heard, state)
	}
	if !errors.Is(again, tandem.ErrClosed) || ann.PendingCommands() != 0 {
		t.Errorf("a command sent after the end: %v, %d pending; want ErrClosed, none", again, ann.PendingCommands())
	}
}

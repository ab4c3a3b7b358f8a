package tandem

import (
	"context"
	"errors"
	"testing"
	"time"
)

// WaitReceipt, from a goroutine of its own, returns a command's receipt
// when it comes (to a wait already registered), and at once once it came; it fails at once for an op the
// client never sent, with the context's error when that ends first, and
// with ErrClosed when the client closes while it waits.
func TestWaitReceipt(t *testing.T) {
	r := newRig(t, HostConfig{})
	ann := r.join("ann", ClientConfig[push]{})
	op, err := Send(ann, addCommand, 5)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		rc  Receipt
		err error
	}
	wait := func(ctx context.Context, op uint64) chan answer {
		got := make(chan answer, 1)
		go func() {
			rc, err := ann.WaitReceipt(ctx, op)
			got <- answer{rc, err}
		}()
		return got
	}
	// waiting waits until a wait for op is registered, so that the receipt
	// (or the close) finds it waiting, not after.
	waiting := func(op uint64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			ann.cmds.mu.Lock()
			n := len(ann.cmds.waits.waiters[op])
			ann.cmds.mu.Unlock()
			if n > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no wait for op %d registered in 10 s", op)
			}
			time.Sleep(time.Millisecond)
		}
	}
	answered := func(got chan answer) answer {
		t.Helper()
		select {
		case a := <-got:
			return a
		case <-time.After(10 * time.Second):
			t.Fatal("WaitReceipt did not return in 10 s")
			return answer{}
		}
	}
	got := wait(context.Background(), op)
	waiting(op)
	for i := 0; ann.CommandStats().Receipts == 0; i++ {
		if i == 100 {
			t.Fatal("no receipt in 100 steps")
		}
		r.step(1)
	}
	if a := answered(got); a.err != nil || a.rc.Op != op || a.rc.Status != ReceiptDone || a.rc.Command != "add" {
		t.Fatalf("WaitReceipt while it came: %+v, %v", a.rc, a.err)
	}
	if rc, err := ann.WaitReceipt(context.Background(), op); err != nil || rc.Op != op || rc.Status != ReceiptDone {
		t.Fatalf("WaitReceipt after it came: %+v, %v", rc, err)
	}
	if _, err := ann.WaitReceipt(context.Background(), op+1000); err == nil {
		t.Fatal("WaitReceipt of an op never sent: no error")
	}
	op2, err := Send(ann, addCommand, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ann.WaitReceipt(ctx, op2); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitReceipt with its context ended: %v", err)
	}
	got = wait(context.Background(), op2)
	for i := 0; ann.CommandStats().Receipts == 1; i++ {
		if i == 100 {
			t.Fatal("no second receipt in 100 steps")
		}
		r.step(1)
	}
	if a := answered(got); a.err != nil || a.rc.Status != ReceiptRefused || a.rc.Reason != "nothing to add" {
		t.Fatalf("WaitReceipt of a refused command: %+v, %v", a.rc, a.err)
	}
	op3, err := Send(ann, addCommand, 1)
	if err != nil {
		t.Fatal(err)
	}
	got = wait(context.Background(), op3)
	waiting(op3)
	if err := ann.Close(); err != nil {
		t.Fatal(err)
	}
	if a := answered(got); !errors.Is(a.err, ErrClosed) {
		t.Fatalf("WaitReceipt when the client closed: %+v, %v; want ErrClosed", a.rc, a.err)
	}
	ann.Close() // again: counted once
	if st := ann.CommandStats(); st.Abandoned != 1 {
		t.Fatalf("the command waiting at Close is counted %d times abandoned, want once: %+v", st.Abandoned, st)
	}
}

// An observer removed (the function OnReceipt or OnEvent returned) hears
// nothing after; the others go on, and removing twice is removing once. One
// may remove itself while it runs.
func TestObserverRemoved(t *testing.T) {
	r := newRig(t, HostConfig{})
	ann := r.join("ann", ClientConfig[push]{})
	var all, first, once int
	ann.OnReceipt(func(Receipt) { all++ })
	removeFirst := ann.OnReceipt(func(Receipt) { first++ })
	var removeOnce func()
	removeOnce = ann.OnReceipt(func(Receipt) { once++; removeOnce() })
	events := 0
	removeEvents := ann.OnEvent(func(Event) { events++ })
	removeEvents()
	receipt := func(n int) {
		t.Helper()
		if _, err := Send(ann, addCommand, 1); err != nil {
			t.Fatal(err)
		}
		for i := 0; ann.CommandStats().Receipts < uint64(n); i++ {
			if i == 100 {
				t.Fatalf("no receipt %d in 100 steps", n)
			}
			r.step(1)
		}
	}
	receipt(1)
	removeFirst()
	removeFirst()
	receipt(2)
	receipt(3)
	if all != 3 || first != 1 || once != 1 {
		t.Fatalf("heard: all %d, removed after the first %d, removed by itself %d; want 3, 1, 1", all, first, once)
	}
	if err := ann.Close(); err != nil {
		t.Fatal(err)
	}
	if events != 0 {
		t.Fatalf("a removed event observer heard %d events", events)
	}
}

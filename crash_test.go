package tandem

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/store/storetest"
)

// hostCrashEnv, when set, makes the test binary the crash test's child: a
// host saving to the target the variable names (a bbolt file or a
// postgres:// URL), and a player sending it
// commands, until the process is killed.
const hostCrashEnv = "TANDEM_HOST_CRASH_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(hostCrashEnv); path != "" {
		hostCrashChild(path)
		return
	}
	os.Exit(storetest.Main(m)) // stops the PostgreSQL server a test started
}

// crashConfig is the child's host: players away after a restart give their
// place up at once (every trial's player is a new one).
func crashConfig(clk clock.Clock, path string) HostConfig {
	return HostConfig{Clock: clk, SaveTo: path, Grace: time.Millisecond}
}

// hostCrashChild restores the world, then has a player send "add" commands
// numbered on from the restored ledger's count: the k-th command ever adds
// k. It prints the ledger count a receipt makes durable, after the receipt
// reached the player, and never stops by itself.
func hostCrashChild(path string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(3)
	}
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	link := condition.Config{Latency: time.Millisecond}
	n, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	if err != nil {
		fail(err)
	}
	l, _ := n.Listen("host")
	h, err := NewHost(ledgerGame(), crashConfig(clk, path))
	if err != nil {
		fail(err)
	}
	var count uint64
	h.Do(func(w *World) { count = ecs.Resource[ledger](w.ECS).Count })
	tc, _ := n.Dial(context.Background(), "host")
	c, err := NewClient(ledgerGame(), tc, ClientConfig[push]{Name: "crash", Clock: clk})
	if err != nil {
		fail(err)
	}
	hc, _ := l.Accept(context.Background())
	h.Accept(hc)
	sentOp := map[uint64]uint64{} // op → the count it makes
	c.OnReceipt(func(r Receipt) {
		if r.Status != ReceiptDone {
			fail(fmt.Errorf("receipt %+v", r))
		}
		fmt.Println(sentOp[r.Op])
	})
	next := count + 1
	for frame := 0; frame < 10_000_000; frame++ {
		clk.Advance(ecs.DefaultStep)
		h.Advance()
		c.Advance()
		if c.State() == session.Playing && frame%4 == 0 && c.PendingCommands() < 8 {
			op, err := Send(c, addCommand, uint32(next))
			if err != nil {
				fail(err)
			}
			sentOp[op] = next
			next++
		}
		if c.State() == session.Closed {
			fail(fmt.Errorf("the player was closed: %v", c.Err()))
		}
		time.Sleep(100 * time.Microsecond) // the disk's pace, not the CPU's
	}
	fail(fmt.Errorf("not killed"))
}

// TestHostCrash kills a host that runs commands at random moments with
// SIGKILL, and restores its save after each kill: every command whose receipt
// reached the player is in the restored world, the save checks (a restore
// refuses any that does not), and the world is whole: its first entities
// there, every command in it applied once and in order (the ledger's sum is
// 1 + 2 + … + count). It runs with bbolt and with PostgreSQL (the host's
// own connection to the server, cut by the kill mid-transaction).
func TestHostCrash(t *testing.T) { forEachStore(t, testHostCrash) }

func testHostCrash(t *testing.T, s saveStore) {
	path := s.target(t)
	var acked uint64
	lost := storetest.Crash(t, storetest.CrashTest{
		Name:   "host crash (commands, " + s.name + ")",
		Trials: storetest.CrashTrials(t, 50),
		Command: func(int) *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), hostCrashEnv+"="+path)
			return cmd
		},
		Check: func(trial int, last string) (int, error) {
			if last != "" {
				n, err := strconv.ParseUint(last, 10, 64)
				if err != nil {
					return 0, fmt.Errorf("child printed %q", last)
				}
				acked = max(acked, n)
			}
			clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
			h, err := NewHost(ledgerGame(), crashConfig(clk, path))
			if err != nil {
				return 0, fmt.Errorf("restore: %w", err)
			}
			defer h.Close()
			var l ledger
			var base int
			h.Do(func(w *World) {
				l = *ecs.Resource[ledger](w.ECS)
				for id := ecs.NetID(1); id <= 6; id++ {
					if _, ok := w.ECS.EntityOf(id); ok {
						base++
					}
				}
			})
			if base != 6 {
				return 0, fmt.Errorf("the restored world holds %d of its 6 first entities", base)
			}
			if l.Sum != l.Count*(l.Count+1)/2 {
				return 0, fmt.Errorf("the ledger counts %d commands summing to %d: not each once, in order", l.Count, l.Sum)
			}
			if l.Count < acked {
				return int(acked - l.Count), nil
			}
			return 0, nil
		},
		MaxSteps: 20,
		MaxDelay: 15 * time.Millisecond,
	})
	if lost != 0 {
		t.Fatalf("%d acknowledged commands lost", lost)
	}
	if acked == 0 {
		t.Fatal("no command was ever acknowledged: the test tests nothing")
	}
	t.Logf("%s: %d commands acknowledged over the trials, every one restored", s.name, acked)
}

package storetest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// CrashTrialsEnv is the environment variable that sets how many trials
// Crash runs (make crash-test raises it).
const CrashTrialsEnv = "TANDEM_CRASH_TRIALS"

// CrashTrials returns the number of crash trials to run: CrashTrialsEnv if
// set, else def.
func CrashTrials(t testing.TB, def int) int {
	if s := os.Getenv(CrashTrialsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number of trials", CrashTrialsEnv, s)
		}
		return n
	}
	return def
}

// CrashTest is a kill -9 trial run: a child process does durable steps and
// prints one line on its standard output after each step it may report as
// done (after Commit returned, after a receipt was sent); it is killed with
// SIGKILL at a random moment, and Check looks at what survived.
type CrashTest struct {
	// Name labels the summary line.
	Name string
	// Trials is how many times to start and kill the child.
	Trials int
	// Command returns the child of one trial. Its stdout is read by Crash;
	// leave it unset.
	Command func(trial int) *exec.Cmd
	// Check is called after each kill with the last line the child printed
	// ("" if none). It returns how many steps the child reported done that
	// are missing, and an error for anything else wrong (a corrupt record,
	// a state no step sequence makes).
	Check func(trial int, last string) (lost int, err error)
	// MaxSteps bounds the steps a child may report before it is killed
	// (default 12); after the chosen number, Crash waits a random delay of
	// up to MaxDelay (default 10 ms) so the kill lands anywhere in a step.
	MaxSteps int
	MaxDelay time.Duration
	// Seed makes the kill moments repeatable (0: a random seed, logged).
	Seed uint64
}

// RerunSelf returns a CrashTest.Command that starts this test binary again,
// running no test, with env set to value in its environment: the binary's
// TestMain (or an init) sees it and plays the child.
func RerunSelf(env, value string) func(trial int) *exec.Cmd {
	return func(int) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), env+"="+value)
		return cmd
	}
}

// Reported reads the last line of a child that prints a rising count after
// each step it reports done, and raises *acked to it ("" leaves it).
func Reported(last string, acked *uint64) error {
	if last == "" {
		return nil
	}
	n, err := strconv.ParseUint(last, 10, 64)
	if err != nil {
		return fmt.Errorf("child printed %q, not a count", last)
	}
	*acked = max(*acked, n)
	return nil
}

// Crash runs the trials and returns the total of lost steps. It logs, and
// prints on standard output for make crash-test, "NAME: trials=N lost=L".
// A trial whose child exits by itself, or whose Check errs, fails the test.
func Crash(t *testing.T, c CrashTest) (lost int) {
	t.Helper()
	if c.MaxSteps <= 0 {
		c.MaxSteps = 12
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = 10 * time.Millisecond
	}
	if c.Seed == 0 {
		c.Seed = rand.Uint64()
	}
	r := rand.New(rand.NewPCG(c.Seed, 1))
	done := 0
	for trial := range c.Trials {
		steps := r.IntN(c.MaxSteps + 1)
		delay := time.Duration(r.Int64N(int64(c.MaxDelay) + 1))
		last, err := crashOnce(c.Command(trial), steps, delay)
		if err != nil {
			t.Fatalf("%s trial %d (seed %d): %v", c.Name, trial, c.Seed, err)
		}
		n, err := c.Check(trial, last)
		lost += n
		done++
		if err != nil {
			t.Errorf("%s trial %d (seed %d, killed after %d steps and %v): %v", c.Name, trial, c.Seed, steps, delay, err)
			break
		}
		if n > 0 {
			t.Errorf("%s trial %d (seed %d, killed after %d steps and %v): %d steps reported done are missing", c.Name, trial, c.Seed, steps, delay, n)
		}
	}
	line := fmt.Sprintf("%s: trials=%d lost=%d", c.Name, done, lost)
	t.Logf("kill moments drawn from seed %d", c.Seed)
	fmt.Println(line)
	return lost
}

// crashOnce starts cmd, waits for steps lines and delay, kills it with
// SIGKILL and returns the last line it printed.
func crashOnce(cmd *exec.Cmd, steps int, delay time.Duration) (string, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	var mu sync.Mutex
	last, seen := "", 0
	tick := make(chan struct{}, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			mu.Lock()
			last, seen = sc.Text(), seen+1
			mu.Unlock()
			select {
			case tick <- struct{}{}:
			default:
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	exited := false
	for !exited {
		mu.Lock()
		enough := seen >= steps
		mu.Unlock()
		if enough {
			break
		}
		select {
		case <-tick:
		case <-readDone:
			exited = true
		}
	}
	if !exited {
		time.Sleep(delay) // a random moment inside the next step
	}
	_ = cmd.Process.Kill()
	<-readDone
	werr := cmd.Wait()
	if exited || !killed(werr) {
		return last, fmt.Errorf("the child exited by itself (%v) before it was killed:\n%s", werr, stderr.Bytes())
	}
	return last, nil
}

func killed(err error) bool {
	ee, ok := err.(*exec.ExitError)
	return ok && !ee.Exited()
}

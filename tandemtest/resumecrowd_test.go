package tandemtest_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/tandemtest"
)

// Every player of a host that restarts comes back at its first try, the
// crowd taken back AdmitPerStep a step (4, the default), as a crowd of
// joins is, so no step takes them all: at 16 resumes a second, the bound a
// host kept whatever its size, 48 players took 2.7 s to all come back, each
// refused one retrying until the bound let it in.
func TestACrowdResumesTogetherAfterARestart(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		const n = 40
		save := filepath.Join(t.TempDir(), "crowd.db")
		r := tandemtest.New(t, walkers, tandem.HostConfig{MaxPeers: n, SaveTo: save}, tandemtest.Config{Bubble: true})
		var cs []*tandem.Client[Walk]
		for i := range n {
			cs = append(cs, r.Join(fmt.Sprintf("p%02d", i), tandem.ClientConfig[Walk]{}))
		}
		r.Restart()
		back := make([]int, n) // the step each played again in, from the restart
		resumed := 0
		for step := 1; step <= 10*60; step++ {
			r.Step(1)
			if now := r.Host.Stats().Resumed; now-resumed > 4 {
				t.Fatalf("step %d took %d players back, past AdmitPerStep's 4", step, now-resumed)
			} else {
				resumed = now
			}
			waiting := 0
			for i, c := range cs {
				if back[i] == 0 && c.NetStats().Resumes == 1 && c.State() == tandem.Playing {
					back[i] = step
				}
				if back[i] == 0 {
					waiting++
				}
			}
			if waiting == 0 {
				break
			}
		}
		first, last := back[0], back[0]
		for i, s := range back {
			if s == 0 {
				t.Fatalf("%s never played again after the restart (%v, %v)", cs[i].Name(), cs[i].State(), cs[i].Err())
			}
			first, last = min(first, s), max(last, s)
		}
		if last-first > n/4+5 {
			t.Fatalf("the %d players played again from step %d to step %d after the restart (%v apart); want all within %d steps, 4 a step", n, first, last, time.Duration(last-first)*time.Second/60, n/4+5)
		}
	})
}

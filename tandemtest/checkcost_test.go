package tandemtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// loggedTB keeps what the rig logs to the test.
type loggedTB struct {
	testing.TB
	logs []string
}

func (l *loggedTB) Logf(format string, args ...any) {
	l.logs = append(l.logs, fmt.Sprintf(format, args...))
}

// A rig whose host world is large says once in the test's log what its
// report check costs and how to turn it off; a small world's, or one with
// the check off, says nothing. The host's Stats count the world's
// networked entities.
func TestALargeWorldsRigSaysWhatItsCheckCosts(t *testing.T) {
	for _, tc := range []struct {
		props     int
		unchecked bool
		told      bool
	}{{1200, false, true}, {1200, true, false}, {100, false, false}} {
		t.Run(fmt.Sprintf("props-%d/unchecked-%v", tc.props, tc.unchecked), func(t *testing.T) {
			tb := &loggedTB{TB: t}
			g := walkersWithProps(func(m *generic.Map2[ecs.Transform, ecs.NetworkIdentity]) {
				for i := range tc.props {
					m.NewWith(&ecs.Transform{X: float64(i % 100), Y: float64(i / 100)}, &ecs.NetworkIdentity{})
				}
			})
			r := tandemtest.New(tb, g, tandem.HostConfig{}, tandemtest.Config{Unchecked: tc.unchecked})
			r.Step(3)
			if got := r.Host.Stats().Entities; got != tc.props {
				t.Errorf("the host's Stats count %d networked entities, want %d", got, tc.props)
			}
			told := 0
			for _, l := range tb.logs {
				if strings.Contains(l, "Config.Unchecked") {
					told++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tc.told]; told != want {
				t.Fatalf("the log told of the check %d times, want %d: %q", told, want, tb.logs)
			}
		})
	}
}

// BenchmarkReportCheck measures a rig's Step (the host's and one
// client's) in a world of static props and one walker, with the report
// check on (the rig's default) and off (Config.Unchecked): what the check
// costs a step, which grows with the world.
func BenchmarkReportCheck(b *testing.B) {
	for _, props := range []int{1000, 20000} {
		for _, unchecked := range []bool{false, true} {
			b.Run(fmt.Sprintf("props-%d/unchecked-%v", props, unchecked), func(b *testing.B) {
				g := walkersWithProps(func(m *generic.Map2[ecs.Transform, ecs.NetworkIdentity]) {
					for i := range props {
						m.NewWith(&ecs.Transform{X: float64(i % 300), Y: float64(i / 300)}, &ecs.NetworkIdentity{})
					}
				})
				r := tandemtest.New(b, g, tandem.HostConfig{}, tandemtest.Config{Unchecked: unchecked})
				r.Join("ann", tandem.ClientConfig[Walk]{})
				r.Step(10)
				b.ResetTimer()
				for b.Loop() {
					r.Step(1)
				}
				b.StopTimer()
				if got := r.Host.Stats().Entities; got < props {
					b.Fatalf("the host holds %d networked entities, want %d props at least", got, props)
				}
			})
		}
	}
}

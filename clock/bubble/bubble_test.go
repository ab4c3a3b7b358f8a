package bubble

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestExpiredTimersFromWokenGoroutines: goroutines woken by the bubble's
// timers set timers that have already expired, many at once — the pattern
// that killed race-enabled test binaries run by synctest.Test alone (in
// about half the runs of this test). Through Test it runs to the end, and
// fake time is what the timers say.
func TestExpiredTimersFromWokenGoroutines(t *testing.T) {
	Test(t, func(t *testing.T) {
		start := time.Now()
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				for range 500 {
					done := make(chan struct{})
					time.AfterFunc(time.Millisecond, func() {
						<-time.NewTimer(0).C
						close(done)
					})
					<-done
				}
			})
		}
		wg.Wait()
		if got := time.Since(start); got != 500*time.Millisecond {
			t.Fatalf("fake time advanced %v, want 500ms (500 rounds of 1 ms)", got)
		}
	})
}

// TestPinsOnlyUnderTheRaceDetector: inside a bubble GOMAXPROCS is 1 with
// the race detector and untouched without it; after the bubble it is what
// it was.
func TestPinsOnlyUnderTheRaceDetector(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	var inside int
	Test(t, func(*testing.T) { inside = runtime.GOMAXPROCS(0) })
	want := before
	if raceEnabled {
		want = 1
	}
	if inside != want {
		t.Fatalf("GOMAXPROCS in the bubble is %d, want %d (race detector: %v)", inside, want, raceEnabled)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Fatalf("GOMAXPROCS after the bubble is %d, want %d as before", after, before)
	}
}

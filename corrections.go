package tandem

import (
	"math"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/predict"
)

// CorrectionSizes are the upper bounds, in world units, of the size classes
// CorrectionStats counts pose corrections in; the last class is open.
var CorrectionSizes = [...]float64{0.5, 2, 8}

// CorrectionStats describes the pose corrections a client's prediction made.
type CorrectionStats struct {
	// Count is every pose correction; BySize counts them by size: below
	// CorrectionSizes[0], below [1], below [2], and the rest.
	Count  uint64
	BySize [len(CorrectionSizes) + 1]uint64
	// Max and Mean are their largest and mean size, world units.
	Max, Mean float64
	// LastSecond counts the corrections of the last whole second, and
	// LastSecondMax is the largest of them.
	LastSecond    int
	LastSecondMax float64
}

// correctionLog is a client's predict.Smoother: it passes every pose
// correction on to the interpolator, which hides it, and keeps their sizes
// for the net graph.
type correctionLog struct {
	next  predict.Smoother
	clk   clock.Clock
	start time.Time // of the current second
	n     int
	max   float64
	sum   float64
	stats CorrectionStats
}

// SnapCorrection implements predict.Snapper: a jump, not counted as a
// correction.
func (l *correctionLog) SnapCorrection(e arche.Entity) {
	if s, ok := l.next.(predict.Snapper); ok {
		s.SnapCorrection(e)
	}
}

// AddCorrection implements predict.Smoother.
func (l *correctionLog) AddCorrection(e arche.Entity, dx, dy, dAngle float64) {
	l.next.AddCorrection(e, dx, dy, dAngle)
	l.roll()
	size := math.Hypot(dx, dy)
	s := &l.stats
	s.Count++
	k := 0
	for k < len(CorrectionSizes) && size >= CorrectionSizes[k] {
		k++
	}
	s.BySize[k]++
	s.Max = max(s.Max, size)
	l.sum += size
	l.n++
	l.max = max(l.max, size)
}

// roll closes the seconds that have passed.
func (l *correctionLog) roll() {
	now := l.clk.Now()
	if l.start.IsZero() {
		l.start = now
		return
	}
	d := now.Sub(l.start)
	if d < time.Second {
		return
	}
	if d < 2*time.Second {
		l.stats.LastSecond, l.stats.LastSecondMax = l.n, l.max
		l.start = l.start.Add(time.Second)
	} else {
		l.stats.LastSecond, l.stats.LastSecondMax = 0, 0
		l.start = now
	}
	l.n, l.max = 0, 0
}

// get returns the figures now.
func (l *correctionLog) get() CorrectionStats {
	l.roll()
	s := l.stats
	if s.Count > 0 {
		s.Mean = l.sum / float64(s.Count)
	}
	return s
}

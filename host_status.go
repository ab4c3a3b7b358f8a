package tandem

import "sync"

// hostStatus is what Stats, SaveStats, Restored and Withheld report: copied
// by the host, with the world locked, at the end of every Advance (however
// many steps it ran), Step, View, Do, the work Run does between steps, Save
// and Close (before Done is closed) and at NewHost (publishStatus), under a
// lock of its own, so that reading them never waits for the world and works
// from inside a callback, a hook or an observer.
type hostStatus struct {
	mu       sync.Mutex
	stats    HostStats
	saves    SaveStats
	restored RestoreReport
	withheld int
}

// publishStatus copies the host's figures into h.status. It runs with the
// world locked (or before anyone else has the host) and allocates nothing.
func (h *Host[I]) publishStatus() {
	st := h.statsNow()
	var sv SaveStats
	var rr RestoreReport
	if h.saves != nil {
		sv, rr = h.saves.stats, h.saves.restored
	}
	wh := h.withheldNow()
	s := &h.status
	s.mu.Lock()
	s.stats, s.saves, s.restored, s.withheld = st, sv, rr, wh
	s.mu.Unlock()
}

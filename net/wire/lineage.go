package wire

// RunStart names one run of a host's world, as a Lineage lists it.
type RunStart struct {
	Run   uint64 // the run's random name; not 0
	Fresh uint32 // the first network id the run gave; not 0
}

// MaxLineage is the most runs a Lineage lists.
const MaxLineage = 8

// A Lineage is the runs a host's world comes from, oldest first, the
// host's own run last: each run was restored from a save the one before it
// wrote (the first made anew, or restored from a save whose runs are not
// listed: one that named none, or older ones past MaxLineage). Welcome and Resumed
// carry it: a client that held the world of another run keeps the ids
// below the lower of the first fresh ids the two lineages give after the
// newest run both name, and drops the rest. A value, so decoding allocates
// nothing.
type Lineage struct {
	N    uint8                // runs listed: 1 to MaxLineage
	Runs [MaxLineage]RunStart // the runs, oldest first, in Runs[:N]
}

// Slice returns the listed runs (a slice of l.Runs; of MaxLineage at most,
// whatever N says).
func (l *Lineage) Slice() []RunStart { return l.Runs[:min(int(l.N), MaxLineage)] }

// Own returns the host's own run: the last listed (the zero RunStart if
// none is).
func (l *Lineage) Own() RunStart {
	if s := l.Slice(); len(s) > 0 {
		return s[len(s)-1]
	}
	return RunStart{}
}

// appendLineage writes l: its count u8, then each run's name u64 and first
// fresh id u32.
func appendLineage(w *Writer, l *Lineage) {
	w.U8(l.N)
	for _, run := range l.Slice() {
		w.U64(run.Run)
		w.U32(run.Fresh)
	}
}

// readLineage reads a Lineage into l and reports whether it is one: a
// count of 0 or past MaxLineage (whose runs are left unread: the message
// then fails as ErrTrailing if anything follows), a run named 0, a fresh
// id of 0 or fresh ids that go down are not.
func readLineage(r *Reader, l *Lineage) (valid bool) {
	n := r.U8()
	if r.Err() != nil {
		return false
	}
	if n == 0 || n > MaxLineage {
		return false
	}
	l.N = n
	valid = true
	for i := range int(n) {
		run := RunStart{Run: r.U64(), Fresh: r.U32()}
		if run.Run == 0 || run.Fresh == 0 || i > 0 && run.Fresh < l.Runs[i-1].Fresh {
			valid = false
		}
		l.Runs[i] = run
	}
	return valid
}

// LineageOf returns the Lineage of runs, oldest first: the newest
// MaxLineage of them.
func LineageOf(runs ...RunStart) Lineage {
	var l Lineage
	for _, run := range runs[max(0, len(runs)-MaxLineage):] {
		l.Runs[l.N] = run
		l.N++
	}
	return l
}

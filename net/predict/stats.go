package predict

// ClientStats counts a client's prediction and reconciliation, for a net
// graph. Totals since the client was created unless noted.
type ClientStats struct {
	// Frames counts frames recorded.
	Frames uint64
	// InputMessages counts input messages queued; Unaligned those sent
	// before the client's frame was in step with the host's (SetInput);
	// SendErrors those the connection refused.
	InputMessages, Unaligned, SendErrors uint64
	// RefusedInputs counts inputs given to SetInput that the codec's Read
	// refuses once its Append wrote them: each was taken, and sent, as the
	// zero input.
	RefusedInputs uint64
	// AuthStates counts AuthState entity states received; Stale those
	// older than the newest handled (ignored); Unmatched those with no
	// prediction to compare with (frame not recorded, entity not owned then).
	AuthStates, Stale, Unmatched uint64
	// Corrections counts components found differing from the host's beyond
	// their tolerance, by correction: PoseCorrections, VelocityCorrections,
	// ValueCorrections.
	Corrections                                            uint64
	PoseCorrections, VelocityCorrections, ValueCorrections uint64
	// DriftTrims counts the Pose corrections that also moved their
	// entity's velocity by the drift they found since the one before,
	// within the host's rounding of it (a velocity taken rounded from the
	// wire, coasting off the host's): none is a correction of its own.
	DriftTrims uint64
	// HostUpdates counts the values of HostOnly components the host
	// changed, taken as they came: none is a correction.
	HostUpdates uint64
	// MaxPose and MeanPose are the largest and mean pose correction, in world
	// units of distance moved.
	MaxPose, MeanPose float64
	// MaxVelocity and MeanVelocity are the largest and mean velocity
	// correction, in world units per second.
	MaxVelocity, MeanVelocity float64
	// PerSecond is the corrections counted in the last whole second.
	PerSecond float64
	// Replays counts replays run; ReplayedFrames the frames simulated again;
	// ReplayFallbacks the AuthStates corrected instead because a replay was
	// impossible (see ErrCannotReplay).
	Replays, ReplayedFrames, ReplayFallbacks uint64
	// Adopted counts the owned entities that arrived made at a past frame
	// (a respawn) and were replayed from it to the present (Adopt);
	// NotAdopted those Replay mode could not replay so (the frame no
	// longer recorded, or an owned entity not recorded since it), which
	// start where the host made them, a round trip behind.
	Adopted, NotAdopted uint64
	// Rebases counts Rebase calls; Taken the entity states taken as they
	// are after one.
	Rebases, Taken uint64
	// Reanchors counts the entities Reanchor put back where the host's
	// newest state had them.
	Reanchors uint64
	// Teleports counts pose corrections that were the host's teleports
	// (replicate.State.Teleport), drawn as jumps (Snapper): counted in
	// Corrections, not in PoseCorrections, MaxPose or MeanPose, which say
	// how far the prediction erred.
	Teleports uint64
	// HeldFrames counts frames held: the client's inputs unanswered for
	// longer than ClientConfig.HoldAfter past a round trip, the owned
	// entities given the zero input (Held); Holds the runs of them (each
	// silence).
	HeldFrames, Holds uint64
	// Holding reports that the newest frame was held.
	Holding bool
}

// Stats returns the counters.
func (c *Client[I]) Stats() ClientStats {
	st := c.stats
	st.Holding = c.holding
	if st.PoseCorrections > 0 {
		st.MeanPose = c.poseSum / float64(st.PoseCorrections)
	}
	if st.VelocityCorrections > 0 {
		st.MeanVelocity = c.velSum / float64(st.VelocityCorrections)
	}
	return st
}

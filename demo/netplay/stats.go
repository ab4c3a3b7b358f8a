package netplay

import (
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
)

// NetStats are the figures of a client's net graph.
type NetStats struct {
	// State is where the client is in its session.
	State session.ClientState
	// RTT is the smoothed round trip to the host; Loss the recent fraction
	// of datagrams lost (0..1).
	RTT  time.Duration
	Loss float64
	// KbitIn and KbitOut are the traffic of the last second, kbit/s.
	KbitIn, KbitOut float64
	// CorrectionsPerSec counts the prediction corrections of the last whole
	// second; Corrections all of them; MeanCorrection and MaxCorrection are
	// the sizes of pose corrections, world units.
	CorrectionsPerSec             float64
	Corrections                   uint64
	MeanCorrection, MaxCorrection float64
	// RenderDelay is how far in the past remote entities are drawn.
	RenderDelay time.Duration
	// Lead is how many frames the client runs ahead of the host, and
	// LeadTarget the lead it steers to.
	Lead, LeadTarget float64
	// Frame is the client's frame.
	Frame ecs.Frame
	// Received and Total are the join's progress, entities.
	Received, Total int
	// Entities is the number of networked entities held.
	Entities int
}

// NetStats returns the client's figures now.
func (c *Client) NetStats() NetStats {
	cs := c.session.Conn().Stats()
	ps := c.pred.Stats()
	sy := c.pred.Sync().Stats()
	rec, tot := c.session.Progress()
	return NetStats{
		State:             c.session.State(),
		RTT:               cs.RTT,
		Loss:              cs.LossRate,
		KbitIn:            cs.BytesInPerSec * 8 / 1000,
		KbitOut:           cs.BytesOutPerSec * 8 / 1000,
		CorrectionsPerSec: ps.PerSecond,
		Corrections:       ps.Corrections,
		MeanCorrection:    ps.MeanPose,
		MaxCorrection:     ps.MaxPose,
		RenderDelay:       c.ip.RenderDelay(),
		Lead:              sy.Lead,
		LeadTarget:        sy.Target,
		Frame:             c.g.World.Frame(),
		Received:          rec,
		Total:             tot,
		Entities:          c.g.World.Networked(),
	}
}

// PeerNetStats are the figures of one peer on the host's net graph.
type PeerNetStats struct {
	Peer ecs.PeerID
	// RTT is the smoothed round trip to the peer; Loss the recent fraction of
	// datagrams lost (0..1).
	RTT  time.Duration
	Loss float64
	// KbitIn and KbitOut are the traffic of the last second, kbit/s.
	KbitIn, KbitOut float64
	// Buffered is how many frames of the peer's input wait ahead of the
	// host's frame (negative: they arrive late); Late counts the inputs that
	// came after their frame.
	Buffered int
	Late     uint64
}

// AppendPeerStats appends the figures of every joined peer to dst, in peer
// order, and returns the extended slice.
func (h *Host) AppendPeerStats(dst []PeerNetStats) []PeerNetStats {
	start := len(dst)
	for peer := range h.players {
		cs, _, ok := h.session.PeerStats(peer)
		if !ok {
			continue
		}
		s := PeerNetStats{
			Peer:    peer,
			RTT:     cs.RTT,
			Loss:    cs.LossRate,
			KbitIn:  cs.BytesInPerSec * 8 / 1000,
			KbitOut: cs.BytesOutPerSec * 8 / 1000,
		}
		if in := h.inputs.Peer(peer); in != nil {
			s.Buffered = in.Buffered()
			s.Late = in.Stats().Late
		}
		dst = append(dst, s)
	}
	added := dst[start:]
	for i := 1; i < len(added); i++ { // a few peers: insertion sort
		for j := i; j > 0 && added[j].Peer < added[j-1].Peer; j-- {
			added[j], added[j-1] = added[j-1], added[j]
		}
	}
	return dst
}

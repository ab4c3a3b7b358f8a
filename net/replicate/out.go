package replicate

import (
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// Out carries one peer's messages from the host replicator: a session adapts
// its net/conn connection to it. An Out that also has a method
// FateAfter() time.Duration, how long its connection takes to learn a
// datagram's fate (net/conn's Conn.FateAfter), has each removal sent again
// at every send tick for as long (up to 16 copies; 4 without it).
type Out interface {
	// QueueDatagram queues an unreliable message to leave at the connection's next
	// flush. A non-zero token comes back exactly once, through the
	// replicator's Delivered or Lost, when the connection learns the fate of
	// the datagram that carried it. The payload is copied.
	QueueDatagram(kind wire.Kind, payload []byte, token uint32) error
	// SendLane sends msg reliably on lane; msg starts with its kind byte and is
	// copied.
	SendLane(lane transport.Lane, msg []byte) error
	// LaneBuffered returns the bytes queued on lane that the peer has not taken.
	LaneBuffered(lane transport.Lane) int
}

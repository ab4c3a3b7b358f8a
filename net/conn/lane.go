package conn

import (
	"errors"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// SendLane sends msg reliably and in order on lane. msg must start with a
// lane kind (ErrBadKind) and be at most Config.MaxLaneMessageSize bytes
// (ErrMessageTooLarge); it is copied. Past the lane's queue limit it returns
// transport.ErrLaneQueueFull and sends nothing: pace bulk sends with
// LaneBuffered. Lane messages do not count against Budget.
func (c *Conn) SendLane(lane transport.Lane, msg []byte) error {
	switch {
	case c.closed:
		return c.closedErr()
	case len(msg) > c.cfg.MaxLaneMessageSize:
		return ErrMessageTooLarge
	case len(msg) == 0 || !wire.Kind(msg[0]).IsLane():
		return ErrBadKind
	}
	err := c.tc.SendMessage(lane, msg)
	switch {
	case err == nil:
		now := c.now()
		c.counts.LaneMessagesSent++
		c.counts.BytesSent += uint64(len(msg))
		c.bytesOut.add(now, uint64(len(msg)))
		return nil
	case errors.Is(err, transport.ErrClosed):
		c.shutdown(transport.CloseNormal, "", nil)
		return c.closedErr()
	}
	return err
}

// LaneBuffered returns the bytes sent on lane that the peer has not yet
// taken (0 once closed).
func (c *Conn) LaneBuffered(lane transport.Lane) int {
	if c.closed {
		return 0
	}
	return c.tc.Buffered(lane)
}

// LaneUnsettled returns the bytes sent on lane that may not have reached
// the peer yet (0 once the connection closed, either end): LaneBuffered, and those the transport
// passed on without word of their arrival (transport.InFlighter). A close
// that must not lose what was sent waits for it to fall to 0.
func (c *Conn) LaneUnsettled(lane transport.Lane) int {
	if c.closed || c.tc.Err() != nil {
		return 0 // closed, if not yet pumped since: what is left is lost
	}
	n := c.tc.Buffered(lane)
	if f, ok := c.tc.(transport.InFlighter); ok {
		n += f.InFlight(lane)
	}
	return n
}

package conn

import (
	"net"

	"github.com/tandem-go/tandem/net/transport"
)

// fakeLink is a hand-driven transport.Conn for tests: what one end sends
// waits in the other end's inbox until the test delivers, drops or reorders
// it. It never allocates once its slices have grown.
type fakeLink struct {
	peer   *fakeLink
	inbox  [][]byte // datagrams waiting to be received, in order
	lanes  []fakeLaneMsg
	sent   int // datagrams sent
	err    error
	done   chan struct{}
	cur    []byte
	curMsg []byte
	// hold keeps datagrams this end sends in held instead of the peer's
	// inbox, for tests that reorder or drop them.
	hold bool
	held [][]byte
	// admitted counts Admit calls.
	admitted int
	// buffered and inFlight are what Buffered and InFlight report.
	buffered, inFlight int
}

type fakeLaneMsg struct {
	lane transport.Lane
	msg  []byte
}

func newFakePair() (a, b *fakeLink) {
	a = &fakeLink{done: make(chan struct{})}
	b = &fakeLink{done: make(chan struct{})}
	a.peer, b.peer = b, a
	return a, b
}

func (f *fakeLink) SendDatagram(p []byte) error {
	if len(p) > transport.MaxDatagramSize {
		return transport.ErrDatagramTooLarge
	}
	if f.err != nil {
		return transport.ErrClosed
	}
	f.sent++
	cp := append([]byte(nil), p...)
	if f.hold {
		f.held = append(f.held, cp)
	} else {
		f.peer.inbox = append(f.peer.inbox, cp)
	}
	return nil
}

// deliver moves held datagram i into the peer's inbox.
func (f *fakeLink) deliver(i int) { f.peer.inbox = append(f.peer.inbox, f.held[i]) }

func (f *fakeLink) RecvDatagram() ([]byte, bool) {
	if f.err != nil || len(f.inbox) == 0 {
		return nil, false
	}
	f.cur = f.inbox[0]
	f.inbox = f.inbox[1:]
	return f.cur, true
}

func (f *fakeLink) SendMessage(lane transport.Lane, msg []byte) error {
	if lane >= transport.NumLanes {
		return transport.ErrBadLane
	}
	if f.err != nil {
		return transport.ErrClosed
	}
	f.peer.lanes = append(f.peer.lanes, fakeLaneMsg{lane, append([]byte(nil), msg...)})
	return nil
}

func (f *fakeLink) RecvMessage() (transport.Lane, []byte, bool) {
	if f.err != nil || len(f.lanes) == 0 {
		return 0, nil, false
	}
	m := f.lanes[0]
	f.lanes = f.lanes[1:]
	f.curMsg = m.msg
	return m.lane, m.msg, true
}

func (f *fakeLink) Buffered(transport.Lane) int { return f.buffered }

func (f *fakeLink) InFlight(transport.Lane) int { return f.inFlight }

func (f *fakeLink) Close(code transport.CloseCode, reason string) error {
	if f.err != nil {
		return nil
	}
	f.err = &transport.CloseError{Code: code, Reason: reason}
	close(f.done)
	if f.peer.err == nil {
		f.peer.err = &transport.CloseError{Code: code, Reason: reason, Remote: true}
		close(f.peer.done)
	}
	return nil
}

func (f *fakeLink) Done() <-chan struct{}  { return f.done }
func (f *fakeLink) Err() error             { return f.err }
func (f *fakeLink) Stats() transport.Stats { return transport.Stats{} }
func (f *fakeLink) RemoteAddr() net.Addr   { return fakeAddr{} }
func (f *fakeLink) LocalAddr() net.Addr    { return fakeAddr{} }
func (f *fakeLink) Admit()                 { f.admitted++ }
func (fakeAddr) Network() string           { return "fake" }
func (fakeAddr) String() string            { return "fake" }

type fakeAddr struct{}

package quicnet

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/tandem-go/tandem/net/transport"
)

// Lane stream framing. Wire-affecting: PROTOCOL.md describes the same bytes.
//
// Each side opens one unidirectional QUIC stream per lane it sends on, the
// first time it sends on that lane, and keeps it open for the life of the
// connection. The stream carries:
//
//	stream  = lane *message
//	lane    = 1 byte, the transport.Lane number: 0x00 control, 0x01 commands,
//	          0x02 join; any other value closes the connection (CloseProtocol).
//	message = length payload
//	length  = the payload's size in bytes as an unsigned LEB128 varint
//	          (encoding/binary's Uvarint: 7 bits per byte, least significant
//	          group first, 0x80 set on every byte but the last), in its shortest
//	          form, at most 10 bytes. A length above the receiver's
//	          MaxMessageSize closes the connection (CloseLimit) before anything
//	          is allocated; a longer-than-shortest or overlong varint closes it
//	          (CloseProtocol).
//	payload = length bytes, the message.
//
// Example: lane 1 carrying the message "hi", then a 300-byte message:
//
//	01  02 68 69  ac 02 <300 bytes>
//
// A stream that ends (FIN) or is reset, or a second stream for the same lane,
// closes the connection (CloseProtocol).

// maxLengthBytes is the longest length prefix: a 64-bit LEB128 varint.
const maxLengthBytes = binary.MaxVarintLen64

// appendLength appends the length prefix of an n-byte message.
func appendLength(dst []byte, n int) []byte {
	return binary.AppendUvarint(dst, uint64(n))
}

// appendMessage appends msg framed as one lane message (length, payload).
func appendMessage(dst, msg []byte) []byte {
	return append(appendLength(dst, len(msg)), msg...)
}

// framedSize is the size of msg once framed.
func framedSize(n int) int {
	size := 1
	for v := uint64(n); v >= 0x80; v >>= 7 {
		size++
	}
	return size + n
}

// laneReader decodes one lane stream. The stream is untrusted: every error is
// typed (transport.ErrBadLane, transport.ErrMessageTooLarge,
// transport.ErrMalformed, io.EOF at a message boundary, io.ErrUnexpectedEOF
// inside one, or the stream's own error) and no length is trusted before it
// is checked against max.
type laneReader struct {
	r   *bufio.Reader
	max int
}

// laneReadBuffer is the read buffer of a lane stream: it holds a batch of
// small messages and their length prefixes; larger payloads are read
// straight into their message buffer.
const laneReadBuffer = 4 << 10

// newLaneReader reads r, refusing messages larger than max bytes.
func newLaneReader(r io.Reader, max int) *laneReader {
	return &laneReader{r: bufio.NewReaderSize(r, laneReadBuffer), max: max}
}

// readLane reads the stream's first byte, the lane number.
func (lr *laneReader) readLane() (transport.Lane, error) {
	b, err := lr.r.ReadByte()
	if err == io.EOF {
		return 0, fmt.Errorf("%w: a lane stream ended before its lane byte", transport.ErrMalformed)
	}
	if err != nil {
		return 0, err
	}
	if b >= transport.NumLanes {
		return 0, fmt.Errorf("%w: the peer opened lane %d; lanes go from 0 to %d", transport.ErrBadLane, b, transport.NumLanes-1)
	}
	return transport.Lane(b), nil
}

// readLength reads the next message's length prefix. It returns io.EOF when
// the stream ends cleanly before a message.
func (lr *laneReader) readLength() (int, error) {
	var x uint64
	for i := 0; i < maxLengthBytes; i++ {
		b, err := lr.r.ReadByte()
		if err != nil {
			if err == io.EOF && i > 0 {
				return 0, io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if i == maxLengthBytes-1 && b > 1 {
			return 0, fmt.Errorf("%w: a message length overflows 64 bits", transport.ErrMalformed)
		}
		x |= uint64(b&0x7f) << (7 * i)
		if x > uint64(lr.max) {
			// x only grows with later bytes: refuse now, before reading on.
			return 0, fmt.Errorf("%w: the peer announced a message of at least %d bytes; the limit is %d",
				transport.ErrMessageTooLarge, x, lr.max)
		}
		if b < 0x80 {
			if b == 0 && i > 0 {
				return 0, fmt.Errorf("%w: a message length is not in its shortest form", transport.ErrMalformed)
			}
			return int(x), nil
		}
	}
	return 0, fmt.Errorf("%w: a message length runs past %d bytes", transport.ErrMalformed, maxLengthBytes)
}

// readPayload fills msg with the payload whose length readLength returned.
func (lr *laneReader) readPayload(msg []byte) error {
	_, err := io.ReadFull(lr.r, msg)
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

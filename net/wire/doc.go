// Package wire is the byte layer of Tandem's network stack: how values,
// messages and packet headers are laid out on the wire.
//
// It sits at the bottom of the network pipeline, under net/transport and
// net/conn, and knows nothing of connections or entities. It provides:
//
//   - Writer and Reader: append-style encoding into a caller-owned []byte and
//     decoding from one, with unsigned and zig-zag varints, fixed-width
//     little-endian integers, floats by their bits and length-prefixed bytes.
//     A Reader never panics and never allocates: a malformed input sets a
//     sticky, typed error (ErrTruncated, ErrOverflow, ErrTooLarge, ...).
//   - BitWriter and BitReader for values of a few bits each.
//   - Quantizer and AngleQuantizer: a float at a chosen precision as an
//     integer of the fewest bits.
//   - Kind, the numbered message kinds, and Version, the protocol version.
//   - The encodings of the datagram packet header with its acknowledgement
//     frame, of the messages a datagram carries, and of the handshake
//     messages (Hello, Welcome, WelcomeAck, Reject) and the rule for player
//     names (CheckName).
//
// PROTOCOL.md beside this file documents every layout byte by byte; the
// golden tests tie that document to the code.
//
// Concurrency: values of this package are not safe for concurrent use; each
// goroutine encodes and decodes with its own Writer and Reader.
package wire

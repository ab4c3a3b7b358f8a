package wire

import "errors"

// Errors a Reader or a decoder reports. Compare with errors.Is. They describe
// input from a peer: a decoder that returns one has consumed nothing usable,
// and the caller drops the input and counts it as malformed.
var (
	// ErrTruncated: the input ended inside a value. The sender wrote a shorter
	// message than its layout needs; drop it.
	ErrTruncated = errors.New("wire: input truncated; the message is shorter than its layout, drop it")
	// ErrOverflow: a varint runs past 64 bits, or a value does not fit the
	// width it is read into; drop the message.
	ErrOverflow = errors.New("wire: value overflows its type; drop the message")
	// ErrNonCanonical: a varint is not in its shortest form. Encoders here
	// always write the shortest form, so the input did not come from them.
	ErrNonCanonical = errors.New("wire: varint not in shortest form; the input was not written by this encoder, drop it")
	// ErrTooLarge: a length or count exceeds the limit the reader was given;
	// drop the message (or raise the limit on both sides).
	ErrTooLarge = errors.New("wire: length exceeds its limit; drop the message or raise the limit on both sides")
	// ErrTrailing: bytes remain after a complete message; the layouts of the
	// two sides differ, check both speak the same Version.
	ErrTrailing = errors.New("wire: trailing bytes after the message; check both sides speak the same protocol version")
	// ErrInvalid: a field holds a value its layout does not allow (an unknown
	// kind, reserved flag bits set, a count out of range, text that is not
	// UTF-8); drop the message.
	ErrInvalid = errors.New("wire: field value not allowed by the layout; drop the message")
	// ErrWrongKind: a decoder was given a message of another kind; dispatch on
	// MessageKind first.
	ErrWrongKind = errors.New("wire: message is of another kind; dispatch on MessageKind before decoding")
)

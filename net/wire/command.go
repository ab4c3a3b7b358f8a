package wire

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// MaxCommandSize is the largest payload one Command carries, in bytes.
// Wire-affecting.
const MaxCommandSize = 1024

// Command is a player's request that the host change the world once, client
// → host on the commands lane: the game's command kind, its payload, and the
// operation id the client chose for it. The id names the operation for as
// long as the host keeps its receipt: a Command sent again with the same id
// (after a reconnect, say) is answered with the first Receipt and never run
// twice.
type Command struct {
	// Op is the operation id, not 0. A client gives its operations
	// increasing ids: the host keeps the receipts of a player's newest ids
	// and refuses an id older than those it keeps (ReceiptExpired).
	Op uint64
	// Frame is the host frame the client gave the command at: the frame
	// its prediction was simulating, or the next one between two (its
	// inputs for a frame are applied at that host frame). The host runs the
	// command at that frame's start, after the inputs the player gave
	// before it; one that comes later runs as it comes. 0: as it comes (a
	// client not in step with the host's frames, a copy sent again on a new
	// connection).
	Frame uint32
	// Kind is the game's command kind: its index in the game's list of
	// commands, the same on every machine.
	Kind uint8
	// Payload is the command's content, encoded by the game: at most
	// MaxCommandSize bytes. Decode aliases the message.
	Payload []byte
}

// Encode appends the Command as a lane message to dst and returns the
// extended slice. A zero Op gives ErrInvalid, a payload over MaxCommandSize
// ErrTooLarge; then nothing is appended.
func (m Command) Encode(dst []byte) ([]byte, error) {
	if m.Op == 0 {
		return dst, ErrInvalid
	}
	if len(m.Payload) > MaxCommandSize {
		return dst, ErrTooLarge
	}
	w := NewWriter(dst)
	w.U8(uint8(KindCommand))
	w.Uvarint(m.Op)
	w.Uvarint(uint64(m.Frame))
	w.U8(m.Kind)
	w.LenBytes(m.Payload)
	return w.Bytes(), nil
}

// Decode reads a Command lane message. The payload aliases msg; nothing is
// allocated. A zero Op, or a frame past 2³²−1, is ErrInvalid.
func (m *Command) Decode(msg []byte) error {
	r := NewReader(msg)
	if Kind(r.U8()) != KindCommand && r.Err() == nil {
		return ErrWrongKind
	}
	op := r.Uvarint()
	frame := r.Uvarint()
	kind := r.U8()
	payload := r.LenBytes(MaxCommandSize)
	if err := r.Finish(); err != nil {
		return err
	}
	if op == 0 || frame > math.MaxUint32 {
		return ErrInvalid
	}
	*m = Command{Op: op, Frame: uint32(frame), Kind: kind, Payload: payload}
	return nil
}

// ReceiptStatus says what became of a command. Wire-affecting.
type ReceiptStatus uint8

const (
	// ReceiptDone: the command ran at Receipt.Frame, and the world it changed
	// was saved before the receipt was sent.
	ReceiptDone ReceiptStatus = 1
	// ReceiptRefused: the game refused the command at Receipt.Frame (its
	// rules; Receipt.Reason says why). Nothing changed, and the refusal was
	// saved like a done command: a retry gets the same answer.
	ReceiptRefused ReceiptStatus = 2
	// ReceiptConflict: the operation id names an earlier command with
	// other content; this one did not run. The earlier one's receipt stands.
	ReceiptConflict ReceiptStatus = 3
	// ReceiptExpired: the operation id is older than every receipt the host
	// keeps for the player; the command did not run and will not. Give a new
	// operation a new, higher id.
	ReceiptExpired ReceiptStatus = 4
	// ReceiptUnknown is never sent: a client gives it to a command it sent
	// to a player the host let go before answering (its resume was
	// refused, and it joined afresh as a new player): the command may have
	// run or not, and is not sent again, for the new player would run it
	// once more.
	ReceiptUnknown ReceiptStatus = 5
)

// String names the status.
func (s ReceiptStatus) String() string {
	switch s {
	case ReceiptDone:
		return "done"
	case ReceiptRefused:
		return "refused"
	case ReceiptConflict:
		return "conflict"
	case ReceiptExpired:
		return "expired"
	case ReceiptUnknown:
		return "unknown"
	}
	return "receipt-status(" + strconv.Itoa(int(s)) + ")"
}

// Receipt is the host's answer to a Command, host → client on the commands
// lane. A Done or Refused receipt is sent only once the world it describes is
// durably saved, and every retry of the command gets the same bytes.
type Receipt struct {
	Op     uint64        // the Command's operation id, not 0
	Status ReceiptStatus // not 0
	// Frame is the host frame the command ran (or was refused) at; 0 for
	// Conflict and Expired, which ran nothing.
	Frame uint32
	// Reason says why a Refused command was refused, for a person to read
	// (UTF-8, at most MaxReasonLen bytes); empty for every other status.
	Reason string
}

// Encode appends the Receipt as a lane message to dst and returns the
// extended slice. A receipt whose fields break the rules on Receipt gives
// ErrInvalid (ErrTooLarge for a long reason) and appends nothing.
func (m Receipt) Encode(dst []byte) ([]byte, error) {
	if err := m.check(); err != nil {
		return dst, err
	}
	w := NewWriter(dst)
	w.U8(uint8(KindReceipt))
	w.Uvarint(m.Op)
	w.U8(uint8(m.Status))
	w.U32(m.Frame)
	w.String(m.Reason)
	return w.Bytes(), nil
}

// check reports whether the fields make a Receipt this version sends.
func (m Receipt) check() error {
	switch {
	case m.Op == 0 || m.Status < ReceiptDone || m.Status > ReceiptExpired:
		return ErrInvalid
	case m.Status != ReceiptRefused && m.Reason != "":
		return ErrInvalid
	case (m.Status == ReceiptConflict || m.Status == ReceiptExpired) && m.Frame != 0:
		return ErrInvalid
	case !utf8.ValidString(m.Reason):
		return ErrInvalid
	case len(m.Reason) > MaxReasonLen:
		return ErrTooLarge
	}
	return nil
}

// Decode reads a Receipt lane message. The reason is a new string; nothing
// else is allocated.
func (m *Receipt) Decode(msg []byte) error {
	r := NewReader(msg)
	if Kind(r.U8()) != KindReceipt && r.Err() == nil {
		return ErrWrongKind
	}
	var d Receipt
	d.Op = r.Uvarint()
	d.Status = ReceiptStatus(r.U8())
	d.Frame = r.U32()
	d.Reason = r.String(MaxReasonLen)
	if err := r.Finish(); err != nil {
		return err
	}
	if err := d.check(); err != nil {
		return err
	}
	*m = d
	return nil
}

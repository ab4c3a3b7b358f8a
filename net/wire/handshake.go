package wire

import (
	"errors"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Limits of the handshake messages, in bytes. Wire-affecting.
const (
	// MaxNameLen is the longest player name a Hello may carry, in bytes of UTF-8.
	MaxNameLen = 32
	// MaxReasonLen is the longest reason a Reject may carry, in bytes of UTF-8.
	MaxReasonLen = 256
	// TokenLen is the size of a session token.
	TokenLen = 16
)

// Hello is the first message of a connection, client → host on the control
// lane: the protocol version the client speaks, the player's name and how it
// takes part. Its first three bytes (kind, version) keep their layout in every
// version, so a host can always tell which version a client speaks.
type Hello struct {
	Version uint16 // the client's protocol Version
	Name    string // the player's name: UTF-8, at most MaxNameLen bytes
	// Spectator asks to watch: a spectator takes no player slot, owns
	// nothing, and the host refuses its inputs and commands.
	Spectator bool
	// Schema is the hash of what the client's game puts on the wire (its
	// components, commands and input); a host with a schema of its own
	// refuses another with RejectSchema. 0: the client states none.
	Schema uint64
}

// Hello flags. Wire-affecting.
const (
	// helloSpectator: the client asks to watch (Hello.Spectator).
	helloSpectator uint8 = 1 << 0
	// helloFlags are the flags this version knows; a Hello with another set
	// is ErrInvalid.
	helloFlags = helloSpectator
)

// Encode appends the Hello as a lane message to dst and returns the extended
// slice. A name that is not UTF-8 or longer than MaxNameLen gives ErrInvalid
// or ErrTooLarge and appends nothing.
func (m Hello) Encode(dst []byte) ([]byte, error) {
	if len(m.Name) > MaxNameLen {
		return dst, ErrTooLarge
	}
	if !utf8.ValidString(m.Name) {
		return dst, ErrInvalid
	}
	w := NewWriter(dst)
	w.U8(uint8(KindHello))
	w.U16(m.Version)
	w.String(m.Name)
	var flags uint8
	if m.Spectator {
		flags |= helloSpectator
	}
	w.U8(flags)
	w.U64(m.Schema)
	return w.Bytes(), nil
}

// Decode reads a Hello lane message. The name is a new string; nothing else is
// allocated. A Hello of another protocol version decodes to its Version alone,
// whatever follows, so that the host can answer it with RejectVersion.
func (m *Hello) Decode(msg []byte) error {
	r := NewReader(msg)
	if Kind(r.U8()) != KindHello && r.Err() == nil {
		return ErrWrongKind
	}
	v := r.U16()
	if r.Err() == nil && v != Version {
		*m = Hello{Version: v}
		return nil
	}
	name := r.String(MaxNameLen)
	flags := r.U8()
	schema := r.U64()
	if err := r.Finish(); err != nil {
		return err
	}
	if flags&^helloFlags != 0 {
		return ErrInvalid
	}
	*m = Hello{Version: v, Name: name, Spectator: flags&helloSpectator != 0, Schema: schema}
	return nil
}

// ErrBadName: a player name breaks the rule CheckName states. A host
// refuses such a Hello with RejectName; a client checks its own name before
// it says Hello.
var ErrBadName = errors.New("wire: player name refused")

// CheckName reports whether name may be a player's name: 1 to MaxNameLen
// bytes of valid UTF-8, every character printable (letters, marks, numbers,
// punctuation, symbols and the ASCII space: no control, format or other
// invisible characters, so a name cannot forge a log line or hide what it
// says), and no space at either end. The error wraps ErrBadName and says
// what is wrong, for the player to read.
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: the name is empty; give 1 to %d bytes", ErrBadName, MaxNameLen)
	case len(name) > MaxNameLen:
		return fmt.Errorf("%w: the name has %d bytes; at most %d are allowed", ErrBadName, len(name), MaxNameLen)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: the name is not valid UTF-8", ErrBadName)
	case name[0] == ' ' || name[len(name)-1] == ' ':
		return fmt.Errorf("%w: the name begins or ends with a space", ErrBadName)
	}
	for i, r := range name {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("%w: character %U at byte %d is not printable; use letters, digits, punctuation, symbols and spaces", ErrBadName, r, i)
		}
	}
	return nil
}

// Welcome answers a Hello, host → client on the control lane: the peer id
// and session token the host offers. The client takes them with a
// WelcomeAck; only then is it admitted (given a slot, a player, the world).
type Welcome struct {
	PeerID uint32 // the peer id the host gave this client; 0 is never given
	// Token is the session token that lets the client resume its peer after a
	// lost connection. Secret: never log it.
	Token    [TokenLen]byte
	TickRate uint16 // simulation steps per second on the host
	SendRate uint16 // state updates per second the host sends
	Frame    uint64 // the host's simulation frame when it sent the Welcome
	// GraceMillis is how long, in milliseconds, the host keeps the peer
	// after its connection breaks, for it to Resume; 0: the host does not
	// resume peers.
	GraceMillis uint32
	// Runs is the host's world's lineage: the runs it comes from and its
	// own, last, each named by a random number new each time a host starts
	// its world or restores it from a save, with the first network id it
	// gave (the ids below it are the save's the run was restored from). A
	// client that held the world of another run keeps what it held under
	// the ids below the lower of the first fresh ids the two lineages give
	// after the newest run both name, and drops the rest:
	// a host killed after its last save gave ids to entities the save does
	// not have, and a run restored from that save gives them again.
	Runs Lineage
}

// Encode appends the Welcome as a lane message to dst and returns the
// extended slice.
func (m Welcome) Encode(dst []byte) []byte {
	w := NewWriter(dst)
	w.U8(uint8(KindWelcome))
	w.U32(m.PeerID)
	w.Raw(m.Token[:])
	w.U16(m.TickRate)
	w.U16(m.SendRate)
	w.U64(m.Frame)
	w.U32(m.GraceMillis)
	appendLineage(&w, &m.Runs)
	return w.Bytes()
}

// Decode reads a Welcome lane message. A zero peer id, tick rate or send
// rate, or a lineage that is not one (no run, more than MaxLineage, a
// run named 0, a first fresh id of 0, fresh ids going down), is ErrInvalid
// (or ErrTrailing, for a count of runs out of range with runs after it).
func (m *Welcome) Decode(msg []byte) error {
	r := NewReader(msg)
	if Kind(r.U8()) != KindWelcome && r.Err() == nil {
		return ErrWrongKind
	}
	var d Welcome
	d.PeerID = r.U32()
	copy(d.Token[:], r.Raw(TokenLen))
	d.TickRate = r.U16()
	d.SendRate = r.U16()
	d.Frame = r.U64()
	d.GraceMillis = r.U32()
	runs := readLineage(&r, &d.Runs)
	if err := r.Finish(); err != nil {
		return err
	}
	if d.PeerID == 0 || d.TickRate == 0 || d.SendRate == 0 || !runs {
		return ErrInvalid
	}
	*m = d
	return nil
}

// WelcomeAck answers a Welcome, client → host on the control lane. It
// echoes the Welcome's peer id and token, so only a client that read the
// Welcome can send it; the host admits the peer when it arrives and drops a
// connection that has not sent it within its handshake deadline.
type WelcomeAck struct {
	PeerID uint32         // the Welcome's peer id
	Token  [TokenLen]byte // the Welcome's token
}

// Encode appends the WelcomeAck as a lane message to dst and returns the
// extended slice.
func (m WelcomeAck) Encode(dst []byte) []byte {
	w := NewWriter(dst)
	w.U8(uint8(KindWelcomeAck))
	w.U32(m.PeerID)
	w.Raw(m.Token[:])
	return w.Bytes()
}

// Decode reads a WelcomeAck lane message. A zero peer id is ErrInvalid.
func (m *WelcomeAck) Decode(msg []byte) error {
	r := NewReader(msg)
	if Kind(r.U8()) != KindWelcomeAck && r.Err() == nil {
		return ErrWrongKind
	}
	var d WelcomeAck
	d.PeerID = r.U32()
	copy(d.Token[:], r.Raw(TokenLen))
	if err := r.Finish(); err != nil {
		return err
	}
	if d.PeerID == 0 {
		return ErrInvalid
	}
	*m = d
	return nil
}

// RejectCode says why a host refused a peer. Wire-affecting.
type RejectCode uint8

const (
	// RejectVersion: the client speaks another protocol version; Reject.Version
	// says which the host speaks. Update the older side.
	RejectVersion RejectCode = 1
	// RejectFull: the host admits no more peers; try later or another host.
	RejectFull RejectCode = 2
	// RejectName: the player name was refused (see CheckName; a game may
	// refuse more, a name taken say).
	RejectName RejectCode = 3
	// RejectProtocol: the client's first message was not a valid Hello, or
	// its answer to the Welcome was not a matching WelcomeAck.
	RejectProtocol RejectCode = 4
	// RejectDenied: the game refused the peer; the reason says why.
	RejectDenied RejectCode = 5
	// RejectResume: the host has no session to resume under that peer id
	// and token: its grace window ran out, the token is wrong, or the peer's
	// join never finished. The client joins afresh, as a new peer.
	RejectResume RejectCode = 6
	// RejectSchema: the client runs another game than the host, or another
	// build of it: their schemas (Hello.Schema) differ. Run the host's.
	RejectSchema RejectCode = 7
)

// String returns the code's name.
func (c RejectCode) String() string {
	switch c {
	case RejectVersion:
		return "version mismatch"
	case RejectFull:
		return "host full"
	case RejectName:
		return "name refused"
	case RejectProtocol:
		return "protocol violation"
	case RejectDenied:
		return "denied"
	case RejectResume:
		return "no session to resume"
	case RejectSchema:
		return "another game"
	}
	return "reject code " + strconv.Itoa(int(c))
}

// Reject refuses a peer, host → client on the control lane. The client closes
// the connection when it has read it; the host closes it after a short
// linger if the client does not.
type Reject struct {
	Code    RejectCode // why; not 0
	Version uint16     // the protocol Version the host speaks
	Reason  string     // for a person to read: UTF-8, at most MaxReasonLen bytes
}

// Encode appends the Reject as a lane message to dst and returns the extended
// slice. A zero code, a reason that is not UTF-8 or longer than MaxReasonLen
// gives ErrInvalid or ErrTooLarge and appends nothing.
func (m Reject) Encode(dst []byte) ([]byte, error) {
	if m.Code == 0 || !utf8.ValidString(m.Reason) {
		return dst, ErrInvalid
	}
	if len(m.Reason) > MaxReasonLen {
		return dst, ErrTooLarge
	}
	w := NewWriter(dst)
	w.U8(uint8(KindReject))
	w.U8(uint8(m.Code))
	w.U16(m.Version)
	w.String(m.Reason)
	return w.Bytes(), nil
}

// Decode reads a Reject lane message. The reason is a new string; nothing else
// is allocated.
func (m *Reject) Decode(msg []byte) error {
	r := NewReader(msg)
	if Kind(r.U8()) != KindReject && r.Err() == nil {
		return ErrWrongKind
	}
	code := RejectCode(r.U8())
	v := r.U16()
	reason := r.String(MaxReasonLen)
	if err := r.Finish(); err != nil {
		return err
	}
	if code == 0 {
		return ErrInvalid
	}
	m.Code, m.Version, m.Reason = code, v, reason
	return nil
}

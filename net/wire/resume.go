package wire

// ResumeHoldsWorld is the flag of a Resume whose client holds the whole
// world: a join of its peer finished before the connection broke (the world
// may be stale, as while the join after a resume runs). A host resumes only
// such a client, or one with ResumeKeptTicket; one whose first join did not
// finish joins afresh. Wire-affecting.
const ResumeHoldsWorld uint8 = 1 << 0

// ResumeKeptTicket is the flag of a Resume whose client kept its peer's id
// and token past the client it joined with (a new process of the game, the
// player's ticket read back from where the last one saved it): it holds
// none of the world, or part of it when its join after such a resume
// broke. The host resumes it when the peer it names had finished a join,
// and joins it to the whole world. At most one of the two flags is set.
// Wire-affecting.
const ResumeKeptTicket uint8 = 1 << 1

// Resume opens a connection in place of Hello, client → host on the control
// lane, to take back a peer whose connection broke: the peer id and session
// token of its Welcome. The host answers Resumed, which binds the peer to
// this connection, or Reject (RejectResume when it has no such session: the
// client then joins afresh with Hello on a new connection). Its first three
// bytes (kind, version) are laid out as Hello's, so a host can always tell
// which version a client speaks.
type Resume struct {
	Version uint16 // the client's protocol Version
	Flags   uint8  // ResumeHoldsWorld or ResumeKeptTicket; other bits are zero
	PeerID  uint32 // the peer id the Welcome gave; not 0
	// Token is the Welcome's session token. Secret: never log it.
	Token [TokenLen]byte
	// Schema is the client's game's schema, as in Hello.
	Schema uint64
}

// Encode appends the Resume as a lane message to dst and returns the
// extended slice.
func (m Resume) Encode(dst []byte) []byte {
	w := NewWriter(dst)
	w.U8(uint8(KindResume))
	w.U16(m.Version)
	w.U8(m.Flags)
	w.U32(m.PeerID)
	w.Raw(m.Token[:])
	w.U64(m.Schema)
	return w.Bytes()
}

// Decode reads a Resume lane message. A zero peer id, an unknown flag or
// both flags are ErrInvalid. A Resume of another protocol version decodes to its Version
// alone, as a Hello does. Nothing is allocated.
func (m *Resume) Decode(msg []byte) error {
	r := NewReader(msg)
	if Kind(r.U8()) != KindResume && r.Err() == nil {
		return ErrWrongKind
	}
	var d Resume
	d.Version = r.U16()
	if r.Err() == nil && d.Version != Version {
		*m = Resume{Version: d.Version}
		return nil
	}
	d.Flags = r.U8()
	d.PeerID = r.U32()
	copy(d.Token[:], r.Raw(TokenLen))
	d.Schema = r.U64()
	if err := r.Finish(); err != nil {
		return err
	}
	if d.PeerID == 0 || d.Flags&^(ResumeHoldsWorld|ResumeKeptTicket) != 0 || d.Flags == ResumeHoldsWorld|ResumeKeptTicket {
		return ErrInvalid
	}
	*m = d
	return nil
}

// Resumed accepts a Resume, host → client on the control lane: the peer is
// bound to this connection (a connection the host still held for it is
// closed). A join of the world as the host holds it follows on the join lane
// (JoinPage … JoinFinal): the client applies it to the world it holds,
// keeping the entities the join brings and removing those it does not.
// Frame is the resume's frame: the host takes the peer's inputs for the
// frames after it only, so the client stamps none at or before it.
type Resumed struct {
	PeerID   uint32 // the resumed peer id: the Resume's; not 0
	TickRate uint16 // simulation steps per second on the host; not 0
	SendRate uint16 // state updates per second the host sends; not 0
	Frame    uint64 // the host's frame when it bound the peer: the resume's frame
	// GraceMillis is the host's grace window in milliseconds, as in Welcome.
	GraceMillis uint32
	// Token is the session token the client resumes with from now on: the
	// Resume's, or, answering a Resume with ResumeKeptTicket, a new one
	// (whoever else held the old token, a process the player left behind,
	// no longer takes the peer with it). Secret: never log it.
	Token [TokenLen]byte
	// Runs is the host's world's lineage, as in Welcome: a host restarted
	// from its save resumes its peers in another run.
	Runs Lineage
}

// Encode appends the Resumed as a lane message to dst and returns the
// extended slice.
func (m Resumed) Encode(dst []byte) []byte {
	w := NewWriter(dst)
	w.U8(uint8(KindResumed))
	w.U32(m.PeerID)
	w.U16(m.TickRate)
	w.U16(m.SendRate)
	w.U64(m.Frame)
	w.U32(m.GraceMillis)
	w.Raw(m.Token[:])
	appendLineage(&w, &m.Runs)
	return w.Bytes()
}

// Decode reads a Resumed lane message. A zero peer id, tick rate or send
// rate, or a lineage that is not one (no run, more than MaxLineage, a
// run named 0, a first fresh id of 0, fresh ids going down), is ErrInvalid
// (or ErrTrailing, for a count of runs out of range with runs after it). Nothing
// is allocated.
func (m *Resumed) Decode(msg []byte) error {
	r := NewReader(msg)
	if Kind(r.U8()) != KindResumed && r.Err() == nil {
		return ErrWrongKind
	}
	var d Resumed
	d.PeerID = r.U32()
	d.TickRate = r.U16()
	d.SendRate = r.U16()
	d.Frame = r.U64()
	d.GraceMillis = r.U32()
	copy(d.Token[:], r.Raw(TokenLen))
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

package wire

import "strconv"

// Version is the protocol version this code speaks. A Hello carries it; a
// host rejects a peer with another version. Wire-affecting: raise it whenever
// any layout in PROTOCOL.md changes.
const Version uint16 = 16

// Kind numbers a message. Datagram kinds travel inside datagrams (unreliable);
// lane kinds are the first byte of a lane message (reliable). Kinds with the
// high bit clear are datagram kinds, with it set lane kinds. Within each half,
// the lower 64 numbers belong to the engine and the upper 64 to the game
// (KindGameDatagram, KindGameLane and up).
//
// Wire-affecting: every number below is part of the protocol. Never reuse or
// renumber one; add new kinds at unused numbers and raise Version.
type Kind uint8

// Datagram kinds.
const (
	// KindState carries replication updates: entity state, spawns and
	// removals, host → client. Body defined by net/replicate.
	KindState Kind = 0x01
	// KindAuthState carries the authoritative state of a peer's own predicted
	// entities at the newest input frame the host applied, host → owner.
	// Body defined by net/replicate.
	KindAuthState Kind = 0x02
	// KindInput carries stamped player inputs, client → host, the last few
	// frames in each datagram. Body defined by net/predict.
	KindInput Kind = 0x03
	// KindSpawn is reserved for replication (entity creation sent apart from
	// state, should replication want it). It has no body yet: nothing sends
	// it, and a receiver treats it as a kind it does not handle.
	KindSpawn Kind = 0x04
	// KindDespawn is reserved for replication (entity removal sent apart from
	// state), like KindSpawn: no body yet, nothing sends it.
	KindDespawn Kind = 0x05
	// KindBacklog tells a client how many of its changed entities the host
	// held back for its state budget at a send tick, host → client, so a
	// client can say that the budget is full. Body defined by
	// net/replicate.
	KindBacklog Kind = 0x06

	// KindGameDatagram is the first datagram kind a game may define for its
	// own messages; game datagram kinds run to 0x7f.
	KindGameDatagram Kind = 0x40
)

// Lane kinds.
const (
	// KindHello opens a connection, client → host, on the control lane:
	// protocol version and player name. See Hello.
	KindHello Kind = 0x80
	// KindWelcome admits a peer, host → client, on the control lane. See
	// Welcome.
	KindWelcome Kind = 0x81
	// KindReject refuses a peer, host → client, on the control lane, before
	// the host closes the connection. See Reject.
	KindReject Kind = 0x82
	// KindJoinPage carries a page of whole entities on the join lane, host →
	// client. Body defined by net/replicate.
	KindJoinPage Kind = 0x83
	// KindJoinFinal ends a join on the join lane, host → client. Body defined
	// by net/replicate.
	KindJoinFinal Kind = 0x84
	// KindCommand carries a game command with its operation id, client →
	// host, on the commands lane. See Command.
	KindCommand Kind = 0x85
	// KindReceipt answers a command, host → client, on the commands lane. See
	// Receipt.
	KindReceipt Kind = 0x86
	// KindResume opens a connection that resumes a peer whose connection
	// broke, client → host, on the control lane: protocol version, peer id
	// and session token. See Resume.
	KindResume Kind = 0x87
	// KindWelcomeAck answers a Welcome, client → host, on the control lane:
	// the client proves it is there and takes its slot. See WelcomeAck.
	KindWelcomeAck Kind = 0x88
	// KindResumed accepts a Resume, host → client, on the control lane: the
	// peer is bound to this connection again. See Resumed.
	KindResumed Kind = 0x89

	// KindGameLane is the first lane kind a game may define for its own
	// messages; game lane kinds run to 0xff.
	KindGameLane Kind = 0xc0
)

// IsDatagram reports whether k may travel in a datagram: 0x01 to 0x7f.
func (k Kind) IsDatagram() bool { return k != 0 && k < 0x80 }

// IsLane reports whether k may open a lane message: 0x80 to 0xff.
func (k Kind) IsLane() bool { return k >= 0x80 }

// IsGame reports whether k is in a range left to the game.
func (k Kind) IsGame() bool { return k&0x40 != 0 }

var kindNames = [...]string{
	KindState:      "state",
	KindAuthState:  "auth-state",
	KindInput:      "input",
	KindSpawn:      "spawn",
	KindDespawn:    "despawn",
	KindBacklog:    "backlog",
	KindHello:      "hello",
	KindWelcome:    "welcome",
	KindReject:     "reject",
	KindJoinPage:   "join-page",
	KindJoinFinal:  "join-final",
	KindCommand:    "command",
	KindReceipt:    "receipt",
	KindResume:     "resume",
	KindWelcomeAck: "welcome-ack",
	KindResumed:    "resumed",
}

// String returns the kind's name, or "game-datagram(n)", "game-lane(n)",
// "kind(n)".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	switch {
	case k.IsGame() && k.IsDatagram():
		return "game-datagram(" + strconv.Itoa(int(k)) + ")"
	case k.IsGame() && k.IsLane():
		return "game-lane(" + strconv.Itoa(int(k)) + ")"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// MessageKind returns the kind of a lane message: its first byte. An empty
// message gives ErrTruncated, one whose first byte is not a lane kind
// ErrInvalid.
func MessageKind(msg []byte) (Kind, error) {
	if len(msg) == 0 {
		return 0, ErrTruncated
	}
	k := Kind(msg[0])
	if !k.IsLane() {
		return k, ErrInvalid
	}
	return k, nil
}

package tandem

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/wire"
)

// Command is a kind of command the game's players send the host: a request
// that the host change the world once (switch team, place something, spend
// something) and say so with a Receipt. Make it with NewCommand and list it in
// Game.Commands.
type Command interface{ def() *commandDef }

// commandDef is a command kind without its payload's type.
type commandDef struct {
	name string
	typ  string // the payload's Go type, for the schema
	// run decodes payload and runs the game's handler; malformed says the
	// payload did not decode (nothing ran).
	run func(w *World, p Peer, payload []byte) (err error, malformed bool)
}

// CommandKind is a command kind whose payload is a T. Send sends one; the
// host runs the kind's handler once per operation.
type CommandKind[T any] struct {
	d     commandDef
	codec CommandCodec[T]
}

func (k *CommandKind[T]) def() *commandDef { return &k.d }

// Name returns the kind's name.
func (k *CommandKind[T]) Name() string { return k.d.name }

// CommandCodec says how a command's payload travels: at most
// wire.MaxCommandSize bytes. Read must refuse (r.Fail) what a client has no
// business sending; it runs on the host for every command received, and on
// the sender for every command given (Send, SendOwn, Give, RunAlone), which
// refuses what Read would: a mistake is an error where it is made, not a
// command the host drops. So Read depends on its bytes alone (no game
// state, no host-only table): it may run on any goroutine, more than once.
// The zero
// value sends nothing: for a command whose kind says it all (its T is then
// struct{} as a rule).
type CommandCodec[T any] struct {
	Append func(dst []byte, v *T) []byte
	Read   func(r *wire.Reader, v *T)
}

// NewCommand makes the command kind called name (for logs and receipts),
// whose payload codec carries, and whose handler run the host calls on its
// simulation goroutine, at the start of a frame, once for each new operation
// of a player p: it changes the world (reporting its writes, as every system
// does) and returns nil, or returns an error under the game's rules (Refuse
// says why; the player is told). Either answer is the operation's for good:
// it is saved with the world the command changed, and the receipt goes to the
// player once that save is durable. A command is not predicted: what it
// changes of a client's own predicted entities (a boost) reaches that
// client as a correction, some round trip after it gave it (a teleport
// reported with ecs.ReportTeleport, as a jump); a game
// that wants it felt at once does the same in a system from the player's
// Input, and keeps the command for what must be decided by the host.
func NewCommand[T any](name string, codec CommandCodec[T], run func(w *World, p Peer, cmd T) error) *CommandKind[T] {
	if run == nil {
		panic(fmt.Sprintf("tandem: NewCommand %q without a handler", name))
	}
	if (codec.Append == nil) != (codec.Read == nil) {
		panic(fmt.Sprintf("tandem: NewCommand %q: give the codec both Append and Read, or neither", name))
	}
	k := &CommandKind[T]{codec: codec}
	k.d = commandDef{name: name, typ: reflect.TypeFor[T]().String(), run: func(w *World, p Peer, payload []byte) (error, bool) {
		var v T
		r := wire.NewReader(payload)
		if codec.Read != nil {
			codec.Read(&r, &v)
		}
		if err := r.Finish(); err != nil {
			return fmt.Errorf("the host's %s codec refuses this command (%v): this client may run another build of the game than the host", strconv.Quote(name), err), true
		}
		return run(w, p, v), false
	}}
	return k
}

// encode returns cmd's payload, once the codec's Read takes it back as the
// host's will: a command the host would count malformed (and refuse, with
// what its Read said) is refused here, with what Read said, and nothing is
// sent.
func (k *CommandKind[T]) encode(cmd *T) ([]byte, error) {
	if k.codec.Append == nil {
		return nil, nil
	}
	p := k.codec.Append(nil, cmd)
	var v T
	r := wire.NewReader(p)
	k.codec.Read(&r, &v)
	if err := r.Finish(); err != nil {
		return nil, &unreadCommand{name: k.d.name, err: err}
	}
	return p, nil
}

// unreadCommand is the error of a command whose codec's Read refuses what
// its Append wrote: the game's own refusal (Reader.Fail), or the wire's,
// said in the codec's terms rather than a peer's message's: a refusal of
// the game's own error is of the value, and so are ErrInvalid (which a
// game's rule may give too) and ErrTooLarge (a count past the limit Read
// gives: a list too long, or a Read that takes a count where Append wrote
// none: both said); the wire's other errors are of a Read and an Append
// that disagree.
type unreadCommand struct {
	name string
	err  error
}

func (e *unreadCommand) Error() string {
	why := ""
	switch {
	case errors.Is(e.err, wire.ErrInvalid): // the layout's, or a rule of the game's
		return fmt.Sprintf("tandem: command %q: its codec's Read refuses the value (one its layout or the game's rules do not allow), as the host would; it was not given: give a value the game takes, or make the CommandCodec's Read take what its Append writes", e.name)
	case errors.Is(e.err, wire.ErrTruncated):
		why = "it read more bytes than Append wrote"
	case errors.Is(e.err, wire.ErrTrailing):
		why = "it left bytes Append wrote unread"
	case errors.Is(e.err, wire.ErrOverflow):
		why = "it read a value too wide for where it puts it"
	case errors.Is(e.err, wire.ErrTooLarge): // a list longer than its Read allows: the value
		return fmt.Sprintf("tandem: command %q: its codec's Read refuses the value: a count or length past the limit its Read gives (Reader.Count's, LenBytes' or String's: a list or string too long), as the host would; it was not given: give a shorter one or raise that limit, or, if Append writes no count there, fix the CommandCodec (its Read and Append disagree)", e.name)
	case errors.Is(e.err, wire.ErrNonCanonical):
		why = "it read a varint Append did not write in its shortest form"
	default: // the game's own refusal (Reader.Fail): the value, not the codec
		return fmt.Sprintf("tandem: command %q: its codec's Read refuses the value (%v), as the host would; it was not given: give a value the game takes", e.name, e.err)
	}
	return fmt.Sprintf("tandem: command %q: its codec's Read refuses what Append wrote (%s), as the host would; it was not given: fix the CommandCodec (its Read and Append disagree)", e.name, why)
}

func (e *unreadCommand) Unwrap() error { return e.err }

// ReceiptStatus says what became of a command: ReceiptDone, ReceiptRefused,
// ReceiptConflict or ReceiptExpired from the host, ReceiptUnknown (and
// ReceiptExpired, for a command never sent) from the client.
type ReceiptStatus = wire.ReceiptStatus

// The statuses of a receipt.
const (
	// ReceiptDone: the command ran, and the world it changed is saved.
	ReceiptDone = wire.ReceiptDone
	// ReceiptRefused: the game refused it (Receipt.Reason); nothing changed.
	ReceiptRefused = wire.ReceiptRefused
	// ReceiptConflict: its operation id was used by another command; it did
	// not run.
	ReceiptConflict = wire.ReceiptConflict
	// ReceiptExpired: its operation id is older than every receipt the host
	// keeps; it did not run and will not. The client answers it too, to a
	// command it never sent when the session ended, or when the host let
	// the player it was given for go and the client joined afresh as a new
	// one (Reason says which: give it again for the new player if meant).
	ReceiptExpired = wire.ReceiptExpired
	// ReceiptUnknown: the client's own answer, for a command it had sent
	// when the host let its player go unanswered (a resume refused: the
	// grace window passed, or the connection broke before the join
	// finished, or the host restarted then) and the client joined afresh
	// as a new player, or when the session ended before the host answered
	// (the host shut down before the save that held the command landed,
	// its world was taken by another host, the link broke for good; not
	// after the client's own Close). The command may have run or not (look
	// at the world: the state it would have changed); it is not sent again,
	// for a new player would run it a second time. Reason says which.
	ReceiptUnknown = wire.ReceiptUnknown
)

// Receipt is the host's answer to a command, as the client that sent it
// hears it: once per operation, however often the command was sent.
//
// A receipt and the state that shows what the command did travel apart (the
// receipt on a reliable lane, the state in datagrams), so either may come
// first: a client waits for the change itself (the entity the command
// spawned, the value it set). What it changed of entities the client does
// not own comes in a state of the receipt's Frame or later, so not before
// NetStats.HostFrame reaches that frame, and often after (a small change
// waits its turn, longer far from what the client owns: see HostFrame);
// of the client's own, as their corrections. A
// command's result is not predicted: an entity it spawns appears on the
// client a round trip after Send (a game that wants it sooner draws a local
// stand-in at Send and drops it when the host's entity arrives).
type Receipt struct {
	Op      uint64        // the operation id Send returned
	Command string        // the command kind's name
	Status  ReceiptStatus // done, refused, conflict, expired or unknown
	Frame   ecs.Frame     // the host frame it ran (or was refused) at
	Reason  string        // why it was refused, or, of the client's own answers, why it gave one
}

// String describes the receipt for a log: "switch-team #1796228363367635:
// done" (a client's operation ids count up from its clock in microseconds
// when it was made: ClientConfig.FirstOp; those of the host's own player,
// SendOwn and Give, count up from 1, past any its save holds, and a game
// alone's from 1 each run). A HUD shows Command, Status and Reason.
func (r Receipt) String() string {
	s := fmt.Sprintf("%s #%d: %v", r.Command, r.Op, r.Status)
	if r.Reason != "" {
		s += " (" + r.Reason + ")"
	}
	return s
}

// ErrSpectator is what Send returns on a client that joined to watch.
var ErrSpectator = errors.New("tandem: a spectator sends no commands; join as a player")

// ErrTooManyCommands is what Send returns while the client holds its limit
// of commands without a receipt, 64 (command.DefaultPending): the host's
// store is slow, the link down, or the player sends faster than the host's
// CommandRate runs them. It is also returned, with fewer held, while the
// oldest held is 64 operations behind the next (its receipt lost or late:
// a Send it refuses has it sent again within 2 s). Either way, wait for
// receipts to come back (Client.PendingCommands says how many are held).
var ErrTooManyCommands = command.ErrTooMany

// ErrCommandTooLarge is Send's error for a command whose payload is over
// wire.MaxCommandSize bytes, the protocol's bound on one command (no
// setting raises it): split it into several commands.
var ErrCommandTooLarge = command.ErrTooLarge

// Send sends a command of kind k with payload cmd to c's host, and returns
// the operation id its Receipt will carry (Client.OnReceipt). The client
// keeps the command until its receipt comes, and sends it again, under the
// same id, if the connection is replaced; the host runs it once. It runs
// at the host frame the client is at when Send is called (a client's
// frames are its host's: its input for a frame is applied at that host
// frame): called during a step (from a system), that step's frame;
// between steps, the next one. The host runs it at that frame's start,
// after the frame's inputs and before the game's systems: in the world a
// system of the client saw before the systems that move things, after the
// inputs the player gave before it. One that comes after its frame began
// runs as it comes, and so do one sent before the client's frame is in
// step with the host's (the first frames of a join or of a resume) and
// one sent again on a new connection. The host
// runs a player's commands in the order sent, those past its
// HostConfig.CommandRate or MaxWithheld waiting their turn, a second's
// worth of them; but one it dropped past those (a flood), or lost with a
// connection, or sent again to a restarted host, runs when it comes again,
// after newer ones: send a command that needs another's effect (remove
// what a place builds) once that one's receipt came. If the host
// let the player go before answering (a resume it refused) and the client
// joins afresh as a new player, a command already sent is not sent again
// (the new player would run it once more): the client answers it
// ReceiptUnknown itself, and one given while the link was down, never sent,
// ReceiptExpired (it was the player let go's; give it again if it is meant
// for the new one). A command
// sent before the host admitted the client goes when it does (a client
// whose kept ticket is refused at its start, which never played, sends
// what it holds as the player it becomes). A host that
// saves sends the receipt once the save holding the command is durable:
// saves run at the disk's pace on a goroutine of their own, so a test whose
// fake clock runs ahead of the disk sees receipts late (Host.Save saves now
// and waits). It fails for
// a kind not in the Game's Commands, on a spectator (ErrSpectator), once
// the session ended (ErrClosed), at the
// limit of commands without a receipt, or 64 operations past the oldest of
// them (ErrTooManyCommands), for a payload
// over wire.MaxCommandSize (ErrCommandTooLarge), and for one the kind's own codec's Read refuses
// (r.Fail, a short read, bytes left over): the host would count it
// malformed against the client's connection, so nothing is sent. Safe from any goroutine, inside
// callbacks, hooks and observers too: a command sent while the world is
// locked (from an observer, a View or Do callback, a system) leaves as the
// world is let go at the end of that step or call, at the latest with the
// next step.
func Send[I comparable, T any](c *Client[I], k *CommandKind[T], cmd T) (uint64, error) {
	p, err := k.encode(&cmd)
	if err != nil {
		return 0, err
	}
	return c.give(k, p)
}

// give is Send's work, and Give's on a Client.
func (c *Client[I]) give(k Command, payload []byte) (uint64, error) {
	kind, err := commandIndex(c.g.Commands, k)
	if err != nil {
		return 0, err
	}
	return c.sendCommand(uint8(kind), payload)
}

// commandIndex returns kind k's index in a Game's Commands: its number on
// the wire and in the save.
func commandIndex(cmds []Command, k Command) (int, error) {
	for i, ck := range cmds {
		if ck == k {
			return i, nil
		}
	}
	return -1, fmt.Errorf("tandem: command %q is not in the Game's Commands; list it there", k.def().name)
}

// RunAlone runs a command of kind k with payload cmd for the player of a
// game played alone (NewLocal), at once, with the kind's handler (Peer{ID:
// ecs.HostPeer}), and returns the handler's answer: nil, or why the game's
// rules refuse it. There is nobody to answer and nothing to save. (Give does
// the same on any Session, with a Receipt.) A host's own player gives its
// commands with SendOwn (or Give on the Host) instead, which saves them: on
// a Host's Local, RunAlone fails and runs nothing. It fails for a kind not
// in the Game's Commands, for a command its kind's codec does not read back
// (as Send), and with ErrClosed after the Local's Close. Safe
// from any goroutine, except from inside a View or Do callback, a system, a
// hook or an observer (there it returns ErrWorldHeld after two seconds and
// runs nothing).
func RunAlone[I comparable, T any](l *Local[I], k *CommandKind[T], cmd T) error {
	p, err := k.encode(&cmd)
	if err != nil {
		return err
	}
	_, refusal, err := l.runAlone(k, p, false)
	if err != nil {
		return err
	}
	return refusal
}

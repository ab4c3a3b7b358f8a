package predict

import (
	"fmt"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// LateInput says what the host does with an input that arrives after its
// frame was simulated.
type LateInput uint8

const (
	// Apply (the default) makes a late input the peer's input at once: the
	// next frame without an exact input uses it instead of repeating the last
	// one. Nothing is simulated again.
	Apply LateInput = iota
	// Rollback reports late inputs to HostInputConfig.OnLate, once per
	// message with the oldest, so a game that can rewind simulates again from
	// that frame. The newest late input also becomes the one repeated while
	// the peer's next inputs are missing (MaxRepeat frames after its stamp
	// at most).
	Rollback
)

// HostInputConfig tunes HostInputs. Zero fields take the defaults noted.
type HostInputConfig[I any] struct {
	// LateInput says what a late input does. Default Apply.
	LateInput LateInput
	// OnLate, with LateInput Rollback, is called once for each message that
	// carried inputs arriving after their frames were simulated, after the
	// whole message is stored, with f the oldest of those frames and in its
	// input; in is valid only during the call. The game rewinds to f and
	// simulates again: each frame after f up to the present uses the peer's
	// input for it where one is held (PeerInputs.InputAt), else the last one
	// before it, up to MaxRepeat frames after that one's frame, then the
	// zero input (as the frames played forward did). MaxRollback bounds what
	// one peer makes it simulate again.
	OnLate func(peer ecs.PeerID, f ecs.Frame, in *I)
	// MaxRollback, with LateInput Rollback, bounds the frames one peer's
	// late inputs make the game simulate again: an input more than this
	// many frames late is not reported to OnLate, nor a message whose rewind
	// would take the frames the peer's rewinds asked of the same host frame
	// past it (a client sending many late messages at once); such inputs
	// are kept (InputAt) and counted (InputStats.Unrewound: each input too
	// late, each message past the budget). Without it a
	// peer sending each frame's input as late as the host keeps would make
	// it simulate some 130 frames again per frame for a few bytes. Default
	// 30 (half a second at 60 Hz).
	MaxRollback int
	// Replicator, if set, is told after each frame which frame's input was
	// applied for each peer (replicate.HostPeer.SetInputFrame), so AuthState
	// carries the state of that frame.
	Replicator *replicate.HostReplicator
	// Window is how many frames of inputs each peer's buffer holds. Default
	// 256.
	Window int
	// MaxAhead is how far ahead of the host's frame, in frames, an input may
	// be stamped; later ones are dropped (ErrAhead). Default 120 (2 s at
	// 60 Hz). Inputs older than the host's frame by more than
	// Window-MaxAhead-2 frames are dropped as stale. MaxAhead must be below
	// Window/2.
	MaxAhead int
	// MaxRepeat is for how many frames after its stamp the peer's last
	// input is repeated while its next inputs are missing (late on the way,
	// or lost with their redundant copies); past it the peer's input is the
	// zero input, with Live false, until its inputs come again (counted in
	// InputStats.Released). A late input is applied once however old, then
	// counts from its own stamp. A client that stalls or vanishes without
	// closing its connection then stands still a moment after, rather than
	// running on its last input until the host declares its connection
	// broken (the transport's idle timeout: seconds). Default
	// DefaultMaxRepeat (a quarter of a second at 60 Hz); negative: repeat
	// without end.
	MaxRepeat int
	// MaxMessagesPerFrame is how many input messages of one peer are taken
	// per host frame; further ones are dropped and counted
	// (InputStats.Excess, ErrTooMany). A client sends one per frame, a few
	// more after a stall or while it runs fast. Default 16.
	MaxMessagesPerFrame int
	// MaxRewind bounds how far behind the frame of its input a peer's view
	// goes (PeerInputs.View), in frames: a lag-compensated hit test never
	// looks further back, whatever a client says it drew. A view further
	// behind is taken at the bound and counted (InputStats.FarViews).
	// Default DefaultMaxRewind; at most RewindLimit; negative: none, every
	// view is the frame itself.
	MaxRewind int
}

// RewindLimit is the furthest behind its input's frame a view goes, in
// frames: what an Input message's behind says at most (HostInputConfig's
// MaxRewind is held to it).
const RewindLimit = 256

// ownView marks a behind an input message gave its newest input (behinds),
// to a 256th of a frame, which later messages carrying the input do not
// replace.
const ownView = 1 << 31

// DefaultMaxRewind is HostInputConfig.MaxRewind's default: 60 frames, a
// second at 60 Hz. A client draws what it does not predict its round trip,
// its lead (its input buffer, which jitter and loss lengthen) and its render
// delay behind its frame: 26 frames at 100 ms each way with tandem's
// defaults, 33 at 120 ms with 20 ms of jitter and 10% loss.
const DefaultMaxRewind = 60

func (c *HostInputConfig[I]) defaults() {
	if c.Window <= 0 {
		c.Window = 256
	}
	if c.MaxAhead <= 0 {
		c.MaxAhead = min(120, c.Window/2-1)
	}
	if c.MaxMessagesPerFrame <= 0 {
		c.MaxMessagesPerFrame = 16
	}
	if c.MaxRollback <= 0 {
		c.MaxRollback = 30
	}
	if c.MaxRepeat == 0 {
		c.MaxRepeat = DefaultMaxRepeat
	}
	switch {
	case c.MaxRewind == 0:
		c.MaxRewind = DefaultMaxRewind
	case c.MaxRewind < 0:
		c.MaxRewind = 0
	}
	c.MaxRewind = min(c.MaxRewind, RewindLimit)
	if c.MaxAhead >= c.Window/2 {
		panic(fmt.Sprintf("predict: HostInputConfig.MaxAhead %d must be below half the Window %d", c.MaxAhead, c.Window))
	}
}

// InputStats counts one peer's inputs on the host. Totals since the peer's
// first input message.
type InputStats struct {
	// Messages counts input messages accepted; Malformed those refused;
	// Excess those dropped past HostInputConfig.MaxMessagesPerFrame.
	Messages, Malformed, Excess uint64
	// Received counts distinct inputs stored (each frame's first copy, on
	// time or late); Duplicates the further copies (redundancy at work).
	// A further copy for a frame not yet applied replaces the input held:
	// the newest message received wins (the client re-stamps its inputs
	// after a time-synchronization jump).
	Received, Duplicates uint64
	// Exact counts frames applied with their own input; Repeated frames
	// applied with the last input because theirs had not arrived;
	// LateApplied frames given a late input at once (LateInput Apply);
	// Released frames given the zero input because the peer's inputs had
	// been missing for more than MaxRepeat frames.
	Exact, Repeated, LateApplied, Released uint64
	// Late counts inputs that arrived after their frame was simulated.
	// Unrewound (LateInput Rollback) counts what MaxRollback kept from
	// OnLate: each late input later than MaxRollback frames, and each
	// message whose rewind would have passed the budget of its host frame.
	Late, Unrewound uint64
	// Ahead and Stale count inputs dropped for being stamped too far ahead
	// of, or behind, the host's frame.
	Ahead, Stale uint64
	// Skipped counts frames the host simulated without taking the peer's
	// input (HostInputs.Update not called for them).
	Skipped uint64
	// BeforeResume counts inputs dropped for being stamped at or before the
	// frame the peer resumed at (HostInputs.Resume): the client's world of
	// before the break, which the host simulated without it.
	BeforeResume uint64
	// Unaligned counts messages of inputs the client set before its frame
	// was in step with the host's that came after an aligned one (reordered
	// on the way): dropped, the aligned inputs stand.
	Unaligned uint64
	// FarViews counts messages with a view further behind its input than
	// HostInputConfig.MaxRewind: taken at that bound.
	FarViews uint64
}

// HostInputs keeps every peer's inputs on the host and, once per frame,
// gives each peer the input stamped with that frame.
//
// Wiring: session.HostConfig.OnMessage passes KindInput payloads to Receive;
// HostInputs is an ecs.System added to ecs.StageInput after the session's
// receive system, so it runs after the frame's messages arrived; the game's
// systems then read Input(peer). OnLeave calls RemovePeer.
//
// Memory: per peer, Window inputs and frame numbers, allocated at the peer's
// first message; nothing per message or frame after. Not safe for concurrent
// use: call it on the simulation goroutine.
type HostInputs[I any] struct {
	w       *ecs.World
	codec   InputCodec[I]
	cfg     HostInputConfig[I]
	peers   []*PeerInputs[I]
	scratch []I
	behinds []uint32    // the message's views (readInputsWith)
	reader  wire.Reader // reused to decode input messages
}

// NewHostInputs returns the input buffers of the host world w, decoding
// inputs with codec.
func NewHostInputs[I any](w *ecs.World, codec InputCodec[I], cfg HostInputConfig[I]) *HostInputs[I] {
	codec.check()
	cfg.defaults()
	return &HostInputs[I]{w: w, codec: codec, cfg: cfg, scratch: make([]I, MaxPerMessage), behinds: make([]uint32, MaxPerMessage)}
}

// Peer returns peer id's inputs, or nil if it sent none yet.
func (h *HostInputs[I]) Peer(id ecs.PeerID) *PeerInputs[I] {
	for _, p := range h.peers {
		if p.id == id {
			return p
		}
	}
	return nil
}

// Peers returns the peers that sent inputs. The slice is HostInputs': read
// it, do not keep or modify it.
func (h *HostInputs[I]) Peers() []*PeerInputs[I] { return h.peers }

// RemovePeer forgets peer id's inputs (it left).
func (h *HostInputs[I]) RemovePeer(id ecs.PeerID) {
	for i, p := range h.peers {
		if p.id == id {
			copy(h.peers[i:], h.peers[i+1:])
			h.peers[len(h.peers)-1] = nil
			h.peers = h.peers[:len(h.peers)-1]
			return
		}
	}
}

// Input returns peer id's input for the current frame (the last Update), or
// ok == false if the peer has given none yet. The pointer is valid until the
// next Update.
func (h *HostInputs[I]) Input(id ecs.PeerID) (in *I, ok bool) {
	if p := h.Peer(id); p != nil {
		return p.Input()
	}
	return nil, false
}

// Receive stores the inputs of a KindInput message from peer id. A message
// that does not decode returns an error wrapping ErrMalformed and changes
// nothing; inputs stamped outside the window are dropped and counted, and
// ErrAhead (some were too far ahead) or ErrBehind (all were too old) is
// returned. Past HostInputConfig.MaxMessagesPerFrame messages from the peer
// in one host frame, the message is dropped unread and ErrTooMany returned.
// An input for a frame not yet applied replaces the one held for it. The
// payload is not kept. Allocates only at a peer's first message.
func (h *HostInputs[I]) Receive(id ecs.PeerID, payload []byte) error {
	p := h.Peer(id)
	if p == nil {
		p = h.newPeer(id)
	}
	if f := h.w.Frame(); f != p.countFrame {
		p.countFrame, p.count = f, 0
	}
	if p.count >= h.cfg.MaxMessagesPerFrame {
		p.stats.Excess++
		return ErrTooMany
	}
	p.count++
	head, n, err := readInputsWith(&h.reader, payload, &h.codec, h.scratch, h.behinds)
	if err != nil {
		p.stats.Malformed++
		return err
	}
	p.stats.Messages++
	if head.unaligned {
		if p.aligned {
			// Sent before an aligned one that came first: the aligned
			// inputs stand.
			p.stats.Unaligned++
			return nil
		}
	} else {
		p.aligned = true
	}
	far := false
	for i, b := range head.behinds[:n] {
		if most := uint32(h.cfg.MaxRewind) * ViewScale; b > most {
			head.behinds[i], far = most, true
		}
	}
	if far {
		p.stats.FarViews++
	}
	return p.store(h.w.Frame(), head, h.scratch[:n])
}

// Resume starts peer id's inputs anew after its session resumed at host
// frame f: what it sent before is forgotten, and inputs stamped at or before
// f are dropped (InputStats.BeforeResume) — the client stamps its inputs
// after the resume's frame only. Until its first input the peer has none
// (Input reports ok == false).
func (h *HostInputs[I]) Resume(id ecs.PeerID, f ecs.Frame) {
	h.RemovePeer(id)
	h.newPeer(id).floor = f
}

func (h *HostInputs[I]) newPeer(id ecs.PeerID) *PeerInputs[I] {
	p := &PeerInputs[I]{
		h:       h,
		id:      id,
		frames:  make([]ecs.Frame, h.cfg.Window),
		ins:     make([]I, h.cfg.Window),
		live:    make([]bool, h.cfg.Window),
		behinds: make([]uint32, h.cfg.Window),
	}
	if f := h.w.Frame(); f > 0 {
		p.applied = f - 1
	}
	h.peers = append(h.peers, p)
	return p
}

// Update takes every peer's input for the world's current frame and, with a
// Replicator configured, records the frame as the peer's input frame. It is
// an ecs.System for ecs.StageInput.
func (h *HostInputs[I]) Update(w *ecs.World) {
	f := w.Frame()
	for _, p := range h.peers {
		p.take(f)
		if h.cfg.Replicator != nil && p.has && p.inputFrame == f {
			if hp := h.cfg.Replicator.Peer(p.id); hp != nil {
				hp.SetInputFrame(f)
			}
		}
	}
}

// PeerInputs is one peer's input buffer on the host: a ring of Window frames.
type PeerInputs[I any] struct {
	h      *HostInputs[I]
	id     ecs.PeerID
	frames []ecs.Frame // by frame % Window: the frame whose input the slot holds, 0 none
	ins    []I
	live   []bool // the slot's input came in an aligned message (Live)
	// behinds: how far behind the slot's frame the peer drew what it does
	// not predict as it set the input, in 1/ViewScale of a frame; with
	// ownView, said by a message whose newest input it is, else by the
	// first that carried it (to a sixteenth of a frame)
	behinds []uint32

	applied    ecs.Frame // the last frame taken
	floor      ecs.Frame // inputs stamped at or before it are dropped (Resume)
	cur        I         // the input in force
	curFrame   ecs.Frame // the frame cur was stamped with
	has        bool
	curLive    bool      // cur came in an aligned message
	curBehind  uint32    // cur's behind (behinds)
	viewFrame  ecs.Frame // the frame cur's view is behind: its own, or the frame it is repeated at
	aligned    bool      // an aligned message came: unaligned ones are dropped
	inputFrame ecs.Frame // the host frame an input was last applied at
	newest     ecs.Frame // the newest frame received

	late       I
	lateFrame  ecs.Frame
	hasLate    bool
	lateLive   bool
	lateBehind uint32

	countFrame ecs.Frame // the host frame count is of
	count      int       // messages taken in countFrame

	rewoundAt ecs.Frame // the host frame rewound is of
	rewound   int       // frames OnLate was asked to simulate again in rewoundAt

	stats InputStats
}

// ID returns the peer's id.
func (p *PeerInputs[I]) ID() ecs.PeerID { return p.id }

// Stats returns the peer's counters.
func (p *PeerInputs[I]) Stats() InputStats { return p.stats }

// Input returns the input in force for the last frame taken, or ok == false
// before the peer's first input. The pointer is valid until the next Update.
func (p *PeerInputs[I]) Input() (in *I, ok bool) { return &p.cur, p.has }

// Live reports whether the input in force is the player's own: it came in a
// message the client sent once its frame was in step with the host's. Until
// then a client sends unaligned inputs (the zero input, while it waits to
// be in step: Client.SetInput), which the host applies but a game does not
// act on as presses. False before the peer's first input.
func (p *PeerInputs[I]) Live() bool { return p.has && p.curLive }

// View returns the host frame, with its fraction, whose world the peer drew
// (the entities it does not predict, at its render frame) when it set the
// input in force: what a lag-compensated hit test rewinds to. An input in
// force at its own frame or late was seen from that frame's view; one
// repeated for a frame without its own, from the same distance behind the
// frame it is repeated at. Never further behind the frame being simulated
// than HostInputConfig.MaxRewind; the frame itself while the input in force
// is not the player's (Live false).
func (p *PeerInputs[I]) View() float64 {
	now := float64(p.applied)
	if !p.Live() {
		return now
	}
	v := float64(p.viewFrame) - float64(p.curBehind)/ViewScale
	return min(max(v, now-float64(p.h.cfg.MaxRewind), 0), now)
}

// ViewAt returns the view of the input received for frame f (View's, had it
// been in force at its own frame), or ok == false if none is held: for games
// that roll back (LateInput Rollback) and test a hit of an earlier frame.
func (p *PeerInputs[I]) ViewAt(f ecs.Frame) (view float64, ok bool) {
	slot := int(uint64(f) % uint64(len(p.frames)))
	if f == 0 || p.frames[slot] != f {
		return 0, false
	}
	if !p.live[slot] {
		return float64(f), true
	}
	v := float64(f) - float64(p.behinds[slot]&^ownView)/ViewScale
	return max(v, float64(f)-float64(p.h.cfg.MaxRewind), 0), true
}

// InputFrame returns the frame the input in force was stamped with: the
// current frame when it is exact, an earlier one when it is repeated or late.
func (p *PeerInputs[I]) InputFrame() ecs.Frame { return p.curFrame }

// AppliedFrame returns the host frame at which an input (exact, repeated or
// late) was last applied, 0 before the first. It is the frame AuthState is
// for: replicate.HostPeer.SetInputFrame takes it (Update does that when
// HostInputConfig.Replicator is set).
func (p *PeerInputs[I]) AppliedFrame() ecs.Frame { return p.inputFrame }

// Buffered returns how many frames ahead of the last frame taken the newest
// input received is: the depth of the peer's input buffer, for a net graph.
// Negative when the peer's inputs arrive late.
func (p *PeerInputs[I]) Buffered() int { return int(int64(p.newest) - int64(p.applied)) }

// InputAt returns the input received for frame f, or ok == false if none is
// held (not received, or overwritten since). The pointer is valid until the
// next Receive. For games that roll back (LateInput Rollback).
func (p *PeerInputs[I]) InputAt(f ecs.Frame) (in *I, ok bool) {
	slot := int(uint64(f) % uint64(len(p.frames)))
	if f == 0 || p.frames[slot] != f {
		return nil, false
	}
	return &p.ins[slot], true
}

// store files the inputs of one message, ins[i] stamped newest-i, at host
// frame now. With LateInput Rollback, OnLate is called once, after the
// whole message is stored, with the oldest late input.
func (p *PeerInputs[I]) store(now ecs.Frame, head inputsHead, ins []I) error {
	newest, live := head.newest, !head.unaligned
	cfg := &p.h.cfg
	window := uint64(len(p.frames))
	ahead, stale := 0, 0
	maxFrame := int64(now) + int64(cfg.MaxAhead)
	minFrame := int64(p.applied) - int64(cfg.Window-cfg.MaxAhead-2)
	oldestLate, lateSlot := ecs.Frame(0), 0
	for i := range ins {
		g := newest - ecs.Frame(i)
		switch {
		case g <= p.floor:
			p.stats.BeforeResume++
			continue
		case int64(g) > maxFrame:
			ahead++
			continue
		case int64(g) < minFrame:
			stale++
			continue
		}
		slot := int(uint64(g) % window)
		if p.frames[slot] == g {
			p.stats.Duplicates++
			if g > p.applied {
				// Not applied yet: the newest message's input wins.
				p.ins[slot], p.live[slot] = ins[i], live
				if i == 0 {
					p.behinds[slot] = head.behinds[0] | ownView
				}
			}
			continue
		}
		p.frames[slot] = g
		p.ins[slot], p.live[slot], p.behinds[slot] = ins[i], live, head.behinds[i]
		if i == 0 {
			p.behinds[slot] |= ownView
		}
		p.stats.Received++
		if g > p.newest {
			p.newest = g
		}
		if g > p.applied {
			continue
		}
		// Its frame was simulated without it.
		p.stats.Late++
		if cfg.LateInput == Rollback {
			if int64(now)-int64(g) > int64(cfg.MaxRollback) {
				p.stats.Unrewound++
			} else {
				oldestLate, lateSlot = g, slot // inputs come newest first
			}
			if !p.has || g > p.curFrame {
				p.cur, p.curFrame, p.has, p.curLive = p.ins[slot], g, true, live
				p.curBehind, p.viewFrame = head.behinds[i], g
			}
			continue
		}
		if (!p.has || g > p.curFrame) && (!p.hasLate || g > p.lateFrame) {
			p.late, p.lateFrame, p.hasLate, p.lateLive = p.ins[slot], g, true, live
			p.lateBehind = head.behinds[i]
		}
	}
	p.stats.Ahead += uint64(ahead)
	p.stats.Stale += uint64(stale)
	if oldestLate != 0 && cfg.OnLate != nil {
		if p.rewoundAt != now {
			p.rewoundAt, p.rewound = now, 0
		}
		if depth := int(now - oldestLate); p.rewound+depth > cfg.MaxRollback {
			p.stats.Unrewound++
		} else {
			p.rewound += depth
			cfg.OnLate(p.id, oldestLate, &p.ins[lateSlot])
		}
	}
	switch {
	case ahead > 0:
		return ErrAhead
	case stale == len(ins):
		return ErrBehind
	}
	return nil
}

// take makes the input for frame f the one in force: the exact one, else a
// pending late one, else the last one again, up to MaxRepeat frames after
// its stamp, then the zero input.
func (p *PeerInputs[I]) take(f ecs.Frame) {
	if f <= p.applied {
		return
	}
	p.stats.Skipped += uint64(f - p.applied - 1)
	window := uint64(len(p.frames))
	if gap := uint64(f - p.applied - 1); gap > 0 && p.h.cfg.LateInput == Apply {
		// Frames simulated without taking inputs: what arrived for them is
		// late now.
		for g := f - ecs.Frame(min(gap, window)); g < f; g++ {
			slot := int(uint64(g) % window)
			if p.frames[slot] == g && (!p.has || g > p.curFrame) && (!p.hasLate || g > p.lateFrame) {
				p.late, p.lateFrame, p.hasLate, p.lateLive = p.ins[slot], g, true, p.live[slot]
				p.lateBehind = p.behinds[slot] &^ ownView
			}
		}
	}
	p.applied = f
	slot := int(uint64(f) % window)
	switch {
	case p.frames[slot] == f:
		p.cur, p.curFrame, p.has, p.curLive = p.ins[slot], f, true, p.live[slot]
		p.curBehind, p.viewFrame = p.behinds[slot]&^ownView, f
		p.hasLate = false
		p.stats.Exact++
	case p.hasLate:
		p.cur, p.curFrame, p.has, p.curLive = p.late, p.lateFrame, true, p.lateLive
		p.curBehind, p.viewFrame = p.lateBehind, p.lateFrame
		p.hasLate = false
		p.stats.LateApplied++
	case p.has:
		if limit := p.h.cfg.MaxRepeat; limit >= 0 && int64(f)-int64(p.curFrame) > int64(limit) {
			// Its inputs stopped coming: the player lets go. (curFrame
			// stays the last input's, so a late one newer than it is
			// still taken.)
			var zero I
			p.cur, p.curLive = zero, false
			p.stats.Released++
			break
		}
		p.viewFrame = f
		p.stats.Repeated++
	default:
		return
	}
	p.inputFrame = f
}

package tandem

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/tandem-go/tandem/ecs"
)

// CommandPanic is what a host hears (HostConfig.OnCommandPanic) when a
// command's handler, or its codec's Read, panicked on the host. The host
// recovers: the command is refused (its receipt says the host failed to run
// it) and that answer is kept and saved like any other, so a client that
// sends it again, or a restarted host that hears it again, does not run it
// again. What the handler changed before it panicked stays in the world.
// A panic inside a query loop the handler had not closed is the exception:
// it leaves arche's world locked, which nothing can undo, and it stops the
// host (HostConfig.OnCommandPanic).
type CommandPanic struct {
	Command string    // the command kind's name
	Op      uint64    // the operation id
	Player  Peer      // who sent it
	Frame   ecs.Frame // the host frame it ran at
	Value   any       // what the handler panicked with
	Stack   []byte    // the goroutine's stack where it panicked
}

// Error says what panicked, and where, on the first line; the stack
// follows.
func (p *CommandPanic) Error() string {
	return fmt.Sprintf("tandem: command %q (operation %d of player %d %q, frame %d) panicked: %v; the host refused it and goes on\n%s",
		p.Command, p.Op, p.Player.ID, p.Player.Name, p.Frame, p.Value, p.Stack)
}

// errCommandFailed is the reason a command whose handler panicked is
// refused with, as its player reads it.
var errCommandFailed = errors.New("the host failed to run this command (a fault in the game, logged on the host)")

// runHandler runs kind's handler for the command op of player p. A panic in
// the handler or in its codec's Read is recovered (the host goes on) and
// heard as a *CommandPanic, and the command is refused; unless the panic
// left the world locked by a query the handler did not close, which nothing
// can undo: that panic goes on up.
func (h *Host[I]) runHandler(kind uint8, op uint64, p Peer, payload []byte) (err error, malformed bool) {
	h.mu.enter() // the game's code, counted (and watched by a report check)
	defer h.mu.exit()
	def := h.g.Commands[kind].def()
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if h.w.ECS.Arche().IsLocked() {
			panic(v)
		}
		cp := &CommandPanic{Command: def.name, Op: op, Player: p, Frame: h.w.ECS.Frame(), Value: v, Stack: debug.Stack()}
		h.stats.CommandPanics++
		if fn := h.cfg.OnCommandPanic; fn != nil {
			fn(cp)
		} else {
			h.mu.logger().Error("tandem: a command panicked; the host refused it and goes on",
				"command", cp.Command, "op", cp.Op, "player", cp.Player.ID, "name", cp.Player.Name,
				"frame", cp.Frame, "panic", fmt.Sprint(cp.Value), "stack", string(cp.Stack))
		}
		err, malformed = errCommandFailed, false
	}()
	return def.run(h.w, p, payload)
}

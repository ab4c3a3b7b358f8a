package main

import (
	"fmt"
	"image/color"
	"strings"
	"sync"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/demo/netplay"
)

// The players' commands (commandKeys): T switches team, C drops a crate
// where the player stands. A client sends them to the host (tandem.Send),
// which runs each once and answers with a receipt once the world it changed
// is saved; the HUD says what came back: done, refused (and why) or
// conflict. The host's own player's commands take the same path, and a game
// alone runs them at once: tandem.Give does each.

// commandKeys are the players' commands and their keys. readCommands, the
// HUD's line of keys and the usage text all read this table: a command of
// your own is one line here (and its kind in netplay's Commands).
var commandKeys = []commandKey{
	{ebiten.KeyT, "team", "switch team", netplay.SwitchTeam},
	{ebiten.KeyC, "crate", "drop a crate", netplay.DropCrate},
}

// commandKey is a command given by a key.
type commandKey struct {
	key   ebiten.Key
	short string // on the HUD: "T team"
	long  string // in the usage text: "T switch team"
	kind  *tandem.CommandKind[struct{}]
}

// commandHelp lists the command keys, as "T switch team, C drop a crate"
// (long) or "T team · C crate" (short, joined by sep).
func commandHelp(long bool, sep string) string {
	var b strings.Builder
	for i, c := range commandKeys {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(c.key.String())
		b.WriteByte(' ')
		if long {
			b.WriteString(c.long)
		} else {
			b.WriteString(c.short)
		}
	}
	return b.String()
}

// receipts holds the answers to this machine's commands until the HUD shows
// them. Safe for concurrent use: the simulation takes receipts, the window
// shows them.
type receipts struct {
	mu   sync.Mutex
	news []note
	last uint64 // the operation id of the newest receipt taken
}

// note is a line for the HUD.
type note struct {
	text string
	col  color.RGBA
}

// take is the match's Receipt observer.
func (r *receipts) take(rc tandem.Receipt) {
	col := colAccent
	if rc.Status != tandem.ReceiptDone {
		col = colWarn
	}
	r.mu.Lock()
	r.last = rc.Op
	r.mu.Unlock()
	r.note(rc.String(), col)
}

// answered reports whether op's receipt is the newest taken (a game alone
// answers as the command runs).
func (r *receipts) answered(op uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last == op
}

func (r *receipts) note(s string, col color.RGBA) {
	r.mu.Lock()
	if len(r.news) < 8 {
		r.news = append(r.news, note{s, col})
	}
	r.mu.Unlock()
}

// tell passes the answers that came in to hud.
func (r *receipts) tell(h *hud) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.news {
		h.say(n.text, n.col)
	}
	r.news = r.news[:0]
}

// give gives k for the player at this machine (tandem.Give: a client sends
// it to the host, a host runs it for its own player, a game alone at once);
// the HUD says it went, unless its receipt came already, then the receipt.
func give(m match, k *tandem.CommandKind[struct{}]) {
	op, err := tandem.Give[game.Input](m, k, struct{}{})
	if err != nil {
		m.note(fmt.Sprintf("%s: %v", k.Name(), err), colWarn)
		return
	}
	if !m.answered(op) {
		m.note(fmt.Sprintf("%s #%d sent", k.Name(), op), colTextDim)
	}
}

// readCommands gives the commands whose keys were just pressed, and puts
// the answers that came back on the HUD.
func readCommands(m match, h *hud) {
	for _, c := range commandKeys {
		if inpututil.IsKeyJustPressed(c.key) {
			give(m, c.kind)
		}
	}
	m.tell(h)
}

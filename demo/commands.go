package main

import (
	"fmt"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/tandem-go/tandem"
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

// give gives k for the player at this machine (tandem.Give: a client sends
// it to the host, a host runs it for its own player, a game alone at once);
// the HUD says it went, unless its receipt came already (the receipt then
// says it).
func give(m *match, k *tandem.CommandKind[struct{}], h *hud) {
	op, err := tandem.Give(m, k, struct{}{})
	if err != nil {
		h.say(fmt.Sprintf("%s: %v", k.Name(), err), colWarn)
		return
	}
	if !m.Receipts().Answered(op) {
		h.say(fmt.Sprintf("%s #%d sent", k.Name(), op), colTextDim)
	}
}

// readCommands gives the commands whose keys were just pressed, and puts
// the receipts that came back on the HUD (buf is the caller's, reused):
// done in the accent colour, any other answer as a warning.
func readCommands(m *match, h *hud, buf []tandem.Receipt) []tandem.Receipt {
	for _, c := range commandKeys {
		if inpututil.IsKeyJustPressed(c.key) {
			give(m, c.kind, h)
		}
	}
	buf = m.Receipts().Take(buf[:0])
	for _, rc := range buf {
		col := colAccent
		if rc.Status != tandem.ReceiptDone {
			col = colWarn
		}
		h.say(rc.String(), col)
	}
	return buf
}

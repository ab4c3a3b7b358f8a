package main

import (
	"fmt"
	"image/color"
	"sync"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/netplay"
)

// The players' commands: T switches team, C drops a crate where the player
// stands. A client sends them to the host (tandem.Send), which runs each
// once and answers with a receipt once the world it changed is saved; the
// HUD says what came back: done, refused (and why) or conflict. The host's
// own player's commands take the same path (tandem.SendOwn); a game alone
// runs them at once (tandem.RunAlone).

// Command keys.
var (
	keySwitchTeam = ebiten.KeyT
	keyDropCrate  = ebiten.KeyC
)

// receipts holds the answers to this machine's commands until the HUD shows
// them. Safe for concurrent use: the simulation takes receipts, the window
// shows them.
type receipts struct {
	mu   sync.Mutex
	news []note
}

// note is a line for the HUD.
type note struct {
	text string
	col  color.RGBA
}

// take is a client's Receipt observer.
func (r *receipts) take(rc tandem.Receipt) {
	col := colAccent
	if rc.Status != tandem.ReceiptDone {
		col = colWarn
	}
	r.note(rc.String(), col)
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

// commander is a match whose player gives commands.
type commander interface {
	command(k *tandem.CommandKind[struct{}])
	tell(h *hud)
}

// command sends k to the host; the HUD says it went, then its receipt.
func (m *clientMatch) command(k *tandem.CommandKind[struct{}]) {
	op, err := tandem.Send(m.Client, k, struct{}{})
	if err != nil {
		m.note(fmt.Sprintf("%s: %v", k.Name(), err), colWarn)
		return
	}
	m.note(fmt.Sprintf("%s #%d sent", k.Name(), op), colTextDim)
}

// command gives k for the host's own player, as a client's command goes:
// the host runs it once with the kind's handler, saves it, and its receipt
// comes to the HUD (Host.OnReceipt); a game alone runs it at once.
func (m *localMatch) command(k *tandem.CommandKind[struct{}]) {
	if m.host != nil {
		op, err := tandem.SendOwn(m.host, k, struct{}{})
		if err != nil {
			m.note(fmt.Sprintf("%s: %v", k.Name(), err), colWarn)
			return
		}
		m.note(fmt.Sprintf("%s #%d sent", k.Name(), op), colTextDim)
		return
	}
	if err := tandem.RunAlone(m.local, k, struct{}{}); err != nil {
		m.note(fmt.Sprintf("%s: refused (%v)", k.Name(), err), colWarn)
		return
	}
	m.note(k.Name()+": done", colAccent)
}

// readCommands sends the commands whose keys were just pressed, and puts
// the answers that came back on the HUD.
func readCommands(m match, h *hud) {
	c, ok := m.(commander)
	if !ok {
		return
	}
	if inpututil.IsKeyJustPressed(keySwitchTeam) {
		c.command(netplay.SwitchTeam)
	}
	if inpututil.IsKeyJustPressed(keyDropCrate) {
		c.command(netplay.DropCrate)
	}
	c.tell(h)
}

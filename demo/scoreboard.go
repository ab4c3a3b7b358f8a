package main

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/tandem-go/tandem/demo/game"
)

// teamNames are the teams as the scoreboard names them: by their colours.
var teamNames = [2]string{game.Left: "blue", game.Right: "red"}

// nameWidth is the widest a name is drawn, pixels; longer ones are cut.
const nameWidth = 130

// drawScoreboard draws the scoreboard (Tab): every player with their team,
// goals and round trip to the host, by team and goals, the local player
// marked.
func (r *renderer) drawScoreboard(screen *ebiten.Image) {
	rows := r.board[:0]
	for i := range r.scene.players {
		rows = append(rows, &r.scene.players[i])
	}
	slices.SortStableFunc(rows, func(a, b *playerItem) int {
		if c := cmp.Compare(a.player.Team, b.player.Team); c != 0 {
			return c
		}
		return cmp.Compare(b.player.Goals, a.player.Goals)
	})
	r.board = rows
	t := r.text
	const w, colTeam, colGoals, colRTT = 640, 330, 460, 600
	lh := lineHeight(styleTable) + 4
	h := 24 + lineHeight(styleHead) + 10 + lh*float32(len(rows)+1) + 12
	x, y := float32(screenW-w)/2, float32(130)
	vector.FillRect(screen, x, y, w, h, colPanel, false)
	vector.StrokeRect(screen, x, y, w, h, 1.5, colTextDim, false)
	s := r.scene.score
	t.draw(screen, fmt.Sprintf("blue %d : %d red", s.Left, s.Right), screenW/2, y+14, styleHead, colText, alignCenter)
	ty := y + 24 + lineHeight(styleHead) + 4
	for _, hd := range []struct {
		s  string
		x  float32
		al align
	}{{"player", 24, alignLeft}, {"team", colTeam, alignLeft}, {"goals", colGoals, alignRight}, {"round trip", colRTT, alignRight}} {
		t.draw(screen, hd.s, x+hd.x, ty, styleSmall, colTextDim, hd.al)
	}
	ty += lh
	for _, p := range rows {
		if p.local {
			vector.FillRect(screen, x+8, ty-3, w-16, lh, withAlpha(colText, 0x20), false)
		}
		tc := game.TeamColors[p.player.Team]
		vector.FillCircle(screen, x+18, ty+lh/2-3, 5, p.player.Color, true)
		name := p.name
		if p.local {
			name += " (you)"
		}
		t.draw(screen, t.cut(name, styleTable, colTeam-40), x+32, ty, styleTable, colText, alignLeft)
		vector.FillRect(screen, x+colTeam, ty+4, 10, 10, tc, false)
		t.draw(screen, teamNames[p.player.Team], x+colTeam+16, ty, styleTable, colText, alignLeft)
		t.draw(screen, fmt.Sprint(p.player.Goals), x+colGoals, ty, styleTable, colText, alignRight)
		t.draw(screen, p.rtt, x+colRTT, ty, styleTable, colTextDim, alignRight)
		ty += lh
	}
}

// rttText is a player's round trip as the scoreboard shows it.
func rttText(bot, host bool, rtt time.Duration) string {
	switch {
	case bot:
		return "bot"
	case host:
		return "host"
	case rtt == 0:
		return "…"
	}
	return fmt.Sprintf("%d ms", rtt.Milliseconds())
}

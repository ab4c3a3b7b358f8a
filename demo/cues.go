package main

import (
	"fmt"
	"math"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

// cue is an effect a drawn frame calls for, at a volume (0..1).
type cue struct {
	e   effect
	vol float64
}

// Hit detection: the ball's velocity changing by more than hitSpeed units/s
// between two drawn frames is a hit; hits closer than hitGap frames are one.
const (
	hitSpeed = 160.0
	hitGap   = 6
)

// cueState is what the last frame showed, for the next to tell what
// happened: every player's dash and goals, the ball's velocity, the last
// goal. It reads the world as every machine has it (a client's the host's),
// so a host, a client and a game alone hear the same.
type cueState struct {
	ready    bool
	players  map[ecs.NetID]heardPlayer
	next     map[ecs.NetID]heardPlayer
	ball     ecs.Velocity
	lastGoal ecs.Frame
	lastHit  ecs.Frame
	frame    ecs.Frame
}

type heardPlayer struct {
	dash  ecs.Frame
	goals int
}

// listen compares the frame collect copied with the last one and adds the
// effects it calls for to r.cues, and a message for each goal's scorer. It
// starts listening once playing: a client's join brings everyone at once.
func (r *renderer) listen(ball ecs.Velocity, playing bool) {
	sc, h := &r.scene, &r.heard
	r.cues = r.cues[:0]
	if !playing {
		return
	}
	clear(h.next)
	goal := h.ready && sc.score.LastGoal != h.lastGoal && sc.score.LastGoal != 0
	if goal {
		r.cues = append(r.cues, cue{sfxGoal, 1})
	}
	for i := range sc.players {
		p := &sc.players[i]
		before, seen := h.players[p.id]
		now := heardPlayer{dash: p.player.DashReady, goals: p.player.Goals}
		h.next[p.id] = now
		switch {
		case !h.ready:
		case !seen:
			r.cues = append(r.cues, cue{sfxJoin, 0.8})
			r.hud.say(fmt.Sprintf("%s joined the %s team", p.name, teamNames[p.player.Team]), game.TeamColors[p.player.Team])
		case now.dash > before.dash:
			vol := 0.35
			if p.local {
				vol = 0.9
			}
			r.cues = append(r.cues, cue{sfxDash, vol})
		}
		if seen && h.ready && now.goals > before.goals {
			r.hud.say(fmt.Sprintf("%s scores for %s", p.name, teamNames[p.player.Team]), game.TeamColors[p.player.Team])
		}
	}
	if h.ready {
		for id := range h.players {
			if _, ok := h.next[id]; !ok {
				r.hud.say("a player left", colTextDim)
			}
		}
	}
	h.players, h.next = h.next, h.players
	dv := math.Hypot(ball.X-h.ball.X, ball.Y-h.ball.Y)
	if h.ready && !goal && dv > hitSpeed && (h.lastHit == 0 || sc.frame-h.lastHit >= hitGap) && sc.frame != h.frame {
		r.cues = append(r.cues, cue{sfxHit, min(1, 0.3+dv/900)})
		h.lastHit = sc.frame
	}
	h.ball, h.lastGoal, h.frame, h.ready = ball, sc.score.LastGoal, sc.frame, true
}

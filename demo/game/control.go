package game

import (
	"math"

	"github.com/tandem-go/tandem/ecs"
)

// control applies every player's input for the current frame: thrust
// accelerates the disc up to MaxSpeed (it steers, but never pushes a faster
// disc faster), and Dash, when the cooldown allows, adds DashSpeed along the
// thrust (or the current motion) up to DashMaxSpeed. Velocities go through the
// physics bridge, which wakes the body and reports the write; a dash writes
// Player.DashReady and reports it. Cost: one step per player.
func (g *Game) control(w *ecs.World) {
	c := &g.Config
	f := w.Frame()
	dt := c.Step.Seconds()
	q := g.controlled.Query(w.Arche())
	for q.Next() {
		p, input, body := q.Get()
		in := input.Value
		tx, ty := in.Thrust()
		v := body.CP.Velocity()
		vx, vy := v.X, v.Y
		changed := false
		if tx != 0 || ty != 0 {
			limit := max(math.Hypot(vx, vy), c.MaxSpeed)
			vx += tx * c.Accel * dt
			vy += ty * c.Accel * dt
			if s := math.Hypot(vx, vy); s > limit {
				vx, vy = vx*limit/s, vy*limit/s
			}
			changed = true
		}
		if in.Dash && f >= p.DashReady {
			dx, dy := tx, ty
			if dx == 0 && dy == 0 {
				dx, dy = vx, vy
			}
			if l := math.Hypot(dx, dy); l > 0 {
				vx += dx / l * c.DashSpeed
				vy += dy / l * c.DashSpeed
				if s := math.Hypot(vx, vy); s > c.DashMaxSpeed {
					vx, vy = vx*c.DashMaxSpeed/s, vy*c.DashMaxSpeed/s
				}
				p.DashReady = f + g.dashCooldown
				ecs.MutateComponent(w, q.Entity(), g.IDs.Player)
				changed = true
			}
		}
		if changed {
			g.Space.SetVelocity(q.Entity(), ecs.Velocity{X: vx, Y: vy, Angular: body.CP.AngularVelocity()})
		}
	}
}

// DashCharge returns how far, 0 to 1, player p's dash has recharged at frame
// f (1: ready).
func (g *Game) DashCharge(p *Player, f ecs.Frame) float64 {
	if f >= p.DashReady {
		return 1
	}
	left := float64(p.DashReady - f)
	return 1 - left/float64(g.dashCooldown)
}

// Package physics bridges Tandem's ECS to the cp (Chipmunk2D) physics engine.
//
// It sits between the ECS layer and the network: a Space owns one cp.Space for
// one world; an entity gets a rigid body by Attach (or AttachCircle,
// AttachBox), which adds the Body component linking the entity to its
// *cp.Body (whose UserData holds the entity). The Space is a System: added to
// an ecs.Schedule it steps cp at the schedule's fixed step and copies the pose
// and velocity of every body that moved into the entity's ecs.Transform and
// ecs.Velocity, reporting each write with ecs.MutateComponent so the network
// replicates it.
//
// Cost is in what moved. cp integrates awake bodies only, and the Space learns
// which bodies moved from cp's per-body position hook, never by visiting every
// body. Sleeping bodies cost nothing and report nothing: configure sleeping
// with Config.SleepTime and Config.IdleSpeed.
//
// Poses drawn between steps: for entities with ecs.Interpolated the step keeps
// Interpolated.Prev (the pose before the step), and SetPose marks teleports
// with Interpolated.Snap and reports them to the network
// (ecs.ReportTeleport), so clients draw them as jumps too.
//
// Writes from outside the step go through this package, never straight to the
// cp body or the components, so both stay equal and the network hears of the
// change: SetPose for teleports, Move to place a body, SetVelocity, and
// CorrectPose/CorrectVelocity for the small corrections a predicting client
// applies (with what shapes them: ClampPose and ClampVelocity keep a
// correction out of what a body rests on, Gripped tells whether friction
// holds the body to it, ClampPoseFrom keeps it on the
// side of a floor or a wall the host's body was on, ClampDrawn keeps a
// drawn offset out of what the body rests on, CarryVelocity carries a
// velocity through the body's friction, ClampTravel stops a knocked body's
// carried travel at what it meets). A teleport written by hand to a networked entity's ecs.Transform
// (reported with ecs.MutateComponent and ecs.ReportTeleport) is taken by its
// body too, as SetPose would have: by the step, for one reported before it,
// and by the Teleports system, late in the frame, for one reported after;
// any other write of the components is lost at the body's next move.
// Mass and moment are the cp body's (Body.CP.SetMass, SetMoment): set them
// alike on the host and on every client that simulates the body, from a
// replicated component of the game's, or prediction disagrees with the host.
//
// Driving a body without tunnelling: change its velocity by an acceleration
// each step (v += a·dt, clamped to a top speed, as the demo's control system
// does), or apply impulses through the cp body, and let the step move it.
// Neither writing its pose every step nor setting an absolute velocity every
// step will do: both throw away what the solver decided about contacts, so a
// body pressed against a thin static wall at full speed frame after frame
// ends up through it. Keep what the solver left (read the body's velocity,
// add to it) and fast bodies stay out of walls; for bodies faster than about
// their own size per step, thicken the walls. Two moving bodies are the
// same: cp has no continuous collision detection, so bodies closing on each
// other by more than their combined thickness in one step (two cars 40 long
// at 40 units a step each, head-on) can pass through each other, on the
// host and in a client's prediction alike. Keep the closing speed times the
// step under the thinner body's size, or run the simulation at a smaller
// step (Game.Step) for such a game.
//
// Removing an entity (or its Body component) removes its body and shapes from
// the cp space; the Space listens to arche for that. SetSolid takes a body's
// shapes out of the cp space for a while and puts them back: a client that
// predicts an entity's removal (the root package's World.Remove) keeps its
// body, passed through, until the host's removal comes.
//
// Threads: a Space belongs to its world's simulation goroutine; nothing here is
// safe for concurrent use.
package physics

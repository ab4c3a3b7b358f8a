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
// with Interpolated.Snap.
//
// Writes from outside the step go through this package, never straight to the
// cp body or the components, so both stay equal and the network hears of the
// change: SetPose for teleports, SetVelocity, and CorrectPose/CorrectVelocity
// for the small corrections a predicting client applies.
//
// Removing an entity (or its Body component) removes its body and shapes from
// the cp space; the Space listens to arche for that.
//
// Threads: a Space belongs to its world's simulation goroutine; nothing here is
// safe for concurrent use.
package physics

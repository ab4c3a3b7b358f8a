// Package tandem is a module for networked real-time games in Go: an
// archetype ECS (ecs), a bridge to 2D physics (physics), a server-authoritative
// network stack over QUIC with client prediction, correction and
// interpolation (net/..., interp), and a playable demo that is also the
// template for a new game (demo).
//
// The root package holds no code; it documents the module and carries the test
// that keeps its layering true. See README.md for the layers and how to start.
package tandem

package main

import (
	"math"

	"github.com/tandem-go/tandem/ecs"
)

func dist(a, b ecs.Transform) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

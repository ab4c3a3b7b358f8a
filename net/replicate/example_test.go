package replicate_test

import (
	"fmt"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// A component of integers and bools needs no codec written by hand: a team
// and its score travel whole, and a client holds the host's values.
func ExampleIntegerCodec() {
	type Team struct {
		ID    uint8
		Score int32
		Ready bool
	}
	codec := replicate.IntegerCodec[Team]("team")
	reg := replicate.NewRegistry(ecs.NewWorld())
	replicate.Register(reg, codec) // the same on the host and every client

	// What Register does with it each time a Team is sent and applied:
	image := make([]int32, codec.Fields)
	codec.Quantize(&Team{ID: 2, Score: -40, Ready: true}, image)
	var arrived Team
	codec.Dequantize(image, &arrived)
	fmt.Println(image, arrived)
	// Output: [2 -40 1] {2 -40 true}
}

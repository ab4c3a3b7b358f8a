package agones_test

import (
	"context"
	"fmt"

	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/agones/agonestest"
)

// A host publishes its certificate pin, says it is ready, and keeps the
// connected players in the "players" List.
func Example() {
	side := agonestest.New() // in a pod: agones.New(agones.Options{})
	defer side.Close()
	side.SetList("players", 8)
	c, _ := agones.New(agones.Options{HTTPClient: side.HTTPClient()})
	ctx := context.Background()

	_ = c.SetAnnotation(ctx, "pin", "3f9ce1")
	_ = c.Ready(ctx)
	added, _ := c.AddListValue(ctx, "players", "alice")
	again, err := c.AddListValue(ctx, "players", "alice") // resent after a reconnect
	gs, _ := c.GameServer(ctx)

	fmt.Println(added, again, err)
	fmt.Println(gs.Status.State, gs.Status.Lists["players"].Values)
	fmt.Println(gs.ObjectMeta.Annotations[agones.SDKPrefix+"pin"])
	// Output:
	// true false <nil>
	// Ready [alice]
	// 3f9ce1
}

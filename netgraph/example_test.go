package netgraph_test

import (
	"fmt"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/netgraph"
)

// A window renews the graph once a drawn frame from its client's figures
// and draws what it holds; here, printed.
func ExampleGraph_Client() {
	g := netgraph.Graph{Shown: true}
	st := tandem.NetStats{RTT: 62 * time.Millisecond, RTTSamples: 9, KbitIn: 96, KbitOut: 24, Entities: 35} // c.Stats()
	g.Client(time.Now(), st)
	fmt.Println(g.Title)
	fmt.Println(g.Lines[0])
	fmt.Printf("rtt peak %.0f ms\n", g.RTT.Peak())
	// Output:
	// client
	// rtt  62 ms   loss  0.0%
	// rtt peak 62 ms
}

package joincode_test

import (
	"fmt"
	"log"

	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
)

// A host makes its two lines from the address players reach it at
// (quicnet.ReachableAddr of its listener's address) and its certificate's
// fingerprint (its quicnet.Transport's Fingerprint), and shows them.
func ExampleLines() {
	fingerprint := "61873175b69387f648141c2902f6ff0491021b708f8c5d56aed1e169a3e6cc69"
	full, short, err := joincode.Lines("192.168.1.20:4242", fingerprint)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("paste:   ", full)
	fmt.Println("read out:", short)
	// Output:
	// paste:    192.168.1.20:4242/C63K2XDPJE3ZCJ0M3GMG5XQZ0J8G46VGHY65TNNET7GPK8Z6SHMGY
	// read out: 192.168.1.20:4242/C63K-2XDP-JE3M
}

// A client reads what the player typed, pins the host on the configuration
// it dials with, and dials the code's address; a damaged code is refused
// with a message for the player.
func ExampleParse() {
	code, err := joincode.Parse("192.168.1.20:4242/c63k 2xdp je3m") // as it was heard
	if err != nil {
		log.Fatal(err)
	}
	var cfg quicnet.Config
	code.Apply(&cfg)
	fmt.Println(code.Addr(), code.Full(), cfg.CheckFingerprint != nil)
	// Then quicnet.New(cfg) and its Dial(ctx, code.Addr()).

	_, err = joincode.Parse("192.168.1.20:4242/C63K-2XDP-JE3G")
	fmt.Println(err)
	// Output:
	// 192.168.1.20:4242 false true
	// the code is damaged: its last character does not match the others; ask the host to read it again
}

package transport

import (
	"fmt"
	"net"
	"testing"
)

// TestAddressKey: the addresses of one IPv6 /64 count as one, IPv4 ones
// apart (and as themselves when mapped into IPv6), and the port never
// matters.
func TestAddressKey(t *testing.T) {
	udp := func(ip string, port int) net.Addr { return &net.UDPAddr{IP: net.ParseIP(ip), Port: port} }
	same := [][2]net.Addr{
		{udp("2001:db8:1:2::1", 4000), udp("2001:db8:1:2:ffff:ffff:ffff:ffff", 5000)},
		{udp("192.0.2.7", 1), udp("::ffff:192.0.2.7", 2)},
		{udp("192.0.2.7", 1), &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 9}},
	}
	for _, p := range same {
		if a, b := AddressKey(p[0]), AddressKey(p[1]); a != b {
			t.Errorf("%v and %v count apart: %q, %q", p[0], p[1], a, b)
		}
	}
	apart := [][2]net.Addr{
		{udp("2001:db8:1:2::1", 4000), udp("2001:db8:1:3::1", 4000)},
		{udp("192.0.2.7", 1), udp("192.0.2.8", 1)},
	}
	for _, p := range apart {
		if a, b := AddressKey(p[0]), AddressKey(p[1]); a == b {
			t.Errorf("%v and %v count as one: %q", p[0], p[1], a)
		}
	}
	if got := AddressKey(udp("2001:db8:1:2::1", 4000)); got != "2001:db8:1:2::/64" {
		t.Errorf("an IPv6 address counts as %q", got)
	}
	if got := AddressKey(memAddr("client-7")); got != "client-7" {
		t.Errorf("an in-memory address counts as %q", got)
	}
	if AddressKey(nil) != "" {
		t.Error("no address counts as something")
	}
}

// memAddr is an address that is no IP address, as an in-memory transport's.
type memAddr string

func (a memAddr) Network() string { return "mem" }
func (a memAddr) String() string  { return string(a) }

func ExampleAddressKey() {
	fmt.Println(AddressKey(&net.UDPAddr{IP: net.ParseIP("2001:db8:1:2::1"), Port: 4000}))
	fmt.Println(AddressKey(&net.UDPAddr{IP: net.ParseIP("192.0.2.7"), Port: 4000}))
	// Output:
	// 2001:db8:1:2::/64
	// 192.0.2.7
}

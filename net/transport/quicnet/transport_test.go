package quicnet

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
)

// TestReachableAddr: a listener on a specific IP is reached there; one on
// every interface at an IPv4 address of this machine (or 127.0.0.1), on the
// same port (which one: TestReachableIPChoice).
func TestReachableAddr(t *testing.T) {
	for _, a := range []string{"127.0.0.1:4242", "192.168.1.20:4242", "[2001:db8::1]:4242", "[::1]:4242"} {
		if got := ReachableAddr(net.UDPAddrFromAddrPort(netip.MustParseAddrPort(a))); got != a {
			t.Errorf("ReachableAddr(%s) = %s, want it kept", a, got)
		}
	}
	for _, a := range []*net.UDPAddr{
		{IP: net.IPv4zero, Port: 4242},
		{IP: net.IPv6unspecified, Port: 4242},
		{Port: 4242},
	} {
		got := ReachableAddr(a)
		host, port, err := net.SplitHostPort(got)
		ip := net.ParseIP(host)
		if err != nil || port != "4242" || ip == nil || ip.To4() == nil {
			t.Fatalf("ReachableAddr(%s) = %s, want an IPv4 address and port 4242", a, got)
		}
		if ip.IsLoopback() && !ip.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Fatalf("ReachableAddr(%s) = %s: a loopback address other than 127.0.0.1", a, got)
		}
		if !ip.IsLoopback() && !ownAddress(t, ip) {
			t.Fatalf("ReachableAddr(%s) = %s, not an address of this machine", a, got)
		}
	}
}

// reachableIP prefers a public address to a private one, and skips what no
// other machine reaches: interfaces that are down or loopback, link-local
// and IPv6 addresses, container and virtual machine bridges.
func TestReachableIPChoice(t *testing.T) {
	up := net.FlagUp | net.FlagBroadcast
	at := func(name string, flags net.Flags, ip string) ifaceAddr {
		return ifaceAddr{name: name, flags: flags, ip: net.ParseIP(ip)}
	}
	for _, c := range []struct {
		addrs []ifaceAddr
		want  string
	}{
		{nil, "127.0.0.1"},
		{[]ifaceAddr{at("lo", up|net.FlagLoopback, "127.0.0.1")}, "127.0.0.1"},
		{[]ifaceAddr{at("docker0", up, "172.17.0.1"), at("eth0", up, "192.168.1.20")}, "192.168.1.20"},
		{[]ifaceAddr{at("eth0", up, "169.254.3.4"), at("wlan0", up, "10.0.0.7")}, "10.0.0.7"},
		{[]ifaceAddr{at("eth0", net.FlagBroadcast, "192.168.1.20"), at("eth1", up, "192.168.2.30")}, "192.168.2.30"},
		{[]ifaceAddr{at("eth0", up, "192.168.1.20"), at("eth1", up, "203.0.113.9")}, "203.0.113.9"},
		{[]ifaceAddr{at("eth0", up, "2001:db8::1"), at("br-1a2b", up, "172.18.0.1")}, "127.0.0.1"},
		{[]ifaceAddr{at("tailscale0", up, "100.101.102.103"), at("eth0", up, "192.168.1.20")}, "192.168.1.20"},
		{[]ifaceAddr{at("utun3", up, "198.18.0.1"), at("en0", up, "10.0.0.7")}, "10.0.0.7"},
		{[]ifaceAddr{at("wg0", up, "10.8.0.2"), at("en0", up, "192.168.1.20")}, "192.168.1.20"},
		{[]ifaceAddr{at("eth0", up, "100.64.1.1")}, "100.64.1.1"},
	} {
		if got := reachableIP(c.addrs); got != c.want {
			t.Errorf("reachableIP(%v) = %s, want %s", c.addrs, got, c.want)
		}
	}
}

// ownAddress reports whether ip is one of this machine's interface
// addresses.
func ownAddress(t *testing.T, ip net.IP) bool {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// TestDialer: each call connects anew, from a socket of its own, and a
// host that does not answer is given up after the timeout.
func TestDialer(t *testing.T) {
	hostT, addr := listenOnly(t, Config{})
	client, err := New(Config{Fingerprint: hostT.Fingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	dial := client.Dialer(addr, 5*time.Second)
	var conns []transport.Conn
	for range 2 {
		c, err := dial(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(transport.CloseNormal, "")
		conns = append(conns, c)
	}
	a, b := conns[0].(*Conn), conns[1].(*Conn)
	if a.qc.LocalAddr().String() == b.qc.LocalAddr().String() {
		t.Fatalf("two dials from the same socket %s", a.qc.LocalAddr())
	}

	// A socket nobody answers on.
	silent, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	slow, err := New(Config{InsecureSkipVerify: true, HandshakeTimeout: time.Minute, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := slow.Dialer(silent.LocalAddr().String(), 200*time.Millisecond)(context.Background())
	if err == nil {
		c.Close(transport.CloseNormal, "")
		t.Fatal("a dial to a silent socket connected")
	}
	if c != nil {
		// A nil *Conn in the interface: a caller's nil check passes and
		// its Close panics.
		t.Fatalf("a failed dial returned the connection %#v, want nil", c)
	}
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > 5*time.Second {
		t.Fatalf("a dial to a silent socket: %v after %v, want the 200 ms timeout", err, took)
	}
	if !strings.Contains(err.Error(), "UDP port is reachable") {
		t.Fatalf("a dial to a silent socket: %v; want it to say what to check", err)
	}
}

package transport

import "net"

// AddressKey is what per-address limits count by (a host's peers, pending
// connections and handshakes per address): an IPv4 address as it is, an
// IPv6 address by its /64 prefix, and any other address by its host part or
// its text. One subscriber holds a whole IPv6 /64 (2⁶⁴ addresses), so
// counting its addresses apart would let one machine pass every
// per-address limit; an IPv4-mapped IPv6 address counts as its IPv4
// address.
func AddressKey(a net.Addr) string {
	if a == nil {
		return ""
	}
	var ip net.IP
	switch v := a.(type) {
	case *net.UDPAddr:
		ip = v.IP
	case *net.TCPAddr:
		ip = v.IP
	default:
		host, _, err := net.SplitHostPort(a.String())
		if err != nil {
			return a.String()
		}
		if ip = net.ParseIP(host); ip == nil {
			return host
		}
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	if len(ip) == net.IPv6len {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

package session

import (
	"testing"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// What a refused connection sends while its Reject is on its way, which
// the host ignores, is counted (HostStats.AfterReject): each command and
// input sent after the Reject, over a perfect link. (They went uncounted.)
func TestWhatARefusedPeerSendsIsCounted(t *testing.T) {
	wd := newWorld(t, condition.Config{}, HostConfig{})
	r := wd.dialRaw(" bad name", wire.Version) // refused: RejectName
	wd.step()
	r.read()
	if _, ok := r.reject(); !ok {
		t.Fatal("no Reject")
	}
	cmd, _ := wire.Command{Op: 1, Kind: 0, Payload: []byte{1}}.Encode(nil)
	sent := 0
	var pn uint32
	for range 60 {
		for range 4 {
			if r.tc.SendMessage(transport.LaneCommands, cmd) == nil {
				sent++
			}
		}
		h := wire.Header{Numbered: true, Packet: pn, Floor: pn, ReorderFloor: pn}
		pn++
		b, _ := h.Append(nil)
		if r.tc.SendDatagram(wire.AppendMessage(b, wire.KindInput, []byte{1, 2, 3})) == nil {
			sent++
		}
		wd.step()
	}
	if got := wd.host.Stats().AfterReject; got != uint64(sent) {
		t.Fatalf("a refused peer sent %d messages after its Reject; the host counted %d", sent, got)
	}
}

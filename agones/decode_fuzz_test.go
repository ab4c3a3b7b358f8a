package agones

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzGameServer: any JSON the SDK server may send as a GameServer decodes
// or fails, never panics; what it decodes to encodes and decodes again to
// the same (its counts, Int64, read back as they were written).
func FuzzGameServer(f *testing.F) {
	f.Add([]byte(`{"object_meta":{"name":"gs-1","labels":{"tandem.dev/world":"arena"}},"status":{"state":"Allocated","players":{"count":"3","capacity":"8"}}}`))
	f.Add([]byte(`{"status":{"lists":{"players":{"capacity":12,"values":["1","2"]}}}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, p []byte) {
		var gs GameServer
		if json.Unmarshal(p, &gs) != nil {
			return
		}
		out, err := json.Marshal(&gs)
		if err != nil {
			t.Fatalf("%s decodes to %+v, which does not encode: %v", p, gs, err)
		}
		var again GameServer
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("%s encodes as %s, which does not decode: %v", p, out, err)
		}
		if !reflect.DeepEqual(again, gs) {
			t.Fatalf("%s decodes to %+v, which encodes as %s, which decodes to %+v", p, gs, out, again)
		}
	})
}

// FuzzInt64: a count reads from a JSON string or number, and what reads
// writes back to the same value.
func FuzzInt64(f *testing.F) {
	for _, s := range []string{`"12"`, `12`, `null`, `"-9223372036854775808"`, `"x"`, `1e3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var n Int64
		if n.UnmarshalJSON(p) != nil {
			return
		}
		out, err := n.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var again Int64
		if err := again.UnmarshalJSON(out); err != nil || again != n {
			t.Fatalf("%s reads %d, written %s, read again %d (%v)", p, n, out, again, err)
		}
	})
}

// FuzzErrorMessage: whatever body an SDK server answers with, the message
// is one line of valid UTF-8 (where the body is) of at most 300 bytes and an
// ellipsis.
func FuzzErrorMessage(f *testing.F) {
	f.Add([]byte(`{"code":2,"message":"gameserver not found","details":[]}`))
	f.Add([]byte("line one\nline two"))
	f.Add([]byte(`{"message":"` + strings.Repeat("é", 400) + `"}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		s := errorMessage(p)
		if strings.ContainsAny(s, "\n\r") || len(s) > 300+len("…") {
			t.Fatalf("%q gives the message %q", p, s)
		}
		if utf8.Valid(p) && !utf8.ValidString(s) {
			t.Fatalf("%q gives the message %q, not UTF-8", p, s)
		}
	})
}

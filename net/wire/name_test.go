package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	good := []string{"alice", "Zoë", "李小龍", "a b", "x-1_(2)!", strings.Repeat("n", MaxNameLen), "🙂"}
	for _, n := range good {
		if err := CheckName(n); err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", n, err)
		}
	}
	bad := map[string]string{
		"":                                "empty",
		strings.Repeat("n", MaxNameLen+1): "33 bytes",
		"ann\nhost: admin joined":         "not printable",
		"tab\there":                       "not printable",
		"bell\a":                          "not printable",
		"del\x7f":                         "not printable",
		"\u202eexe.gpj":                   "not printable", // right-to-left override
		"zero\u200bwidth":                 "not printable",
		"nb\u00a0sp":                      "not printable",
		" lead":                           "space",
		"trail ":                          "space",
		"\xff\xfe":                        "UTF-8",
	}
	for n, why := range bad {
		err := CheckName(n)
		if !errors.Is(err, ErrBadName) {
			t.Errorf("CheckName(%q) = %v, want ErrBadName", n, err)
			continue
		}
		if !strings.Contains(err.Error(), why) {
			t.Errorf("CheckName(%q) = %q, want it to say %q", n, err, why)
		}
	}
}

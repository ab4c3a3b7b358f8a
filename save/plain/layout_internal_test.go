package plain

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestWideLayoutIsADigest: a description past MaxLayout is a digest, the
// same for the same type and another for another.
func TestWideLayoutIsADigest(t *testing.T) {
	wide := func(n int) reflect.Type {
		var fields []reflect.StructField
		for i := range n {
			fields = append(fields, reflect.StructField{Name: fmt.Sprintf("AQuiteLongFieldName%03d", i), Type: reflect.TypeFor[float64]()})
		}
		return reflect.StructOf(fields)
	}
	a, b := plainLayout(wide(100)), plainLayout(wide(101))
	if !strings.HasPrefix(a, "sha256:") || len(a) > MaxLayout || a != plainLayout(wide(100)) || a == b {
		t.Fatalf("layouts of wide types %q and %q: want digests, the same for the same type", a, b)
	}
	if d := plainLayout(wide(3)); d != "{AQuiteLongFieldName000 float64; AQuiteLongFieldName001 float64; AQuiteLongFieldName002 float64}" {
		t.Fatalf("a narrow type's layout is %q", d)
	}
}

// An array of elements that take no space is not walked through, however
// many: nothing of it is written, and nothing in it can be refused.
func TestEmptyElementsAreNotWalked(t *testing.T) {
	type flagged struct {
		On   bool
		Tags [1 << 40]struct{}
	}
	e, err := Of[flagged]()
	if err != nil {
		t.Fatal(err)
	}
	if b := e.Append(nil, &flagged{On: true}); len(b) != 1 || b[0] != 1 {
		t.Fatalf("encoded % x, want the bool alone", b)
	}
}

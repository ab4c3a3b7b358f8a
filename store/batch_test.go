package store_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/store"
)

func TestBatchRange(t *testing.T) {
	var b store.Batch
	b.Put([]byte("c"), []byte("1"))
	b.Delete([]byte("a"))
	b.Put([]byte("b"), []byte("1"))
	b.Put([]byte("c"), []byte("2"))
	b.Put([]byte("a"), []byte("3"))
	b.Delete([]byte("d"))
	if b.Len() != 6 {
		t.Errorf("Len %d, want 6", b.Len())
	}
	var got []string
	_ = b.Range(func(k, v []byte, del bool) error {
		if del {
			got = append(got, string(k)+"-")
		} else {
			got = append(got, string(k)+"="+string(v))
		}
		return nil
	})
	if s := strings.Join(got, " "); s != "a=3 b=1 c=2 d-" {
		t.Errorf("Range gave %q, want \"a=3 b=1 c=2 d-\"", s)
	}
	b.Reset()
	if b.Len() != 0 || b.Size() != 0 {
		t.Errorf("after Reset: Len %d Size %d", b.Len(), b.Size())
	}
	n := 0
	_ = b.Range(func([]byte, []byte, bool) error { n++; return nil })
	if n != 0 {
		t.Errorf("empty batch ranged over %d operations", n)
	}
}

func TestBatchCopies(t *testing.T) {
	var b store.Batch
	k, v := []byte("key"), []byte("value")
	b.Put(k, v)
	k[0], v[0] = 'X', 'X'
	_ = b.Range(func(key, value []byte, _ bool) error {
		if string(key) != "key" || string(value) != "value" {
			t.Errorf("batch holds %q=%q after the caller changed its buffers", key, value)
		}
		return nil
	})
}

// A reused batch allocates nothing to fill or to range over.
func TestBatchNoAllocs(t *testing.T) {
	var b store.Batch
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "e/%06d", (i*7919)%1000)
	}
	val := make([]byte, 64)
	fill := func() {
		b.Reset()
		for _, k := range keys {
			b.Put(k, val)
		}
		_ = b.Range(func([]byte, []byte, bool) error { return nil })
	}
	fill()
	if a := testing.AllocsPerRun(20, fill); a != 0 {
		t.Errorf("filling a reused batch: %v allocations, want 0", a)
	}
}

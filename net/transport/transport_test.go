package transport

import "testing"

// TestAllocSize checks AllocSize against the allocator: appending n bytes
// to a nil slice gives a slice of exactly the block the runtime allocated.
// Sizes round up monotonically, so the sizes around every class boundary
// and a sample of large ones cover it.
func TestAllocSize(t *testing.T) {
	var sizes []int
	for _, c := range sizeClasses {
		sizes = append(sizes, c-1, c, c+1)
	}
	for n := 32 << 10; n <= 1<<20; n += 4093 {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		got := cap(append([]byte(nil), make([]byte, n)...))
		if AllocSize(n) != got {
			t.Fatalf("AllocSize(%d) = %d, the runtime allocates %d", n, AllocSize(n), got)
		}
	}
	if AllocSize(0) != 0 || MessageCost(1) != 8+MessageSlotBytes {
		t.Fatalf("AllocSize(0) = %d, MessageCost(1) = %d", AllocSize(0), MessageCost(1))
	}
}

package ecs

import (
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"
)

// componentIndex returns the number arche gives component id (0..255), for
// O(1) table lookups. arche keeps the number unexported; its ID is a struct
// holding that single byte, which the assertion below pins down at compile
// time, and TestComponentIndexMatchesArche checks against arche's own order.
func componentIndex(id arche.ID) uint8 {
	return *(*uint8)(unsafe.Pointer(&id))
}

// The conversion above is only valid while arche.ID is exactly one byte.
var _ [1]struct{} = [unsafe.Sizeof(arche.ID{})]struct{}{}

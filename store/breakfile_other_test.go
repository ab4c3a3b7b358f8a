//go:build !linux

package store_test

import (
	"errors"
	"fmt"
	"os"
)

// breakFile is Linux's only (it points the descriptor at /dev/full with
// dup3): elsewhere the test that needs it is skipped.
func breakFile(*os.File) error {
	return fmt.Errorf("breaking a bolt file needs Linux's /dev/full and dup3: %w", errors.ErrUnsupported)
}

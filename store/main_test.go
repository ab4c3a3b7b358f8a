package store_test

import (
	"os"
	"testing"

	"github.com/tandem-go/tandem/store/storetest"
)

func TestMain(m *testing.M) {
	if target := os.Getenv(crashChildEnv); target != "" {
		crashChild(target) // never returns: killed, or exits with an error
	}
	os.Exit(storetest.Main(m))
}

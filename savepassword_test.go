package tandem_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
)

// A host that cannot reach its PostgreSQL save says so in an error that
// operators log; the URL's password must not be in it.
func TestSaveErrorsHideThePassword(t *testing.T) {
	for _, url := range []string{
		"postgres://tandem:s3cretPW@127.0.0.1:1/tandem?sslmode=disable&connect_timeout=1",
		"postgres://tandem@127.0.0.1:1/tandem?sslmode=disable&sslpassword=s3cretPW&connect_timeout=1", // a client key's passphrase
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := tandem.OpenSave(ctx, url, "w")
		cancel()
		if err == nil {
			t.Fatal("opened")
		}
		if strings.Contains(err.Error(), "s3cretPW") {
			t.Errorf("OpenSave's error holds the password: %v", err)
		}
		_, err = tandem.NewHost(shop, tandem.HostConfig{SaveTo: url})
		if err == nil {
			t.Fatal("NewHost opened")
		}
		if strings.Contains(err.Error(), "s3cretPW") {
			t.Errorf("NewHost's error holds the password: %v", err)
		}
	}
}

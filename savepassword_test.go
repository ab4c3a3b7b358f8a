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
	const url = "postgres://tandem:s3cretPW@127.0.0.1:1/tandem?sslmode=disable&connect_timeout=1"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := tandem.OpenSave(ctx, url, "w")
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

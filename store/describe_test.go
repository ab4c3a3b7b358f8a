package store

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// Describe leaves a PostgreSQL URL's password out, in its user part or its
// query, and a file path as it is.
func TestDescribeHidesThePassword(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/var/lib/game/world.db", "/var/lib/game/world.db"},
		{"postgres://tandem:s3cret@db:5432/tandem?sslmode=disable", "postgres://tandem:xxxxx@db:5432/tandem?sslmode=disable"},
		{"postgresql://tandem@db/tandem?password=s3cret&sslmode=disable", "postgresql://tandem@db/tandem?password=xxxxx&sslmode=disable"},
		{"postgres://db/tandem", "postgres://db/tandem"},
		{"postgres://tandem@db/tandem?sslkey=/k.pem&sslpassword=K3y&sslmode=verify-full", "postgres://tandem@db/tandem?sslkey=%2Fk.pem&sslmode=verify-full&sslpassword=xxxxx"},
		{"postgres://tandem:s3cret@db:bad port/x", "a PostgreSQL URL that does not parse"},
		// A URL's scheme is case-insensitive.
		{"POSTGRES://tandem:s3cret@db/tandem", "postgres://tandem:xxxxx@db/tandem"},
		{"PostgreSQL://db/tandem?password=s3cret", "postgresql://db/tandem?password=xxxxx"},
	} {
		if got := Describe(tc.in); got != tc.want {
			t.Errorf("Describe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A target whose scheme is PostgreSQL's in another case is a database, not
// a file: Open dials it (nothing listens on the port) and makes no file.
func TestOpenTakesAnUpperCaseSchemeForPostgres(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Chdir(t.TempDir())
	_, err = Open(context.Background(), "POSTGRES://tandem@"+addr+"/tandem?sslmode=disable", Options{Timeout: 5 * time.Second})
	if err == nil {
		t.Fatal("Open reached a database on a closed port")
	}
	if errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "connecting to PostgreSQL") {
		t.Fatalf("Open did not dial the database: %v", err)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Fatalf("Open made %s, a file for a PostgreSQL URL", entries[0].Name())
	}
}

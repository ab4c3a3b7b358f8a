package store

import "testing"

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
	} {
		if got := Describe(tc.in); got != tc.want {
			t.Errorf("Describe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

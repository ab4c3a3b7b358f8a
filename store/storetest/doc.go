// Package storetest helps test code that keeps worlds in a store.
//
//   - Conformance runs the suite every store.DB implementation passes (the
//     store package runs it against bbolt and PostgreSQL).
//   - PostgresURL gives a test a fresh schema in a PostgreSQL server private
//     to the test binary, started on first use and stopped by Main (call it
//     from TestMain). It skips when no server binaries are found, unless
//     TANDEM_REQUIRE_POSTGRES is set, as make test does.
//   - Crash runs kill -9 trials of a child process that reports durable
//     steps on its standard output, and prints "trials=N lost=L".
//   - Faulty wraps a store.World to block or fail its commits, for tests of
//     what a host does while its store is slow or broken.
package storetest

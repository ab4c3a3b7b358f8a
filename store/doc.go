// Package store keeps worlds durably: each world is a set of keyed binary
// records, and a commit applies a set of puts and deletes atomically, so a
// save costs what changed since the last one. It knows nothing of entities;
// the layer that saves a world decides what a key means (one key per entity
// or per chunk, a meta record, the players, the receipts).
//
// Two backends sit behind one interface, chosen by the target given to Open:
//
//	store.Open(ctx, "worlds.db", opts)                  // bbolt: one local file
//	store.Open(ctx, "postgres://host/db?...", opts)     // PostgreSQL (pgx)
//
// # Worlds and leases
//
// DB.OpenWorld takes a world's lease: the world gets a new epoch, one more than
// the last holder's, and the returned World writes with that epoch. A world
// belongs to one writer at a time. Taking a lease never waits for the previous
// holder: the newest taker wins, and from that moment every Commit or SetMeta
// of an older holder is refused with an error that matches ErrFenced (a
// *FencedError says who took the world) and writes nothing. A fenced World
// stays fenced; its holder should stop the world and close it. There is no
// lease expiry: whoever starts a world (an allocation, a restarted host) takes
// it.
//
// With bbolt the file is locked by whoever opened it (a second opener, in
// this process or another, waits Options.Timeout, then gets an error
// matching ErrLocked), so
// leases order the worlds of one process and the processes that open the file
// one after the other. With PostgreSQL any number of hosts share the
// database and the lease is what keeps a world to one of them.
//
// # Durability and atomicity
//
// When Commit returns nil the batch is durable: bbolt has fsynced the file,
// PostgreSQL has committed the transaction (fsync and synchronous_commit as
// the server is configured; the defaults are durable). A commit is all or
// nothing, and its records are read back by Load exactly as they were put.
//
// A Commit that fails for any other reason than ErrFenced or ErrInvalid may or
// may not have been applied (the disk or the connection failed in the middle).
// Puts and deletes are idempotent, so retry the same batch: the World closes
// and reopens what failed (the bbolt file, the PostgreSQL connection) before
// its next operation. The sequence number Commit returns tells which commit
// landed last.
//
// # Loading and corruption
//
// Load calls a function with every record of the newest commit, in key order,
// and returns that commit's sequence number (0 for a world never committed).
// Every record carries a CRC-32C of its key and value; a record that fails it
// is an error matching ErrCorrupt (a *CorruptError names the key), a record or
// store of an unknown format one matching ErrFormat, and a bbolt file whose
// pages are damaged is ErrCorrupt too (bbolt's panics are recovered, and the
// freelist page, which has no checksum and whose count bbolt allocates by,
// is checked before bbolt reads it). A host
// must refuse to start when Load fails: starting empty would overwrite the
// world on the next save.
//
// # Meta records
//
// Beside its records a world keeps small named blobs outside the save's key
// space: Meta and SetMeta. A host keeps its identity there (its certificate
// and QUIC stateless-reset key), so a restarted host is the same host to its
// players. SetMeta is fenced and durable like Commit.
//
// # Listing and erasing worlds
//
// DB.Worlds lists the worlds that hold a commit, for an operator (it takes
// no lease). World.Erase empties a world (records, meta, sequence) in one
// fenced, durable step under the lease: a host then starts it new. Worlds
// are never removed from the store's lease table, so a world erased and
// taken again continues its epochs, and a holder from before stays fenced.
//
// # Concurrency
//
// DB and World are safe for concurrent use; a World runs one operation at a
// time, in the order the calls take its lock. Commits are slow (milliseconds:
// two fsyncs with bbolt), so call them off the simulation goroutine: the
// intended use is one committer goroutine per world that receives batches in
// order. Load the world before its first Commit. A Batch belongs to its caller
// and must not be changed while a Commit that was given it runs; once Commit
// returns the batch can be Reset and filled again, and a filled batch costs no
// allocation in steady state, so two batches (one filling on the simulation
// goroutine, one committing) need no garbage at all.
package store

// Package save keeps a world in a store (package store) so that it outlives
// its process: every networked entity with its saved components at full
// precision, the game's saved state, the frame and the network-id counter,
// and the records the layer above keeps with them (players, receipts), as one
// set of records written atomically. A save costs what changed since the last
// one, never the world.
//
// In the pipeline it sits beside replication, on the same change journal
// (package ecs): a Schema says what is saved (Component with an exact Codec,
// State for a resource, Skip for what a restore rebuilds); a Tracker, the
// schedule's last system, notes each frame which entities changed, and Fill
// writes those into a store.Batch on the simulation goroutine; a Committer
// commits the batch on a goroutine of its own and reports the outcome, so the
// simulation never waits for a disk. Load restores the newest save into a
// fresh world.
//
// What is saved must be reported: a saved component's writes through
// ecs.MutateComponent (Component marks host-only components journaled, so
// their reports reach the journal like a replicated component's), its
// addition and removal through arche (the Tracker listens), an entity's
// creation, removal and new owner through the network index. A write nobody
// reports is in the next save only if something else of the entity changed.
// States (resources) are compared with their last saved encoding at every
// save instead.
//
// # Records
//
// Keys begin with a byte saying what they hold; values are as below, in the
// encodings of net/wire (uvarint, bytes, string; fixed-width integers
// little-endian). Every record also carries the store's own checksum.
//
//	01                     head: format u8 (2), frame u32, next network id u32,
//	                       entity records uvarint, state records uvarint,
//	                       records of the layer above uvarint, then the
//	                       world's lineage (ecs.World.Lineage): runs u8
//	                       (1 to ecs.MaxLineage), each run's name u64 and
//	                       first fresh network id u32, oldest first, the
//	                       writing run last. A save of format 1 ends after
//	                       the counts: its world restores knowing no run
//	                       before its own.
//	02                     schema: count uvarint, then each saved component's
//	                       name (string), in the order of the entity masks;
//	                       then each one's Codec.Layout (string), in the same
//	                       order, and the states: count uvarint, then each
//	                       name (string) and Layout (string). A save written
//	                       before layouts were recorded ends after the names:
//	                       it restores unchecked, and the next save writes
//	                       this record again, whole.
//	03 id(u32, big-endian) entity: owner uvarint, mask uvarint (bit i: the
//	                       schema's component i is present), then each present
//	                       component's exact encoding as bytes, in mask order
//	04 name                state: the resource's exact encoding
//	10-ff ...              the layer above's (Tracker.Put)
//
// A restore reads them in key order and checks them against the head: the
// counts, the id counter above every id saved, every component and state
// known to the schema, saved with the layout its codec has now (where both
// give one), and read by its codec to the last byte. A save that does
// not fit is an ErrMismatch, bytes that fail their checksum store.ErrCorrupt,
// another layout store.ErrFormat: a host refuses to start on any of them
// rather than start empty and overwrite the save.
//
// Threads: Schema, Tracker and Committer belong to the world's simulation
// goroutine; the Committer's commits run on its own.
package save

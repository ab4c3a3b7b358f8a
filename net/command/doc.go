// Package command is the bookkeeping of commands with receipts (PROTOCOL.md
// §11): a player's request that the host change the world once, and the
// host's answer, which says that it did.
//
// On the host a Book keeps one player's receipts by operation id, so a
// command sent again gets its first answer and never runs twice, another
// command under a kept id is a conflict, and an id older than every receipt
// kept is expired; Withheld holds each receipt until the save that holds its
// command is durable, then lets them go in order; a Limiter bounds the
// commands a player makes the host take. On the client an Outbox numbers
// each new operation, keeps every command until its receipt comes, and gives
// them back in order to send again on a new connection.
//
// It sits under net/session and the facade, beside net/predict: it knows
// the wire's Command and Receipt (net/wire) and nothing of the world. What a
// command does is the game's; when a receipt may go is the save's.
//
// Threads: nothing here is safe for concurrent use; each value belongs to
// its side's simulation goroutine.
package command

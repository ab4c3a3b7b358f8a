package tandem

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// A client's kept ticket (ClientConfig.TicketFile): read at NewClient, so a
// new process of the game takes the player's place back; written at each
// admission that gives another; removed when the player leaves on purpose
// (Close).

// readTicketFile returns the ticket kept in the file at path: zero, and no
// error, when there is no file.
func readTicketFile(path string) (Ticket, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Ticket{}, nil
	}
	if err != nil {
		return Ticket{}, err
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o022 != 0 { // Windows' modes say read-only or not
		return Ticket{}, fmt.Errorf("%s: others than its owner may write it (mode %v), so it is not taken; make it 0600", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Ticket{}, err
	}
	var t Ticket
	if err := t.UnmarshalText(bytes.TrimSpace(b)); err != nil {
		return Ticket{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// writeTicketFile keeps t in the file at path, readable and writable by its
// owner alone: written beside it, synced, and renamed over it, so that a
// process or a machine that stops meanwhile leaves the ticket before or the
// new one, never part of one.
func writeTicketFile(path string, t Ticket) error {
	text, _ := t.MarshalText()
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(text, '\n'))
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync() // on the disk before it takes the old one's name
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// keepTicket writes the client's ticket to its TicketFile when the host's
// admission gave one it has not written. It runs on the simulation
// goroutine; a file it cannot write is told to the Logger, and the game
// plays on (its next process joins as a new player).
func (c *Client[I]) keepTicket() {
	t, ok := c.session.Ticket()
	if c.cfg.TicketFile == "" || !ok || t == c.written {
		return
	}
	if err := writeTicketFile(c.cfg.TicketFile, t); err != nil {
		c.mu.logger().Warn("tandem: the player's ticket could not be kept; a new process of the game will join as a new player", "file", c.cfg.TicketFile, "err", err)
		return
	}
	c.written = t
}

// dropTicket removes the TicketFile after the player left on purpose (the
// host let the place go), if it holds the ticket this client wrote: not
// one another process took the place with since.
func (c *Client[I]) dropTicket() {
	if c.cfg.TicketFile == "" || c.written.IsZero() {
		return
	}
	if kept, err := readTicketFile(c.cfg.TicketFile); err != nil || kept != c.written {
		return // another process's now, or none
	}
	if err := os.Remove(c.cfg.TicketFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.mu.logger().Warn("tandem: the player's ticket could not be removed after the leave; the next process of the game will find it refused and join as a new player", "file", c.cfg.TicketFile, "err", err)
	}
	c.written = Ticket{}
}

// ticketFor returns cfg's Ticket if it may go on the first connection tc:
// for this client's role, to the host that gave it (tc's identity). One
// that may not is dropped, the Logger told: the client joins as a new
// player.
func ticketFor[I comparable](cfg ClientConfig[I], tc transport.Conn) Ticket {
	t := cfg.Ticket
	switch {
	case t.IsZero():
	case t.Spectator != cfg.Spectator:
		loggerOr(cfg.Logger).Warn("tandem: the kept ticket is of the other role (a spectator's for a player, or a player's for a spectator); joining without it", "ticket", t)
		return Ticket{}
	case t.Host != transport.IdentityOf(tc):
		loggerOr(cfg.Logger).Warn("tandem: the kept ticket is another host's (the certificate differs); joining as a new player without sending it", "ticket", t)
		return Ticket{}
	}
	return t
}

// refusedTicket removes the TicketFile when the host refused the kept
// ticket the client read from it (err: the refusal, RejectResume): that
// place is over, and the next process must not be refused again. A ticket
// not sent (another host's) stays.
func (c *Client[I]) refusedTicket(err error) {
	var rj *session.RejectError
	t := c.cfg.Ticket
	if c.cfg.TicketFile == "" || t.IsZero() || !errors.As(err, &rj) || rj.Code != wire.RejectResume {
		return
	}
	if kept, rerr := readTicketFile(c.cfg.TicketFile); rerr != nil || kept != t {
		return // a newer one is there, or none
	}
	if rerr := os.Remove(c.cfg.TicketFile); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		c.mu.logger().Warn("tandem: the refused ticket could not be removed; the next process of the game will be refused too and join as a new player", "file", c.cfg.TicketFile, "err", rerr)
	}
}

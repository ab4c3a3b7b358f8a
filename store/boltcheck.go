package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
)

// The parts of bbolt's file format (version 2) boltFreelistCheck reads: a
// page begins with a 16-byte header (id u64, flags u16, count u16, overflow
// u32); pages 0 and 1 hold a meta (magic u32, version u32, page size u32,
// flags u32, root bucket 16 bytes, freelist page u64, high-water page u64,
// txid u64, then the FNV-1a 64 of those 56 bytes).
const (
	boltPageHeader   = 16
	boltMetaSize     = 64
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	boltFreelistFlag = 0x10
	boltNoFreelist   = ^uint64(0)
)

// boltMeta is what boltFreelistCheck reads of a meta page.
type boltMeta struct {
	pageSize             int64
	freelist, high, txid uint64
}

// readBoltMeta reads the meta page at off of f, and reports whether it is
// one (its magic, version and checksum hold).
func readBoltMeta(f io.ReaderAt, off int64) (boltMeta, bool) {
	var b [boltPageHeader + boltMetaSize]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return boltMeta{}, false
	}
	m := b[boltPageHeader:]
	h := fnv.New64a()
	h.Write(m[:56])
	le := binary.LittleEndian
	if le.Uint32(m[0:]) != boltMagic || le.Uint32(m[4:]) != boltVersion || h.Sum64() != le.Uint64(m[56:]) {
		return boltMeta{}, false
	}
	return boltMeta{pageSize: int64(le.Uint32(m[8:])), freelist: le.Uint64(m[32:]), high: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, true
}

// boltFreelistCheck checks, before bbolt opens path, the one part of the file
// bbolt trusts without a checksum and sizes an allocation by: the freelist
// page the newest valid meta page names. bbolt copies its ids into a slice
// of the count the page states, so a damaged count (its 64-bit form reaches
// 2⁶⁴) makes it ask for terabytes, and the process dies of it: no panic to
// recover. A count the page cannot hold is a *CorruptError here. It reads
// under a shared lock, so no writer changes the file meanwhile. A file that
// does not exist yet, is held by a writer (bbolt then waits for it), or
// whose meta pages bbolt will refuse itself passes.
func boltFreelistCheck(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: opening %s: %w", path, err)
	}
	defer f.Close()
	unlock, ok := lockShared(f)
	if !ok {
		return nil // another process writes it: bbolt waits for it, and says so
	}
	defer unlock()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("store: opening %s: %w", path, err)
	}
	size := st.Size()
	m, ok := readBoltMeta(f, 0)
	second := int64(os.Getpagesize())
	if ok {
		second = m.pageSize
	}
	if m1, ok1 := readBoltMeta(f, second); ok1 && (!ok || m1.txid > m.txid) {
		m, ok = m1, true
	}
	if !ok || m.freelist == boltNoFreelist {
		return nil
	}
	bad := func(why string) error {
		return &CorruptError{Reason: fmt.Sprintf("the freelist page %d of %s %s", m.freelist, path, why)}
	}
	ps := m.pageSize
	if ps < boltPageHeader+8 || m.freelist < 2 || m.freelist >= m.high || m.freelist > uint64(size/ps) {
		return bad("is outside the file")
	}
	at := int64(m.freelist) * ps
	var h [boltPageHeader + 8]byte
	if _, err := f.ReadAt(h[:], at); err != nil {
		return bad("cannot be read: " + err.Error())
	}
	le := binary.LittleEndian
	if le.Uint16(h[8:]) != boltFreelistFlag {
		return bad("is not a freelist page")
	}
	count, head := uint64(le.Uint16(h[10:])), int64(boltPageHeader)
	if count == 0xFFFF {
		count, head = le.Uint64(h[boltPageHeader:]), boltPageHeader+8
	}
	room := min((int64(le.Uint32(h[12:]))+1)*ps, size-at)
	if room < head || count > uint64(room-head)/8 {
		return bad(fmt.Sprintf("states %d free pages, more than it holds", count))
	}
	return nil
}

package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"go.etcd.io/bbolt"
	bberrors "go.etcd.io/bbolt/errors"
)

// The bbolt file's layout:
//
//	bucket "tandem": key "format" = boltFormat
//	bucket "worlds": one bucket per world, named by the world's name, holding
//	    key "lease"  framed: epoch u64, taken unix ns i64, holder (little-endian)
//	    key "seq"    framed: u64, the last commit's sequence number
//	    bucket "r"   the records, framed
//	    bucket "m"   the meta records, framed
//
// Every value but the format is framed (frame.go).
var (
	bucketTandem  = []byte("tandem")
	bucketWorlds  = []byte("worlds")
	bucketRecords = []byte("r")
	bucketMeta    = []byte("m")
	keyFormat     = []byte("format")
	keyLease      = []byte("lease")
	keySeq        = []byte("seq")
)

const boltFormat = "tandem-store/1"

// boltDB is a store in one bbolt file.
type boltDB struct {
	path   string
	holder string
	bopts  bbolt.Options

	mu     sync.RWMutex // guards db, file and closed; held for writing to reopen
	db     *bbolt.DB
	file   *os.File // the file bbolt opened (tests break it)
	closed bool

	faultMu sync.Mutex
	broken  error // set by a failed commit: reopen before the next use
}

// OpenBolt opens (creating when missing) the bbolt store at path. Open calls
// it for any target that is not a PostgreSQL URL.
func OpenBolt(path string, opts Options) (DB, error) {
	if path == "" {
		return nil, invalidf("an empty file path")
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = time.Second
	}
	d := &boltDB{path: path, holder: opts.holder()}
	d.bopts = bbolt.Options{Timeout: timeout, FreelistType: bbolt.FreelistMapType}
	d.bopts.OpenFile = func(name string, flag int, mode os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(name, flag, mode)
		if err == nil {
			d.file = f
		}
		return f, err
	}
	if err := d.open(); err != nil {
		return nil, err
	}
	return d, nil
}

// open opens the file and checks or writes its format. d.mu is held for
// writing (or d is not shared yet).
func (d *boltDB) open() (err error) {
	var db *bbolt.DB
	defer func() {
		if p := recover(); p != nil {
			func() {
				defer func() { _ = recover() }()
				if db != nil {
					db.Close()
				} else if d.file != nil {
					d.file.Close() // bbolt panicked in Open: release its lock
				}
			}()
			err = &CorruptError{Reason: "opening " + d.path + " panicked", Err: fmt.Errorf("%v", p)}
		}
	}()
	if err := boltFreelistCheck(d.path); err != nil {
		return err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	db, err = bbolt.Open(d.path, 0o600, &d.bopts)
	switch {
	case errors.Is(err, bberrors.ErrTimeout):
		return fmt.Errorf("%w: %s is held by another host, in this process or another (waited %v): close the other host of this file, or give this one another file", ErrLocked, d.path, d.bopts.Timeout)
	case errors.Is(err, bberrors.ErrInvalid) || errors.Is(err, bberrors.ErrVersionMismatch):
		return &FormatError{Where: d.path, Found: "not a bbolt file of this version (" + err.Error() + ")", Want: boltFormat}
	case errors.Is(err, bberrors.ErrChecksum):
		return &CorruptError{Reason: "bbolt meta pages of " + d.path + " fail their checksum", Err: err}
	case err != nil:
		return fmt.Errorf("store: opening %s: %w", d.path, err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		root := tx.Bucket(bucketTandem)
		if root == nil {
			empty := true
			_ = tx.ForEach(func([]byte, *bbolt.Bucket) error { empty = false; return nil })
			if !empty {
				return &FormatError{Where: d.path, Found: "a bbolt file of something else", Want: boltFormat}
			}
			root, err := tx.CreateBucket(bucketTandem)
			if err != nil {
				return err
			}
			if err := root.Put(keyFormat, []byte(boltFormat)); err != nil {
				return err
			}
			_, err = tx.CreateBucket(bucketWorlds)
			return err
		}
		if f := root.Get(keyFormat); string(f) != boltFormat {
			return &FormatError{Where: d.path, Found: fmt.Sprintf("%q", f), Want: boltFormat}
		}
		if tx.Bucket(bucketWorlds) == nil {
			return &CorruptError{Reason: d.path + " has no worlds bucket"}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return err
	}
	d.db = db
	d.setBroken(nil)
	return nil
}

func (d *boltDB) fault() error {
	d.faultMu.Lock()
	defer d.faultMu.Unlock()
	return d.broken
}

// setBroken marks the handle to be reopened before its next use (nil: it is
// sound).
func (d *boltDB) setBroken(err error) {
	d.faultMu.Lock()
	if err == nil || d.broken == nil {
		d.broken = err
	}
	d.faultMu.Unlock()
}

// recoverCorrupt turns a panic (bbolt panics on some corrupt pages) into a
// CorruptError in *err.
func recoverCorrupt(err *error, world, doing string) {
	if p := recover(); p != nil {
		*err = &CorruptError{World: world, Reason: doing + " panicked", Err: fmt.Errorf("%v", p)}
	}
}

// use runs fn with the open bbolt handle, reopening it first if a commit
// failed.
func (d *boltDB) use(fn func(db *bbolt.DB) error) error {
	if cause := d.fault(); cause != nil {
		d.mu.Lock()
		if d.fault() != nil && !d.closed {
			if d.db != nil {
				d.db.Close()
				d.db = nil
			}
			if err := d.open(); err != nil {
				d.mu.Unlock()
				return fmt.Errorf("store: reopening %s after %v: %w", d.path, cause, err)
			}
		}
		d.mu.Unlock()
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return ErrClosed
	}
	if d.db == nil {
		return fmt.Errorf("store: %s is not open after a failed reopen: retry", d.path)
	}
	return fn(d.db)
}

// update runs fn in a read-write transaction and commits it. An error of fn
// rolls it back and is returned as is; a failed commit or a panic marks the
// handle for reopening.
func (d *boltDB) update(world string, fn func(tx *bbolt.Tx) error) error {
	return d.use(func(db *bbolt.DB) (err error) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		var tx *bbolt.Tx
		defer func() {
			if p := recover(); p != nil {
				if tx != nil {
					func() {
						defer func() { _ = recover() }()
						_ = tx.Rollback()
					}()
				}
				err = &CorruptError{World: world, Reason: "writing " + d.path + " panicked", Err: fmt.Errorf("%v", p)}
				d.setBroken(err)
			}
		}()
		tx, err = db.Begin(true)
		if err != nil {
			err = fmt.Errorf("store: writing world %q to %s: %w (the file is reopened on the next call; retry)", world, d.path, err)
			d.setBroken(err)
			return err
		}
		if err := fn(tx); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			err = fmt.Errorf("store: committing world %q to %s: %w (the file is reopened on the next call; retry the commit)", world, d.path, err)
			d.setBroken(err)
			return err
		}
		return nil
	})
}

// view runs fn in a read-only transaction, turning panics into CorruptError.
func (d *boltDB) view(world string, fn func(tx *bbolt.Tx) error) error {
	return d.use(func(db *bbolt.DB) (err error) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer recoverCorrupt(&err, world, "reading "+d.path)
		return db.View(fn)
	})
}

func (d *boltDB) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	if d.db == nil {
		return nil
	}
	return d.db.Close()
}

func (d *boltDB) OpenWorld(ctx context.Context, name string) (World, error) {
	if err := checkWorldName(name); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lease := Lease{World: name, Holder: d.holder, Taken: time.Now()}
	err := d.update(name, func(tx *bbolt.Tx) error {
		worlds := tx.Bucket(bucketWorlds)
		wb := worlds.Bucket([]byte(name))
		if wb == nil {
			var err error
			if wb, err = worlds.CreateBucket([]byte(name)); err != nil {
				return err
			}
			if _, err := wb.CreateBucket(bucketRecords); err != nil {
				return err
			}
			if _, err := wb.CreateBucket(bucketMeta); err != nil {
				return err
			}
			if err := wb.Put(keySeq, appendFrame(nil, keySeq, binary.LittleEndian.AppendUint64(nil, 0))); err != nil {
				return err
			}
		} else {
			old, err := readLease(name, wb)
			if err != nil {
				return err
			}
			lease.Epoch, lease.Previous = old.Epoch, old.Holder
		}
		lease.Epoch++
		return wb.Put(keyLease, appendFrame(nil, keyLease, encodeLease(lease)))
	})
	if err != nil {
		return nil, err
	}
	return &boltWorld{db: d, name: name, lease: lease}, nil
}

func (d *boltDB) Worlds(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var names []string
	err := d.view("", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketWorlds).ForEachBucket(func(name []byte) error {
			seq, err := readSeq(string(name), tx.Bucket(bucketWorlds).Bucket(name))
			if err != nil {
				return err
			}
			if seq > 0 {
				names = append(names, string(name))
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return names, nil
}

func encodeLease(l Lease) []byte {
	p := binary.LittleEndian.AppendUint64(nil, l.Epoch)
	p = binary.LittleEndian.AppendUint64(p, uint64(l.Taken.UnixNano()))
	return append(p, l.Holder...)
}

func readLease(world string, wb *bbolt.Bucket) (Lease, error) {
	p, err := unframe(world, keyLease, wb.Get(keyLease))
	if err != nil {
		return Lease{}, err
	}
	return decodeLease(world, p)
}

// decodeLease reads what encodeLease wrote.
func decodeLease(world string, p []byte) (Lease, error) {
	if len(p) < 16 {
		return Lease{}, &CorruptError{World: world, Key: clone(keyLease), Reason: "lease record too short"}
	}
	return Lease{
		World:  world,
		Epoch:  binary.LittleEndian.Uint64(p),
		Taken:  time.Unix(0, int64(binary.LittleEndian.Uint64(p[8:]))),
		Holder: string(p[16:]),
	}, nil
}

func readSeq(world string, wb *bbolt.Bucket) (uint64, error) {
	p, err := unframe(world, keySeq, wb.Get(keySeq))
	if err != nil {
		return 0, err
	}
	if len(p) != 8 {
		return 0, &CorruptError{World: world, Key: clone(keySeq), Reason: "sequence record of the wrong size"}
	}
	return binary.LittleEndian.Uint64(p), nil
}

// boltWorld is a world of a boltDB under a lease.
type boltWorld struct {
	db    *boltDB
	name  string
	lease Lease

	mu     sync.Mutex // one operation at a time; guards the fields below
	closed bool
	arena  []byte // framed values of the commit under way (bbolt keeps them until it commits)
}

func (w *boltWorld) Name() string { return w.name }
func (w *boltWorld) Lease() Lease { return w.lease }

// bucket returns the world's bucket after checking the lease.
func (w *boltWorld) bucket(tx *bbolt.Tx) (*bbolt.Bucket, error) {
	wb := tx.Bucket(bucketWorlds).Bucket([]byte(w.name))
	if wb == nil {
		return nil, &CorruptError{World: w.name, Reason: "the world's bucket is missing"}
	}
	l, err := readLease(w.name, wb)
	if err != nil {
		return nil, err
	}
	if l.Epoch != w.lease.Epoch {
		return nil, &FencedError{World: w.name, Epoch: w.lease.Epoch, Now: l.Epoch, Holder: l.Holder}
	}
	return wb, nil
}

func (w *boltWorld) begin(ctx context.Context) error {
	if w.closed {
		return ErrClosed
	}
	return ctx.Err()
}

func (w *boltWorld) Load(ctx context.Context, fn func(key, value []byte) error) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return 0, err
	}
	var seq uint64
	err := w.db.view(w.name, func(tx *bbolt.Tx) error {
		wb, err := w.bucket(tx)
		if err != nil {
			return err
		}
		if seq, err = readSeq(w.name, wb); err != nil {
			return err
		}
		rb := wb.Bucket(bucketRecords)
		if rb == nil {
			return &CorruptError{World: w.name, Reason: "the records bucket is missing"}
		}
		c := rb.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			p, err := unframe(w.name, k, v)
			if err != nil {
				return err
			}
			if err := fn(k, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return seq, nil
}

func (w *boltWorld) Commit(ctx context.Context, b *Batch) (uint64, error) {
	if err := b.check(); err != nil {
		return 0, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return 0, err
	}
	var seq uint64
	err := w.db.update(w.name, func(tx *bbolt.Tx) error {
		wb, err := w.bucket(tx)
		if err != nil {
			return err
		}
		if seq, err = readSeq(w.name, wb); err != nil {
			return err
		}
		seq++
		rb := wb.Bucket(bucketRecords)
		w.arena = w.arena[:0]
		err = b.Range(func(k, v []byte, del bool) error {
			if del {
				return rb.Delete(k)
			}
			start := len(w.arena)
			w.arena = appendFrame(w.arena, k, v)
			return rb.Put(k, w.arena[start:len(w.arena):len(w.arena)])
		})
		if err != nil {
			return err
		}
		var p [8]byte
		binary.LittleEndian.PutUint64(p[:], seq)
		return wb.Put(keySeq, appendFrame(nil, keySeq, p[:]))
	})
	if err != nil {
		return 0, err
	}
	return seq, nil
}

func (w *boltWorld) Meta(ctx context.Context, name string) ([]byte, bool, error) {
	if err := checkMeta(name, nil); err != nil {
		return nil, false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return nil, false, err
	}
	var out []byte
	var ok bool
	err := w.db.view(w.name, func(tx *bbolt.Tx) error {
		wb, err := w.bucket(tx)
		if err != nil {
			return err
		}
		v := wb.Bucket(bucketMeta).Get([]byte(name))
		if v == nil {
			return nil
		}
		p, err := unframe(w.name, []byte(name), v)
		if err != nil {
			return err
		}
		out, ok = clone(p), true
		return nil
	})
	return out, ok, err
}

func (w *boltWorld) SetMeta(ctx context.Context, name string, value []byte) error {
	if err := checkMeta(name, value); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	return w.db.update(w.name, func(tx *bbolt.Tx) error {
		wb, err := w.bucket(tx)
		if err != nil {
			return err
		}
		mb := wb.Bucket(bucketMeta)
		if value == nil {
			return mb.Delete([]byte(name))
		}
		return mb.Put([]byte(name), appendFrame(nil, []byte(name), value))
	})
}

func (w *boltWorld) Erase(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.begin(ctx); err != nil {
		return err
	}
	return w.db.update(w.name, func(tx *bbolt.Tx) error {
		wb, err := w.bucket(tx)
		if err != nil {
			return err
		}
		for _, b := range [][]byte{bucketRecords, bucketMeta} {
			if err := wb.DeleteBucket(b); err != nil {
				return err
			}
			if _, err := wb.CreateBucket(b); err != nil {
				return err
			}
		}
		return wb.Put(keySeq, appendFrame(nil, keySeq, binary.LittleEndian.AppendUint64(nil, 0)))
	})
}

func (w *boltWorld) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return nil
}

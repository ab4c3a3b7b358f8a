package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// The PostgreSQL schema, created when missing in the first schema of the
// connection's search_path (give search_path in the URL to keep several
// stores in one database). Values are framed as in bbolt (frame.go).
const pgSchema = `
CREATE TABLE IF NOT EXISTS tandem_store (
	format text NOT NULL
);
CREATE TABLE IF NOT EXISTS tandem_worlds (
	name     text PRIMARY KEY,
	epoch    bigint NOT NULL,
	seq      bigint NOT NULL,
	holder   text NOT NULL,
	taken_at timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS tandem_records (
	world text NOT NULL,
	key   bytea NOT NULL,
	value bytea NOT NULL,
	PRIMARY KEY (world, key)
);
CREATE TABLE IF NOT EXISTS tandem_meta (
	world text NOT NULL,
	name  text NOT NULL,
	value bytea NOT NULL,
	PRIMARY KEY (world, name)
);
-- tandem_fence locks the world's row, refuses (SQLSTATE TDF01) a holder whose
-- epoch is not the world's, and advances the sequence number by step.
CREATE OR REPLACE FUNCTION tandem_fence(w text, e bigint, step bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE s bigint;
BEGIN
	UPDATE tandem_worlds SET seq = seq + step WHERE name = w AND epoch = e RETURNING seq INTO s;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'world % is held by a newer lease than epoch %', w, e USING ERRCODE = 'TDF01';
	END IF;
	RETURN s;
END $$;
`

// pgFormat is the format row of tandem_store.
const pgFormat = "tandem-store/1"

// pgFencedCode is the SQLSTATE tandem_fence raises.
const pgFencedCode = "TDF01"

// pgSchemaLock is the advisory lock key that serialises schema creation.
const pgSchemaLock = 0x74616e64656d // "tandem"

// pgDB is a store in a PostgreSQL database. Each World has a connection of
// its own, redialled after a failure.
type pgDB struct {
	cfg    *pgx.ConnConfig
	holder string

	mu     sync.Mutex
	worlds map[*pgWorld]struct{}
	closed bool
}

// OpenPostgres connects to the PostgreSQL database at url (a pgx connection
// string, postgres://user:pass@host:port/db?search_path=...; host may be a
// Unix socket directory) and creates the store's tables when missing. Open
// calls it for postgres:// and postgresql:// targets.
func OpenPostgres(ctx context.Context, url string, opts Options) (DB, error) {
	cfg, err := pgx.ParseConfig(lowerScheme(url))
	if err != nil {
		return nil, invalidf("PostgreSQL URL: %v", err)
	}
	cfg.ConnectTimeout = opts.Timeout
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "tandem-store"
	}
	d := &pgDB{cfg: cfg, holder: opts.holder(), worlds: make(map[*pgWorld]struct{})}
	conn, err := d.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(pgSchemaLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, pgSchema); err != nil {
			return err
		}
		var formats []string
		rows, err := tx.Query(ctx, "SELECT format FROM tandem_store")
		if err != nil {
			return err
		}
		if formats, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		switch {
		case len(formats) == 0:
			_, err = tx.Exec(ctx, "INSERT INTO tandem_store (format) VALUES ($1)", pgFormat)
			return err
		case len(formats) > 1 || formats[0] != pgFormat:
			return &FormatError{Where: "database " + cfg.Database, Found: fmt.Sprintf("%q", formats), Want: pgFormat}
		}
		return nil
	}); err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, fmt.Errorf("store: preparing PostgreSQL database %q: %w", cfg.Database, err)
	}
	return d, nil
}

func (d *pgDB) dial(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, d.cfg.Copy())
	if err != nil {
		return nil, fmt.Errorf("store: connecting to PostgreSQL at %s: %w (is the server running and the URL right?)", d.where(), err)
	}
	return conn, nil
}

func (d *pgDB) Worlds(ctx context.Context) ([]string, error) {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	conn, err := d.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT name FROM tandem_worlds WHERE seq > 0 ORDER BY name COLLATE \"C\"")
	if err != nil {
		return nil, fmt.Errorf("store: listing the worlds in PostgreSQL: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: listing the worlds in PostgreSQL: %w", err)
	}
	return names, nil
}

func (d *pgDB) where() string {
	return fmt.Sprintf("host %s port %d database %s", d.cfg.Host, d.cfg.Port, d.cfg.Database)
}

func (d *pgDB) Close() error {
	d.mu.Lock()
	d.closed = true
	worlds := d.worlds
	d.worlds = nil
	d.mu.Unlock()
	for w := range worlds {
		w.Close()
	}
	return nil
}

func (d *pgDB) OpenWorld(ctx context.Context, name string) (World, error) {
	if err := checkWorldName(name); err != nil {
		return nil, err
	}
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	conn, err := d.dial(ctx)
	if err != nil {
		return nil, err
	}
	lease := Lease{World: name, Holder: d.holder}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, "SELECT holder FROM tandem_worlds WHERE name = $1 FOR UPDATE", name).Scan(&lease.Previous)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var epoch int64
		err = tx.QueryRow(ctx, `INSERT INTO tandem_worlds (name, epoch, seq, holder, taken_at) VALUES ($1, 1, 0, $2, now())
			ON CONFLICT (name) DO UPDATE SET epoch = tandem_worlds.epoch + 1, holder = excluded.holder, taken_at = excluded.taken_at
			RETURNING epoch, taken_at`, name, d.holder).Scan(&epoch, &lease.Taken)
		lease.Epoch = uint64(epoch)
		return err
	})
	if err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("store: taking world %q in PostgreSQL: %w", name, err)
	}
	w := &pgWorld{db: d, name: name, lease: lease, conn: conn}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		conn.Close(context.Background())
		return nil, ErrClosed
	}
	d.worlds[w] = struct{}{}
	d.mu.Unlock()
	return w, nil
}

// pgWorld is a world of a pgDB under a lease.
type pgWorld struct {
	db    *pgDB
	name  string
	lease Lease

	mu     sync.Mutex // one operation at a time; guards the fields below
	conn   *pgx.Conn  // nil after a failure: dialled again on the next call
	closed bool
	keys   [][]byte // scratch for Commit
	vals   [][]byte
	dels   [][]byte
	arena  []byte
}

func (w *pgWorld) Name() string { return w.name }
func (w *pgWorld) Lease() Lease { return w.lease }

// begin returns the world's connection, dialling it if the last one failed.
func (w *pgWorld) begin(ctx context.Context) (*pgx.Conn, error) {
	if w.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.conn == nil {
		conn, err := w.db.dial(ctx)
		if err != nil {
			return nil, err
		}
		w.conn = conn
	}
	return w.conn, nil
}

// done drops the connection after an error that may have left it unusable:
// anything but an error the server reported, or one of this package's, on a
// connection still open.
func (w *pgWorld) done(err error) {
	if err == nil || w.conn == nil {
		return
	}
	var pe *pgconn.PgError
	sound := errors.As(err, &pe) && pe.Severity != "FATAL" && pe.Severity != "PANIC" ||
		errors.Is(err, ErrFenced) || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrFormat)
	if sound && !w.conn.IsClosed() {
		return
	}
	w.conn.Close(context.Background())
	w.conn = nil
}

// fenced returns the FencedError for this world as the database has it now.
func (w *pgWorld) fenced(ctx context.Context, conn *pgx.Conn) error {
	fe := &FencedError{World: w.name, Epoch: w.lease.Epoch}
	var now int64
	if err := conn.QueryRow(ctx, "SELECT epoch, holder FROM tandem_worlds WHERE name = $1", w.name).Scan(&now, &fe.Holder); err == nil {
		fe.Now = uint64(now)
	}
	return fe
}

func isFenced(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == pgFencedCode
}

func (w *pgWorld) Load(ctx context.Context, fn func(key, value []byte) error) (seq uint64, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	conn, err := w.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { w.done(err) }()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return 0, fmt.Errorf("store: loading world %q: %w", w.name, err)
	}
	defer tx.Rollback(context.Background())
	var epoch, s int64
	var holder string
	if err := tx.QueryRow(ctx, "SELECT epoch, seq, holder FROM tandem_worlds WHERE name = $1", w.name).Scan(&epoch, &s, &holder); err != nil {
		return 0, fmt.Errorf("store: loading world %q: %w", w.name, err)
	}
	if uint64(epoch) != w.lease.Epoch {
		return 0, &FencedError{World: w.name, Epoch: w.lease.Epoch, Now: uint64(epoch), Holder: holder}
	}
	rows, err := tx.Query(ctx, "SELECT key, value FROM tandem_records WHERE world = $1 ORDER BY key", w.name)
	if err != nil {
		return 0, fmt.Errorf("store: loading world %q: %w", w.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v pgtype.DriverBytes
		if err := rows.Scan(&k, &v); err != nil {
			return 0, fmt.Errorf("store: loading world %q: %w", w.name, err)
		}
		p, err := unframe(w.name, k, v)
		if err != nil {
			return 0, err
		}
		if err := fn(k, p); err != nil {
			return 0, err
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("store: loading world %q: %w", w.name, err)
	}
	return uint64(s), nil
}

func (w *pgWorld) Commit(ctx context.Context, b *Batch) (seq uint64, err error) {
	if err := b.check(); err != nil {
		return 0, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	conn, err := w.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { w.done(err) }()
	w.keys, w.vals, w.dels, w.arena = w.keys[:0], w.vals[:0], w.dels[:0], w.arena[:0]
	_ = b.Range(func(k, v []byte, del bool) error {
		if del {
			w.dels = append(w.dels, k)
			return nil
		}
		start := len(w.arena)
		w.arena = appendFrame(w.arena, k, v)
		w.keys = append(w.keys, k)
		w.vals = append(w.vals, w.arena[start:len(w.arena):len(w.arena)])
		return nil
	})
	// One round trip, one implicit transaction: if tandem_fence refuses,
	// the statements after it do not run and nothing is written.
	pb := &pgx.Batch{}
	pb.Queue("SELECT tandem_fence($1, $2, 1)", w.name, int64(w.lease.Epoch))
	if len(w.dels) > 0 {
		pb.Queue("DELETE FROM tandem_records WHERE world = $1 AND key = ANY($2::bytea[])", w.name, w.dels)
	}
	if len(w.keys) > 0 {
		pb.Queue(`INSERT INTO tandem_records (world, key, value)
			SELECT $1, k, v FROM unnest($2::bytea[], $3::bytea[]) AS t(k, v)
			ON CONFLICT (world, key) DO UPDATE SET value = excluded.value`, w.name, w.keys, w.vals)
	}
	br := conn.SendBatch(ctx, pb)
	var s int64
	err = br.QueryRow().Scan(&s)
	for i := 1; err == nil && i < pb.Len(); i++ {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	clear(w.keys[:cap(w.keys)])
	clear(w.vals[:cap(w.vals)])
	clear(w.dels[:cap(w.dels)])
	switch {
	case isFenced(err):
		return 0, w.fenced(ctx, conn)
	case err != nil:
		return 0, fmt.Errorf("store: committing world %q to PostgreSQL: %w (the connection is redialled if it failed; retry the commit)", w.name, err)
	}
	return uint64(s), nil
}

func (w *pgWorld) Meta(ctx context.Context, name string) (value []byte, ok bool, err error) {
	if err := checkMeta(name, nil); err != nil {
		return nil, false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	conn, err := w.begin(ctx)
	if err != nil {
		return nil, false, err
	}
	defer func() { w.done(err) }()
	var epoch int64
	var holder string
	var stored []byte
	err = conn.QueryRow(ctx, `SELECT w.epoch, w.holder, m.value FROM tandem_worlds w
		LEFT JOIN tandem_meta m ON m.world = w.name AND m.name = $2 WHERE w.name = $1`, w.name, name).Scan(&epoch, &holder, &stored)
	if err != nil {
		return nil, false, fmt.Errorf("store: reading meta %q of world %q: %w", name, w.name, err)
	}
	if uint64(epoch) != w.lease.Epoch {
		return nil, false, &FencedError{World: w.name, Epoch: w.lease.Epoch, Now: uint64(epoch), Holder: holder}
	}
	if stored == nil {
		return nil, false, nil
	}
	p, err := unframe(w.name, []byte(name), stored)
	if err != nil {
		return nil, false, err
	}
	return p, true, nil
}

func (w *pgWorld) SetMeta(ctx context.Context, name string, value []byte) (err error) {
	if err := checkMeta(name, value); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	conn, err := w.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { w.done(err) }()
	pb := &pgx.Batch{}
	pb.Queue("SELECT tandem_fence($1, $2, 0)", w.name, int64(w.lease.Epoch))
	if value == nil {
		pb.Queue("DELETE FROM tandem_meta WHERE world = $1 AND name = $2", w.name, name)
	} else {
		pb.Queue(`INSERT INTO tandem_meta (world, name, value) VALUES ($1, $2, $3)
			ON CONFLICT (world, name) DO UPDATE SET value = excluded.value`, w.name, name, appendFrame(nil, []byte(name), value))
	}
	br := conn.SendBatch(ctx, pb)
	_, err = br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	switch {
	case isFenced(err):
		return w.fenced(ctx, conn)
	case err != nil:
		return fmt.Errorf("store: writing meta %q of world %q to PostgreSQL: %w (retry)", name, w.name, err)
	}
	return nil
}

func (w *pgWorld) Erase(ctx context.Context) (err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	conn, err := w.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { w.done(err) }()
	// One round trip, one implicit transaction, as Commit.
	pb := &pgx.Batch{}
	pb.Queue("SELECT tandem_fence($1, $2, 0)", w.name, int64(w.lease.Epoch))
	pb.Queue("DELETE FROM tandem_records WHERE world = $1", w.name)
	pb.Queue("DELETE FROM tandem_meta WHERE world = $1", w.name)
	pb.Queue("UPDATE tandem_worlds SET seq = 0 WHERE name = $1", w.name)
	br := conn.SendBatch(ctx, pb)
	for i := 0; err == nil && i < pb.Len(); i++ {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	switch {
	case isFenced(err):
		return w.fenced(ctx, conn)
	case err != nil:
		return fmt.Errorf("store: erasing world %q in PostgreSQL: %w (retry)", w.name, err)
	}
	return nil
}

func (w *pgWorld) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.conn != nil {
		w.conn.Close(context.Background())
		w.conn = nil
	}
	w.db.mu.Lock()
	delete(w.db.worlds, w)
	w.db.mu.Unlock()
	return nil
}

package storetest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequirePostgresEnv is the environment variable that turns a missing
// PostgreSQL server into a test failure instead of a skip (make test sets it).
const RequirePostgresEnv = "TANDEM_REQUIRE_POSTGRES"

// PostgresBinEnv names a directory holding initdb and postgres, searched
// before /usr/lib/postgresql/*/bin and PATH.
const PostgresBinEnv = "TANDEM_POSTGRES_BIN"

// Main runs a test binary's tests and then stops the PostgreSQL server that
// PostgresURL started, if any, whether the tests passed or not. Call it from
// TestMain in every package whose tests use PostgresURL:
//
//	func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }
//
// (Should the test binary die without running it, the server gets SIGQUIT
// from the kernel when the binary exits, on Linux.)
func Main(m *testing.M) int {
	code := m.Run()
	StopPostgres()
	return code
}

// PostgresURL returns the URL of a fresh, empty schema (its search_path) in
// a PostgreSQL server private to this test binary, started on first use:
// initdb into a temporary directory, listening only on a Unix socket there,
// run as the postgres user when the tests run as root. It skips the test when
// no server binaries are found, unless TANDEM_REQUIRE_POSTGRES is set; then,
// and when the server fails to start, the test fails.
func PostgresURL(t testing.TB) string {
	t.Helper()
	s, err := startPostgres()
	if err != nil {
		var missing *missingError
		if errors.As(err, &missing) && os.Getenv(RequirePostgresEnv) == "" {
			t.Skipf("%v (set %s=1 to make this a failure)", err, RequirePostgresEnv)
		}
		t.Fatal(err)
	}
	u, err := s.schema()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// StopPostgres stops the server PostgresURL started, if any, and removes its
// files. Main calls it.
func StopPostgres() {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.server != nil {
		pg.server.stop()
		pg.server = nil
	}
	pg.err = nil
}

var pg struct {
	mu     sync.Mutex
	server *pgServer
	err    error
}

type missingError struct{ searched string }

func (e *missingError) Error() string {
	return "PostgreSQL server binaries (initdb, postgres) not found in " + e.searched +
		": install them (Debian: apt-get install postgresql; make test does so as root)"
}

func startPostgres() (*pgServer, error) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.server == nil && pg.err == nil {
		pg.server, pg.err = newPostgres()
	}
	return pg.server, pg.err
}

// findPostgres returns the directory holding initdb and postgres.
func findPostgres() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	searched := []string{}
	if dir := os.Getenv(PostgresBinEnv); dir != "" {
		if has(dir) {
			return dir, nil
		}
		searched = append(searched, dir+" ("+PostgresBinEnv+")")
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(dir string) int {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		return v
	}
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, dir := range dirs {
		if has(dir) {
			return dir, nil
		}
	}
	searched = append(searched, "/usr/lib/postgresql/*/bin")
	if p, err := exec.LookPath("postgres"); err == nil {
		if dir := filepath.Dir(p); has(dir) {
			return dir, nil
		}
	}
	searched = append(searched, "PATH")
	return "", &missingError{searched: strings.Join(searched, ", ")}
}

type pgServer struct {
	dir   string // temporary root: data/, sock/, log
	sock  string
	base  string // URL of the postgres database
	cmd   *exec.Cmd
	exit  chan error // the server's exit
	admin *pgx.Conn

	mu      sync.Mutex
	schemas int
}

// dirPrefix starts the name of a server's temporary directory, followed by
// the id of the test process that owns it: tandem-pg-1234-567890.
const dirPrefix = "tandem-pg-"

// sweepStale removes the server directories of test processes that are gone:
// one that panicked or was killed at its timeout never ran StopPostgres (its
// server died with it, signalled by the kernel).
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*-*"))
	for _, d := range dirs {
		owner, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), dirPrefix), "-")
		pid, err := strconv.Atoi(owner)
		if ok && err == nil && pid > 0 && pid != os.Getpid() && processGone(pid) {
			_ = os.RemoveAll(d)
		}
	}
}

func newPostgres() (*pgServer, error) {
	bin, err := findPostgres()
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	sweepStale()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	s := &pgServer{dir: dir, sock: filepath.Join(dir, "sock"), exit: make(chan error, 1)}
	ok := false
	defer func() {
		if !ok {
			s.stop()
		}
	}()
	if err := os.Mkdir(s.sock, 0o700); err != nil {
		return nil, err
	}
	if cred != nil {
		for _, p := range []string{dir, s.sock} {
			if err := os.Chown(p, cred.uid, cred.gid); err != nil {
				return nil, fmt.Errorf("storetest: handing %s to the postgres user: %w", p, err)
			}
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
		"--no-sync", "-E", "UTF8", "--locale=C", "--no-instructions")
	initdb.SysProcAttr = procAttr(cred, false)
	initdb.Env = append(os.Environ(), "LC_ALL=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("storetest: initdb failed: %v\n%s", err, out)
	}
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", s.sock,
		"-c", "listen_addresses=", "-c", "max_connections=60", "-c", "shared_buffers=32MB",
		"-c", "log_min_messages=warning", "-c", "log_destination=stderr")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = procAttr(cred, true)
	// The kernel signals the server when the thread that started it exits,
	// so start it from a thread that lives until the server does.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := s.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		s.exit <- s.cmd.Wait()
	}()
	if err := <-started; err != nil {
		s.cmd = nil
		return nil, fmt.Errorf("storetest: starting postgres: %w", err)
	}
	s.base = "postgres://postgres@/postgres?sslmode=disable&host=" + url.QueryEscape(s.sock)
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s.admin, err = pgx.Connect(ctx, s.base)
		cancel()
		if err == nil {
			break
		}
		select {
		case werr := <-s.exit:
			s.exit <- werr
			return nil, fmt.Errorf("storetest: postgres exited (%v) before accepting connections:\n%s", werr, s.logTail())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("storetest: postgres not accepting connections after 60 s: %v\n%s", err, s.logTail())
		}
	}
	ok = true
	return s, nil
}

// osUser is a user to run a program as.
type osUser struct{ uid, gid int }

// serverUser returns the credentials to run the server with: the postgres
// user when running as root (the server refuses root), else nil.
func serverUser() (*osUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("storetest: tests run as root, and PostgreSQL refuses to run as root: create a postgres user (the postgresql package does): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &osUser{uid: uid, gid: gid}, nil
}

func (s *pgServer) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// schema creates a fresh schema and returns a URL that uses it.
func (s *pgServer) schema() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.schemas++
	name := fmt.Sprintf("t%d", s.schemas)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.admin.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", fmt.Errorf("storetest: creating schema %s: %w", name, err)
	}
	return s.base + "&search_path=" + name, nil
}

func (s *pgServer) stop() {
	if s.admin != nil {
		s.admin.Close(context.Background())
	}
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-s.exit:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-s.exit:
			case <-time.After(5 * time.Second):
				_ = s.cmd.Process.Kill()
				<-s.exit
			}
		}
	}
	os.RemoveAll(s.dir)
}

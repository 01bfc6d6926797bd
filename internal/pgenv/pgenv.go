// Package pgenv starts and stops a private PostgreSQL server for tests:
// Debian's packages (postgresql-NN), a new cluster made by initdb in a
// temporary data folder, listening only on 127.0.0.1 on a port chosen free
// per start, with its Unix socket in the same folder. initdb and postgres
// refuse to run as root, so under root (as .ci/run runs) both run as the
// unprivileged user nobody, the data folder owned by it.
//
// A test calls Start(t): the server is stopped when the test (or the
// package's TestMain, with StartServer and Stop) ends, also on failure.
// Where PostgreSQL is missing the test is skipped saying why, or fails
// when CI=true (CI must install it: .ci/run does).
package pgenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// User, Password and Database are those of every server Start makes.
const (
	User     = "tablerun"
	Password = "tablerun-secret"
	Database = "postgres"
)

// ErrNotInstalled is returned when no PostgreSQL binaries are found.
var ErrNotInstalled = errors.New("pgenv: PostgreSQL is not installed (apt-get install postgresql, or set TABLERUN_PG_BIN to the folder of initdb and postgres)")

// Server is one running PostgreSQL cluster.
type Server struct {
	// Host and Port are where it listens (Host is always 127.0.0.1).
	Host string
	Port int
	dir  string
	cmd  *exec.Cmd
	done chan error
}

// BinDir returns the folder holding initdb and postgres:
// $TABLERUN_PG_BIN, else the newest /usr/lib/postgresql/NN/bin, else the
// folder of postgres on PATH.
func BinDir() (string, error) {
	ok := func(d string) bool {
		for _, f := range []string{"initdb", "postgres"} {
			if st, err := os.Stat(filepath.Join(d, f)); err != nil || st.IsDir() {
				return false
			}
		}
		return true
	}
	if d := os.Getenv("TABLERUN_PG_BIN"); d != "" {
		if ok(d) {
			return d, nil
		}
		return "", fmt.Errorf("%w: TABLERUN_PG_BIN=%s lacks initdb or postgres", ErrNotInstalled, d)
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(m, func(i, j int) bool { return version(m[i]) > version(m[j]) })
	for _, d := range m {
		if ok(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil && ok(filepath.Dir(r)) {
			return filepath.Dir(r), nil
		}
	}
	return "", ErrNotInstalled
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start starts a server for t and stops it when t ends. Without
// PostgreSQL it skips t saying why, or fails it when CI=true.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := StartServer()
	if err != nil {
		if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") != "true" {
			t.Skipf("skipped: %v", err)
		}
		t.Fatalf("pgenv: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("pgenv: stop: %v", err)
		}
	})
	return s
}

// StartServer makes and starts a new cluster; the caller must Stop it.
func StartServer() (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tempRoot(), "tablerun-pgenv-")
	if err != nil {
		return nil, err
	}
	s := &Server{Host: "127.0.0.1", dir: dir}
	fail := func(err error) (*Server, error) {
		s.Stop()
		return nil, err
	}
	cred, err := credential(dir)
	if err != nil {
		return fail(err)
	}
	pw := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pw, []byte(Password+"\n"), 0o600); err != nil {
		return fail(err)
	}
	data := filepath.Join(dir, "data")
	if cred != nil {
		if err := os.Chown(pw, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", User, "--pwfile", pw,
		"--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("pgenv: initdb: %v\n%s", err, out))
	}
	for try := 0; ; try++ {
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		s.Port = port
		err = s.run(bin, data, cred)
		if err == nil {
			return s, nil
		}
		if try >= 2 || !strings.Contains(err.Error(), "could not bind") {
			return fail(err)
		}
	}
}

// tempRoot is the folder for the data folder: os.TempDir, or /tmp when
// the server runs as nobody (who must be able to reach it).
func tempRoot() string {
	if os.Geteuid() == 0 {
		return "/tmp"
	}
	return os.TempDir()
}

// credential returns the user initdb and postgres run as: nil (the
// current one) unless this process is root, then nobody, to whom dir is
// handed.
func credential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	const nobody = 65534
	if err := os.Chown(dir, nobody, nobody); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: nobody, Gid: nobody, NoSetGroups: true}, nil
}

// run starts postgres on s.Port and waits until it accepts connections.
func (s *Server) run(bin, data string, cred *syscall.Credential) error {
	logPath := filepath.Join(s.dir, "postgres.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-c", "listen_addresses=127.0.0.1", "-p", strconv.Itoa(s.Port),
		"-c", "unix_socket_directories="+s.dir, "-c", "fsync=off",
		"-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=32MB", "-c", "max_connections=60")
	cmd.Stdout, cmd.Stderr = log, log
	// Pdeathsig is set after the credentials change, so a test binary
	// that dies takes its server with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgenv: postgres: %w", err)
	}
	s.cmd = cmd
	s.done = make(chan error, 1)
	go func() { s.done <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-s.done:
			s.cmd = nil
			b, _ := os.ReadFile(logPath)
			return fmt.Errorf("pgenv: postgres exited: %v\n%s", err, tail(string(b)))
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.DSN())
		if err == nil {
			err = c.Ping(ctx)
			c.Close(ctx)
		}
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			s.Stop()
			return fmt.Errorf("pgenv: postgres did not accept connections within 60s: %v\n%s", err, tail(string(b)))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func tail(s string) string {
	if len(s) > 4000 {
		return s[len(s)-4000:]
	}
	return s
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// DSN is the server's address for pgx (libpq's URL form).
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", User, Password, s.Host, s.Port, Database)
}

// JDBCURL is the server's address as a Flink 'url' option.
func (s *Server) JDBCURL() string {
	return fmt.Sprintf("jdbc:postgresql://%s:%d/%s", s.Host, s.Port, Database)
}

// Exec runs SQL statements on the server (test set-up).
func (s *Server) Exec(ctx context.Context, sql ...string) error {
	c, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	for _, q := range sql {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Stop shuts the server down (fast shutdown, then SIGKILL after 10s) and
// removes its data folder. It may be called more than once.
func (s *Server) Stop() error {
	var err error
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
			err = errors.New("postgres did not stop within 10s: killed")
		}
		s.cmd = nil
	}
	if s.dir != "" {
		if rmErr := os.RemoveAll(s.dir); rmErr != nil && err == nil {
			err = rmErr
		}
		s.dir = ""
	}
	return err
}

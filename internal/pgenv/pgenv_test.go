package pgenv

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestStartStop starts a server, runs a query on it and checks that Stop
// frees its port and data folder.
func TestStartStop(t *testing.T) {
	s := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT 40 + 2").Scan(&n); err != nil || n != 42 {
		t.Fatalf("SELECT 40 + 2 = %d, %v", n, err)
	}
	var addr string
	if err := c.QueryRow(ctx, "SELECT current_setting('listen_addresses')").Scan(&addr); err != nil || addr != "127.0.0.1" {
		t.Fatalf("listen_addresses = %q, %v", addr, err)
	}
	c.Close(ctx)
	port := s.Port
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
		conn.Close()
		t.Fatalf("port %d still accepts connections after Stop", port)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

// TestWrongPassword: the server checks passwords on TCP connections.
func TestWrongPassword(t *testing.T) {
	s := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = "wrong"
	if c, err := pgx.ConnectConfig(ctx, cfg); err == nil {
		c.Close(ctx)
		t.Fatal("connected with a wrong password")
	}
}

package gateway

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core"
)

const mainUsage = `Usage: tablerun gateway [--address 127.0.0.1] [--port 8083] [--token-file F] [-D key=value ...]

Serves Apache Flink's SQL Gateway REST API (versions v1 to v4, as Flink
2.3) on tablerun: Flink's SQL client (sql-client.sh gateway --endpoint
HOST:PORT), its JDBC driver (jdbc:flink://HOST:PORT) and other REST
clients run their statements here, each session in a TableEnvironment of
its own. Runs until interrupted.

  --address A      the address to bind (sql-gateway.endpoint.rest.address;
                   default 127.0.0.1, loopback only)
  --port P         the port (sql-gateway.endpoint.rest.port; default 8083,
                   0 picks a free one)
  --token-file F   require "Authorization: Bearer <token>" with the token in
                   file F on every request (required for an address that is
                   not loopback)
  -D key=value     a gateway option (sql-gateway.session.idle-timeout,
                   sql-gateway.session.check-interval,
                   sql-gateway.session.max-num) or an initial option of
                   every session (repeatable)
`

type kvFlags []string

func (k *kvFlags) String() string { return strings.Join(*k, ",") }
func (k *kvFlags) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("expected key=value, got %q", v)
	}
	*k = append(*k, v)
	return nil
}

// Main is `tablerun gateway`: it serves until ctx ends and returns the
// exit code. The first line on stdout is the address it listens on
// ("http://127.0.0.1:8083"); the sessions' print connectors write to
// stdout and stderr after it, as a Flink TaskManager does to its logs.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tablerun gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, mainUsage) }
	address := fs.String("address", "127.0.0.1", "bind address")
	port := fs.Int("port", 8083, "port")
	tokenFile := fs.String("token-file", "", "bearer token file")
	var opts kvFlags
	fs.Var(&opts, "D", "key=value")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprint(stderr, mainUsage)
		return 2
	}
	o := Options{Stdout: stdout, Stderr: stderr, Logf: func(format string, a ...any) {
		fmt.Fprintf(stderr, time.Now().UTC().Format("2006-01-02 15:04:05")+" "+format+"\n", a...)
	}}
	var sessionOpts [][2]string
	for _, kv := range opts {
		k, v, _ := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if err := o.setGatewayOption(k, v); err != nil {
			fmt.Fprintf(stderr, "tablerun gateway: %v\n", err)
			return 2
		} else if !strings.HasPrefix(k, "sql-gateway.") {
			sessionOpts = append(sessionOpts, [2]string{k, v})
		}
	}
	base := o.Settings
	o.Settings = func() (s settings) {
		if base != nil {
			s = base()
		} else {
			s = defaultSettings()
		}
		for _, kv := range sessionOpts {
			s = s.WithOption(kv[0], kv[1])
		}
		return s
	}
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			fmt.Fprintf(stderr, "tablerun gateway: %v\n", err)
			return 2
		}
		o.Token = strings.TrimSpace(string(b))
		if o.Token == "" {
			fmt.Fprintf(stderr, "tablerun gateway: the token file %s is empty\n", *tokenFile)
			return 2
		}
	} else if !isLoopback(*address) {
		fmt.Fprintf(stderr, "tablerun gateway: binding %s (not loopback) needs --token-file: every request must then carry the bearer token\n", *address)
		return 2
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(*address, strconv.Itoa(*port)))
	if err != nil {
		fmt.Fprintf(stderr, "tablerun gateway: %v\n", err)
		return 1
	}
	srv := New(o)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 30 * time.Second}
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	fmt.Fprintf(stderr, "tablerun gateway: serving Flink's SQL Gateway REST API (v1-v4) on http://%s; interrupt to stop\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	code := 0
	select {
	case <-ctx.Done():
	case err := <-errc:
		fmt.Fprintf(stderr, "tablerun gateway: %v\n", err)
		code = 1
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Close() // ends the sessions first: long polls return
	_ = hs.Shutdown(sctx)
	return code
}

// setGatewayOption applies one of Flink's sql-gateway.* options; other
// keys are left to the sessions.
func (o *Options) setGatewayOption(k, v string) error {
	switch k {
	case "sql-gateway.session.idle-timeout", "sql-gateway.session.check-interval":
		d, err := parseDuration(v)
		if err != nil {
			return fmt.Errorf("%s: %v", k, err)
		}
		if k == "sql-gateway.session.check-interval" {
			o.CheckInterval = d
		} else if d == 0 {
			o.IdleTimeout = -1 // Flink: 0 disables the timeout
		} else {
			o.IdleTimeout = d
		}
	case "sql-gateway.session.max-num":
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s: %v", k, err)
		}
		if n <= 0 {
			n = -1
		}
		o.MaxSessions = n
	default:
		if strings.HasPrefix(k, "sql-gateway.") {
			return fmt.Errorf("not supported yet: gateway option %s", k)
		}
	}
	return nil
}

func isLoopback(addr string) bool {
	if addr == "localhost" {
		return true
	}
	ip := net.ParseIP(addr)
	return ip != nil && ip.IsLoopback()
}

type settings = core.EnvironmentSettings

func defaultSettings() settings { return core.InStreamingMode() }

func parseDuration(s string) (time.Duration, error) { return core.ParseFlinkDuration(s) }

package flightsql

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/planner/parser"
)

// DefaultPort is the port `tablerun flight-sql` listens on by default
// (the one Arrow's Flight SQL examples use).
const DefaultPort = 31337

// TokenEnv is the environment variable that gives the bearer token when
// --token is not set (a token on the command line shows in ps).
const TokenEnv = "TABLERUN_FLIGHT_SQL_TOKEN"

const cliUsage = `Usage: tablerun flight-sql [--address 127.0.0.1] [--port 31337] [--token T]
                           [-i init.sql] [-D key=value ...] [--config conf.yaml]

Serves Arrow Flight SQL (grpc, no TLS) for ADBC, pyarrow.flight, JDBC/ODBC
Flight SQL drivers and other Flight SQL clients. Each client connection is a
session of its own (batch mode unless -D execution.runtime-mode=streaming),
closed when the connection ends.

  --address A    address to bind (default 127.0.0.1: this machine only)
  --port N       port (default 31337; 0 picks a free one)
  --token T      require "authorization: Bearer T" on every call (default:
                 $` + TokenEnv + `; none when both are empty)
  -i <init.sql>  run these statements in every new session first
  -D key=value   initial option of every session (repeatable)
  --config F     read initial options from a YAML file with Flink's keys
                 (default: $TABLERUN_CONF_DIR/config.yaml if the variable is set)

It prints "Flight SQL server listening on grpc://HOST:PORT" once it serves,
and stops on Ctrl-C (SIGINT) or SIGTERM.
`

// Main is the `tablerun flight-sql` command: args are the arguments after
// "flight-sql". It serves until ctx ends and returns the exit code (0
// after a clean stop, 1 on failure, 2 for bad usage).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tablerun flight-sql", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, cliUsage) }
	address := fs.String("address", "127.0.0.1", "address to bind")
	port := fs.Int("port", DefaultPort, "port")
	token := fs.String("token", "", "bearer token")
	initFile := fs.String("i", "", "init script")
	configFile := fs.String("config", "", "YAML configuration file")
	settings := core.InBatchMode()
	var opts [][2]string
	fs.Func("D", "session option key=value (repeatable)", func(kv string) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("expected key=value, got %q", kv)
		}
		opts = append(opts, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		return nil
	})
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == flag.ErrHelp {
			fmt.Fprint(stdout, cliUsage)
			return 0
		}
		if err == nil {
			fmt.Fprint(stderr, cliUsage)
		}
		return 2
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(stderr, "tablerun flight-sql: --port %d is not a port\n", *port)
		return 2
	}
	if *configFile == "" {
		*configFile = config.DefaultFile()
	}
	settings = settings.WithConfigFile(*configFile)
	for _, kv := range opts {
		settings = settings.WithOption(kv[0], kv[1])
	}
	if *token == "" {
		*token = os.Getenv(TokenEnv)
	}
	o := Options{Token: *token, Settings: &settings, Log: stderr}
	if *initFile != "" {
		text, err := os.ReadFile(*initFile)
		if err != nil {
			fmt.Fprintf(stderr, "tablerun flight-sql: %v\n", err)
			return 1
		}
		init, err := InitScript(*initFile, string(text))
		if err != nil {
			fmt.Fprintf(stderr, "tablerun flight-sql: %v\n", err)
			return 1
		}
		o.Init = init
	}
	s, err := New(o)
	if err != nil {
		fmt.Fprintf(stderr, "tablerun flight-sql: %v\n", err)
		return 1
	}
	addr := net.JoinHostPort(*address, strconv.Itoa(*port))
	if err := s.Listen(addr); err != nil {
		fmt.Fprintf(stderr, "tablerun flight-sql: %v\n", err)
		return 1
	}
	if !loopback(*address) && *token == "" {
		fmt.Fprintf(stderr, "[WARN] tablerun flight-sql listens on %s without a token and without TLS: anyone who reaches it runs SQL (and reads files) as this user; set --token or $%s\n", *address, TokenEnv)
	}
	fmt.Fprintf(stdout, "Flight SQL server listening on grpc://%s\n", s.Addr())
	if f, ok := stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	<-ctx.Done()
	s.Shutdown()
	return 0
}

// loopback reports whether host names only this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// InitScript parses an init script once and returns the Init function
// that runs its statements in a new session; the error of a failing
// statement names the script's line.
func InitScript(path, text string) (func(context.Context, *core.TableEnvironment) error, error) {
	stmts, err := parser.ParseScript(text)
	if err != nil {
		return nil, fmt.Errorf("init script %s: %v", path, err)
	}
	for _, st := range stmts {
		if _, err := parser.ParseStatement(st.Text); err != nil {
			err = core.ShiftPosition(err, st.Line, st.Col)
			return nil, fmt.Errorf("init script %s, line %d: %v\n%s", path, st.Line, err, core.ErrorContext(err, text))
		}
	}
	return func(ctx context.Context, env *core.TableEnvironment) error {
		for _, st := range stmts {
			res, err := env.ExecuteSQL(ctx, st.Text)
			if err == nil && res.IsStreaming() {
				_ = res.Close()
			}
			if err != nil {
				err = core.ShiftPosition(err, st.Line, st.Col)
				return fmt.Errorf("init script %s, line %d: %s\n%s", path, st.Line, core.Reason(err), core.ErrorContext(err, text))
			}
		}
		return nil
	}, nil
}

// Command tablerun runs Flink SQL scripts and statements and prints their
// results the way Flink's SQL client does in tableau mode.
//
//	tablerun                                  the interactive SQL client
//	tablerun -f script.sql [-i init.sql] [--keep-going] [-D key=value ...]
//	tablerun -e "SELECT 1 + 1" [--format tableau|csv|json|arrow]
//	tablerun --config conf.yaml --print-config   the effective configuration
//	tablerun kernel install | kernel --connection-file F   the Jupyter kernel
//	tablerun bench nexmark --query q17 [--events N] [-D k=v ...] [--matrix SPEC] [--chart out.svg]   benchmarks
//	tablerun bench live [--clients …] [--keys 1000,1000000] [--duration 10m]   live-result memory benchmark
//	tablerun diff [--gateway URL] script.sql   compare with Apache Flink
//	tablerun check --flink script.sql         what will not run on Apache Flink
//	tablerun flight-sql [--address A] [--port N] [--token T]   serve Arrow Flight SQL
//	tablerun gateway [--address A] [--port P] [--token-file F]   serve Flink's SQL Gateway REST API
//
// Sessions start in streaming mode (execution.runtime-mode = STREAMING),
// Flink's default; scripts switch with SET 'execution.runtime-mode' =
// 'batch'. Script runs use sql-client.execution.result-mode = tableau; -D
// sets further initial options (RESET returns to them). Each statement's output is followed by a
// blank line. INSERT runs to completion before the next statement (the job
// runs in-process), so it prints "[INFO] Complete execution of the SQL
// update statement." whatever table.dml-sync says. Results are always
// printed in the tableau layout (the table and changelog result modes are
// interactive views that a script run cannot show). A streaming query's
// changes print as they arrive (flushed at most 100 ms after leaving the
// job) and are not kept, so an unbounded query runs in bounded memory
// until Ctrl-C, which ends it with "Query terminated, received a total of
// N rows" and "[INFO] Query canceled." (exit code 130). With --format
// csv|json|arrow stdout carries only the data and the [INFO] and [ERROR]
// lines go to stderr; arrow is one Arrow IPC stream, so a script with
// more than one statement that returns rows is refused before anything
// runs (exit code 2). The first failing statement stops the script with
// exit code 1; with --keep-going the script runs on and the exit code is
// still 1. "-f -" reads the script from stdin; the last statement needs
// no ';'. Parse errors report lines and columns relative to the script
// file. Without -f or -e the interactive shell starts (internal/shell);
// when stdin is not a terminal it reads it as a script and exits with 1
// if a statement failed.
//
// Configuration file: --config <file>, or else $TABLERUN_CONF_DIR/config.yaml
// when that variable is set, is a YAML file with Flink's option keys (flat
// or nested maps, as Flink's config.yaml). Precedence, lowest first:
// defaults < the file < -D (and the CLI's own tableau result mode) < SET.
// --print-config prints the effective configuration (SHOW EFFECTIVE
// CONFIGURATION: key | value | source) after -i; alone it then exits, with
// -f/-e the statements run after it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/internal/bench"
	"github.com/tablerun/tablerun/internal/flightsql"
	"github.com/tablerun/tablerun/internal/flinkcheck"
	"github.com/tablerun/tablerun/internal/flinkdiff"
	"github.com/tablerun/tablerun/internal/gateway"
	"github.com/tablerun/tablerun/internal/kernel"
	"github.com/tablerun/tablerun/internal/shell"
	"github.com/tablerun/tablerun/planner/parser"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "kernel":
			os.Exit(kernel.Main(context.Background(), os.Args[2:], os.Stderr))
		case "bench":
			os.Exit(bench.Main(context.Background(), os.Args[2:], os.Stdout, os.Stderr))
		case "diff":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			code := flinkdiff.Main(ctx, os.Args[2:], os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		case "flight-sql":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := flightsql.Main(ctx, os.Args[2:], os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		case "gateway":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := gateway.Main(ctx, os.Args[2:], os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		case "check":
			os.Exit(flinkcheck.Main(os.Args[2:], os.Stdout, os.Stderr))
		case "help":
			fmt.Fprint(os.Stdout, usage)
			os.Exit(0)
		}
	}
	// Ctrl-C cancels the running statement (build.Run stops promptly).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are repeatable -D key=value flags.
type options []string

// String implements flag.Value.
func (o *options) String() string { return strings.Join(*o, ",") }

// Set implements flag.Value: it appends one key=value.
func (o *options) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("expected key=value, got %q", v)
	}
	*o = append(*o, v)
	return nil
}

// stdin is what -f - and a piped session read (a variable for tests).
var stdin io.Reader = os.Stdin

const usage = `Usage: tablerun [options]                     run SQL (-f, -e) or the interactive SQL client
       tablerun kernel install [--dir D]      install the Jupyter kernelspec
       tablerun kernel --connection-file F    the Jupyter kernel (Jupyter starts it)
       tablerun bench nexmark --query qN ...  run a Nexmark query, report events/s and memory
       tablerun bench live ...                watch an unbounded GROUP BY through each client,
                                              report time to first row and RSS over time
       tablerun diff [--gateway URL] s.sql    run a script on tablerun and on Apache Flink, compare
       tablerun flight-sql [--port 31337] ... serve Arrow Flight SQL (ADBC, pyarrow.flight, JDBC)
       tablerun gateway [--address A] [--port P] [--token-file F]
                                              serve Flink's SQL Gateway REST API (v1-v4) for
                                              Flink's SQL client, JDBC driver and REST clients
       tablerun check [--flink] s.sql ...     parse scripts; with --flink list what will not run on Flink
       tablerun help                          this text
  (tablerun kernel -h, tablerun bench nexmark -h, tablerun bench live -h,
   tablerun diff -h, tablerun flight-sql -h and tablerun gateway -h describe
   their options)

Runs Flink SQL statements and prints results as Flink's SQL client does.
Without -f or -e it starts the interactive SQL client (reading standard
input as a script when it is not a terminal). The exit code is 1 when a
statement failed, 130 when Ctrl-C canceled one, 2 for bad usage.

  -f <script.sql>   run the statements of a script file ("-": standard input);
                    the last statement needs no ';'
  -e <statements>   run the given statements
  -i <init.sql>     run a script silently first (its errors abort)
  --keep-going      run on after a failing statement (the exit code is still 1)
  -D key=value      set an initial session option (repeatable)
  --config <file>   read initial options from a YAML file with Flink's keys
                    (default: $TABLERUN_CONF_DIR/config.yaml if the variable is set)
  --print-config    print the effective configuration with each value's source
                    (default, file, creation, set); alone it then exits
  --endpoint URL    run every statement on the Flink cluster whose SQL Gateway
                    is at URL (http://host:8083), as Flink's sql-client.sh
                    gateway --endpoint; results print as local ones do
  --format F        result format of -f/-e: tableau (default), csv, json, arrow;
                    with csv, json and arrow standard output carries only the
                    data ([INFO] lines and errors go to standard error), a
                    streaming result gets an op column and is written as it
                    arrives; arrow is one Arrow IPC stream, so the script may
                    have only one statement that returns rows
`

// run is the whole command; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tablerun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	file := fs.String("f", "", "script file")
	exec := fs.String("e", "", "statements")
	initFile := fs.String("i", "", "init script")
	keepGoing := fs.Bool("keep-going", false, "continue after errors")
	format := fs.String("format", shell.FormatTableau, "result format of -f/-e: tableau, csv, json, arrow")
	var opts options
	fs.Var(&opts, "D", "key=value")
	configFile := fs.String("config", "", "YAML configuration file")
	printConfig := fs.Bool("print-config", false, "print the effective configuration")
	endpoint := fs.String("endpoint", "", "SQL Gateway of a Flink cluster that runs the statements")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || (*file != "" && *exec != "") {
		fmt.Fprint(stderr, usage)
		return 2
	}
	interactive := *file == "" && *exec == ""
	settings := core.InStreamingMode()
	if *configFile == "" {
		*configFile = config.DefaultFile()
	}
	settings = settings.WithConfigFile(*configFile)
	if !interactive {
		settings = settings.WithOption("sql-client.execution.result-mode", "tableau")
	}
	for _, kv := range opts {
		k, v, _ := strings.Cut(kv, "=")
		settings = settings.WithOption(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	env, err := newEnv(ctx, *endpoint, settings)
	if err != nil {
		fmt.Fprintf(stderr, "tablerun: %v\n", err)
		return 1
	}
	defer env.Close()
	env.SetOutput(stdout, stderr)

	if *initFile != "" {
		text, err := os.ReadFile(*initFile)
		if err != nil {
			fmt.Fprintf(stderr, "tablerun: %v\n", err)
			return 1
		}
		if !runInit(ctx, env, *initFile, string(text), stdout) {
			return 1
		}
	}
	if *printConfig {
		if code := runScript(ctx, env, "SHOW EFFECTIVE CONFIGURATION;", stdout, stderr, false, shell.FormatTableau); code != 0 {
			return code
		}
		if interactive {
			return 0
		}
	}
	if interactive {
		// The shell handles Ctrl-C itself (it cancels the running
		// statement), so the signal context must not end it.
		err := shell.Run(context.WithoutCancel(ctx), env, stdin, stdout, shell.Options{})
		// Background jobs end with the session that runs them.
		stopJobs(env)
		switch {
		case errors.Is(err, shell.ErrStatementFailed):
			return 1 // already reported (a script piped into the shell)
		case err != nil:
			fmt.Fprintf(stderr, "tablerun: %v\n", err)
			return 1
		}
		return 0
	}
	if !validFormat(*format) {
		fmt.Fprintf(stderr, "tablerun: unknown --format %q (expected one of %s)\n", *format, strings.Join(shell.Formats, ", "))
		return 2
	}
	script := *exec
	if *file != "" {
		var text []byte
		var err error
		if *file == "-" {
			text, err = io.ReadAll(stdin)
		} else {
			text, err = os.ReadFile(*file)
		}
		if err != nil {
			fmt.Fprintf(stderr, "tablerun: %v\n", err)
			return 1
		}
		script = string(text)
	}
	// Tableau output is what Flink's client prints on its terminal, all on
	// stdout; the script formats keep stdout for the data.
	errOut := stdout
	if *format != shell.FormatTableau {
		errOut = stderr
	}
	code := runScript(ctx, env, script, stdout, errOut, *keepGoing, *format)
	// Jobs submitted in the background ('table.dml-sync' = 'false') run
	// in this process: it ends when they do (Ctrl-C cancels them).
	if err := env.AwaitJobs(ctx); err != nil {
		fmt.Fprintf(stderr, "tablerun: %v\n", err)
		return 1
	}
	return code
}

// newEnv returns the session: local, or on the SQL Gateway at endpoint
// (--endpoint, as Flink's sql-client.sh gateway --endpoint).
func newEnv(ctx context.Context, endpoint string, settings core.EnvironmentSettings) (*core.TableEnvironment, error) {
	if endpoint == "" {
		return core.NewTableEnvironment(settings), nil
	}
	return core.NewRemoteTableEnvironment(ctx, endpoint, settings)
}

func validFormat(f string) bool {
	for _, x := range shell.Formats {
		if f == x {
			return true
		}
	}
	return false
}

// runScript runs the statements of script, printing results to out (in
// the tableau layout, or as csv, json or arrow for query results) and
// errors to errOut (and, for the script formats, the [INFO] lines of
// statements without rows). It returns the exit code: 0 when every
// statement succeeded, 1 when one failed, 130 when Ctrl-C (ctx) canceled
// one (the script stops there, after "[INFO] Query canceled.").
func runScript(ctx context.Context, env *core.TableEnvironment, script string, out, errOut io.Writer, keepGoing bool, format string) int {
	stmts, err := parser.ParseScript(script)
	if err != nil {
		printError(errOut, env, err, script)
		return 1
	}
	if format == shell.FormatArrow {
		// One Arrow IPC stream on stdout has one schema: a second result
		// would make it unreadable.
		var lines []string
		for _, st := range stmts {
			if returnsRows(st.Text) {
				lines = append(lines, fmt.Sprint(st.Line))
			}
		}
		if len(lines) > 1 {
			fmt.Fprintf(errOut, "tablerun: --format arrow writes one Arrow IPC stream, but the script has %d statements that return rows (lines %s): run one per command\n", len(lines), strings.Join(lines, ", "))
			return 2
		}
	}
	code := 0
	for _, st := range stmts {
		if strings.EqualFold(strings.TrimSpace(st.Text), "HELP") {
			// the client command, as in the shell
			fmt.Fprint(errOutIfData(out, errOut, format), shell.HelpText+"\n")
			continue
		}
		res, err := env.ExecuteSQL(ctx, st.Text)
		if err != nil {
			if ctx.Err() != nil || core.IsCanceled(err) {
				fmt.Fprint(errOut, core.MsgQueryCanceled+"\n\n")
				return 130
			}
			printError(errOut, env, core.ShiftPosition(err, st.Line, st.Col), script)
			code = 1
			if !keepGoing {
				return 1
			}
			continue
		}
		if format != shell.FormatTableau {
			if res.Kind() != core.SuccessWithContent || res.IsDML() {
				_ = core.PrintClientResult(errOut, env.Config(), res, nil)
				fmt.Fprintln(errOut)
				continue
			}
			err := shell.WriteResult(out, res, format)
			_ = res.Close()
			switch {
			case err == nil:
				continue
			case ctx.Err() != nil || core.IsCanceled(err):
				fmt.Fprint(errOut, core.MsgQueryCanceled+"\n\n")
				return 130
			}
			printError(errOut, env, err, "")
			code = 1
			if !keepGoing {
				return 1
			}
			continue
		}
		err = core.PrintClientResult(out, env.Config(), res, nil)
		_ = res.Close()
		fmt.Fprintln(out)
		switch {
		case err == nil:
		case ctx.Err() != nil || core.IsCanceled(err):
			return 130 // PrintClientResult said "[INFO] Query canceled."
		default:
			code = 1
			if !keepGoing {
				return 1
			}
		}
	}
	return code
}

// errOutIfData is where text for people goes: out in the tableau layout,
// errOut when out carries data (csv, json, arrow).
func errOutIfData(out, errOut io.Writer, format string) io.Writer {
	if format == shell.FormatTableau {
		return out
	}
	return errOut
}

// returnsRows reports whether a statement's result has rows (a query,
// SHOW, DESCRIBE, EXPLAIN), from its first keyword.
func returnsRows(text string) bool {
	t := strings.TrimLeft(text, "( \t\r\n")
	for strings.HasPrefix(t, "--") || strings.HasPrefix(t, "/*") {
		if strings.HasPrefix(t, "--") {
			i := strings.IndexByte(t, '\n')
			if i < 0 {
				return false
			}
			t = t[i+1:]
		} else {
			i := strings.Index(t, "*/")
			if i < 0 {
				return false
			}
			t = t[i+2:]
		}
		t = strings.TrimLeft(t, "( \t\r\n")
	}
	words := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '(' })
	if len(words) == 0 {
		return false
	}
	switch strings.ToUpper(words[0]) {
	case "SELECT", "WITH", "VALUES", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "TABLE":
		return true
	}
	return false
}

// runInit runs the init script read from path silently; on the first
// failure it prints the error (with the caret in the init script) and a
// line naming the file and the statement's line, so the failure is not
// taken for one of the main script, and reports false.
func runInit(ctx context.Context, env *core.TableEnvironment, path, script string, errOut io.Writer) bool {
	stmts, err := parser.ParseScript(script)
	if err != nil {
		printError(errOut, env, err, script)
		fmt.Fprintf(errOut, "[ERROR] The init file %s failed to parse; nothing else ran.\n\n", path)
		return false
	}
	for _, st := range stmts {
		res, err := env.ExecuteSQL(ctx, st.Text)
		if err == nil {
			// a query's rows are read (and dropped) as in a script run
			err = core.PrintClientResult(io.Discard, env.Config(), res, nil)
		}
		if err != nil {
			printError(errOut, env, core.ShiftPosition(err, st.Line, st.Col), script)
			fmt.Fprintf(errOut, "[ERROR] The init file %s failed at line %d; nothing else ran.\n\n", path, st.Line)
			return false
		}
	}
	return true
}

// printError prints a failed statement's error as Flink's client does,
// then where it lies in script (a caret under the token) and any hint.
func printError(w io.Writer, env *core.TableEnvironment, err error, script string) {
	_ = core.PrintClientResult(w, env.Config(), nil, err)
	fmt.Fprint(w, core.ErrorContext(err, script))
	fmt.Fprintln(w)
}

// stopJobs cancels the jobs still running in the background.
func stopJobs(env *core.TableEnvironment) {
	for _, j := range env.Jobs() {
		if j.Status == core.JobRunning {
			_, _ = env.StopJob(context.Background(), j.ID, false, "")
		}
	}
}

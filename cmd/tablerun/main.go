// Command tablerun runs Flink SQL scripts and statements and prints their
// results the way Flink's SQL client does in tableau mode.
//
//	tablerun                                  the interactive SQL client
//	tablerun -f script.sql [-i init.sql] [--keep-going] [-D key=value ...]
//	tablerun -e "SELECT 1 + 1" [--format tableau|csv|json|arrow]
//	tablerun --config conf.yaml --print-config   the effective configuration
//	tablerun kernel install | kernel --connection-file F   the Jupyter kernel
//	tablerun bench nexmark --query q17 [--events N] [-D k=v ...] [--matrix SPEC] [--chart out.svg]   benchmarks
//
// Sessions start in streaming mode (execution.runtime-mode = STREAMING),
// Flink's default; scripts switch with SET 'execution.runtime-mode' =
// 'batch'. Script runs use sql-client.execution.result-mode = tableau; -D
// sets further initial options (RESET returns to them). Each statement's output is followed by a
// blank line. INSERT runs to completion before the next statement (the job
// runs in-process), so it prints "[INFO] Complete execution of the SQL
// update statement." whatever table.dml-sync says. Results are always
// printed in the tableau layout (the table and changelog result modes are
// interactive views that a script run cannot show). The first failing
// statement stops the script with exit code 1; with --keep-going the script
// runs on and the exit code is still 1. Parse errors report lines and
// columns relative to the script file. Without -f or -e the interactive
// shell starts (internal/shell).
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

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/internal/bench"
	"github.com/tablerun/tablerun/internal/kernel"
	"github.com/tablerun/tablerun/internal/shell"
	"github.com/tablerun/tablerun/planner/parser"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "kernel" {
		os.Exit(kernel.Main(context.Background(), os.Args[2:], os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "bench" {
		os.Exit(bench.Main(context.Background(), os.Args[2:], os.Stdout, os.Stderr))
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

const usage = `Usage: tablerun [options]
       tablerun kernel install [--dir D]
       tablerun kernel --connection-file F

Runs Flink SQL statements and prints results as Flink's SQL client does.
Without -f or -e it starts the interactive SQL client.

  -f <script.sql>   run the statements of a script file
  -e <statements>   run the given statements
  -i <init.sql>     run a script silently first (its errors abort)
  --keep-going      run on after a failing statement (the exit code is still 1)
  -D key=value      set an initial session option (repeatable)
  --config <file>   read initial options from a YAML file with Flink's keys
                    (default: $TABLERUN_CONF_DIR/config.yaml if the variable is set)
  --print-config    print the effective configuration with each value's source
                    (default, file, creation, set); alone it then exits
  --format F        result format of -f/-e: tableau (default), csv, json, arrow
`

// run is the whole command; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tablerun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	file := fs.String("f", "", "script file")
	exec := fs.String("e", "", "statements")
	initFile := fs.String("i", "", "init script")
	keepGoing := fs.Bool("keep-going", false, "continue after errors")
	format := fs.String("format", shell.FormatTableau, "result format of -f/-e: tableau, csv, json, arrow")
	var opts options
	fs.Var(&opts, "D", "key=value")
	configFile := fs.String("config", "", "YAML configuration file")
	printConfig := fs.Bool("print-config", false, "print the effective configuration")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
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
	env := core.NewTableEnvironment(settings)
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
		if !runScript(ctx, env, "SHOW EFFECTIVE CONFIGURATION;", stdout, stderr, false, shell.FormatTableau) {
			return 1
		}
		if interactive {
			return 0
		}
	}
	if interactive {
		// The shell handles Ctrl-C itself (it cancels the running
		// statement), so the signal context must not end it.
		if err := shell.Run(context.WithoutCancel(ctx), env, os.Stdin, stdout, shell.Options{}); err != nil {
			fmt.Fprintf(stderr, "tablerun: %v\n", err)
			return 1
		}
		// Background jobs end with the session that runs them.
		stopJobs(env)
		return 0
	}
	script := *exec
	if *file != "" {
		text, err := os.ReadFile(*file)
		if err != nil {
			fmt.Fprintf(stderr, "tablerun: %v\n", err)
			return 1
		}
		script = string(text)
	}
	ok := runScript(ctx, env, script, stdout, stdout, *keepGoing, *format)
	// Jobs submitted in the background ('table.dml-sync' = 'false') run
	// in this process: it ends when they do (Ctrl-C cancels them).
	if err := env.AwaitJobs(ctx); err != nil {
		fmt.Fprintf(stderr, "tablerun: %v\n", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

// runScript runs the statements of script, printing results to out (in
// the tableau layout, or as csv, json or arrow for query results) and
// errors to errOut. It reports whether every statement succeeded.
func runScript(ctx context.Context, env *core.TableEnvironment, script string, out, errOut io.Writer, keepGoing bool, format string) bool {
	stmts, err := parser.ParseScript(script)
	if err != nil {
		printError(errOut, env, err, script)
		return false
	}
	ok := true
	for _, st := range stmts {
		res, err := env.ExecuteSQL(ctx, st.Text)
		if err != nil {
			printError(errOut, env, core.ShiftPosition(err, st.Line, st.Col), script)
			ok = false
			if !keepGoing {
				return false
			}
			continue
		}
		if format != shell.FormatTableau {
			if res.Kind() == core.SuccessWithContent && !res.IsDML() {
				if err := shell.WriteResult(out, res, format); err != nil {
					printError(errOut, env, err, "")
					return false
				}
			}
			continue
		}
		if err := core.PrintClientResult(out, env.Config(), res, nil); err != nil {
			return false
		}
		fmt.Fprintln(out)
	}
	return ok
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

// Command tablerun runs Flink SQL scripts and statements and prints their
// results the way Flink's SQL client does in tableau mode.
//
//	tablerun -f script.sql [-i init.sql] [--keep-going] [-D key=value ...]
//	tablerun -e "SELECT 1 + 1"
//
// Sessions start in batch mode (execution.runtime-mode = BATCH) with
// sql-client.execution.result-mode = tableau; -D sets further initial
// options (RESET returns to them). Each statement's output is followed by a
// blank line. INSERT runs to completion before the next statement (the job
// runs in-process), so it prints "[INFO] Complete execution of the SQL
// update statement." whatever table.dml-sync says. Results are always
// printed in the tableau layout (the table and changelog result modes are
// interactive views that a script run cannot show). The first failing
// statement stops the script with exit code 1; with --keep-going the script
// runs on and the exit code is still 1. Parse errors report lines and
// columns relative to the script file. Without -f or -e the usage is
// printed (the interactive shell is not there yet).
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
	"github.com/tablerun/tablerun/planner/parser"
)

func main() {
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

Runs Flink SQL statements and prints results as Flink's SQL client does.

  -f <script.sql>   run the statements of a script file
  -e <statements>   run the given statements
  -i <init.sql>     run a script silently before -f/-e (its errors abort)
  --keep-going      run on after a failing statement (the exit code is still 1)
  -D key=value      set an initial session option (repeatable)
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
	var opts options
	fs.Var(&opts, "D", "key=value")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || (*file == "" && *exec == "") || (*file != "" && *exec != "") {
		fmt.Fprint(stderr, usage)
		return 2
	}
	settings := core.InBatchMode().WithOption("sql-client.execution.result-mode", "tableau")
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
		if !runScript(ctx, env, string(text), io.Discard, stdout, false) {
			return 1
		}
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
	if !runScript(ctx, env, script, stdout, stdout, *keepGoing) {
		return 1
	}
	return 0
}

// runScript runs the statements of script, printing results to out and
// errors to errOut. It reports whether every statement succeeded.
func runScript(ctx context.Context, env *core.TableEnvironment, script string, out, errOut io.Writer, keepGoing bool) bool {
	stmts, err := parser.ParseScript(script)
	if err != nil {
		printError(errOut, env, err)
		return false
	}
	ok := true
	for _, st := range stmts {
		res, err := env.ExecuteSQL(ctx, st.Text)
		if err != nil {
			printError(errOut, env, core.ShiftPosition(err, st.Line, st.Col))
			ok = false
			if !keepGoing {
				return false
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

func printError(w io.Writer, env *core.TableEnvironment, err error) {
	_ = core.PrintClientResult(w, env.Config(), nil, err)
	fmt.Fprintln(w)
}

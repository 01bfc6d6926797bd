package flinkdiff

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tablerun/tablerun/flinkgw"
	"github.com/tablerun/tablerun/internal/flinkenv"
)

const usage = `usage: tablerun diff [flags] script.sql...

Runs each script on tablerun and on Apache Flink (through its SQL Gateway)
and compares them statement by statement (see docs/flink-differences.md).
Without --gateway it starts a Flink cluster of its own
(internal/flinkenv/install.sh installs Flink) and stops it at the end.

  --gateway URL   the SQL Gateway to use (http://127.0.0.1:8083)
  --mode M        execution.runtime-mode of both sessions: streaming (default) or batch
  --root DIR      directory relative 'path' options are relative to (default .)
  -v              print every statement, not only the differences

Exit status 1 when a statement differs (known differences do not count).
`

// Main is the 'tablerun diff' command.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tablerun diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	gw := fs.String("gateway", "", "SQL Gateway URL")
	mode := fs.String("mode", "streaming", "runtime mode")
	root := fs.String("root", ".", "root of relative paths")
	verbose := fs.Bool("v", false, "print every statement")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	if *gw == "" {
		fmt.Fprintln(stderr, "tablerun diff: starting Flink", flinkenv.Version, "…")
		c, err := flinkenv.Start(ctx, flinkenv.Options{})
		if err != nil {
			fmt.Fprintln(stderr, "tablerun diff:", err)
			return 1
		}
		defer c.Stop()
		*gw = c.GatewayURL
	}
	absRoot, err := filepath.Abs(*root)
	if err != nil {
		fmt.Fprintln(stderr, "tablerun diff:", err)
		return 1
	}
	r := &Runner{Gateway: flinkgw.New(*gw), Root: absRoot}
	code := 0
	for _, f := range fs.Args() {
		text, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(stderr, "tablerun diff:", err)
			return 1
		}
		rep, err := r.Run(ctx, f, string(text), Options{Properties: map[string]string{"execution.runtime-mode": *mode}})
		if err != nil {
			fmt.Fprintln(stderr, "tablerun diff:", err)
			return 1
		}
		for _, s := range rep.Statements {
			if !*verbose && s.Outcome != Differ {
				continue
			}
			fmt.Fprintf(stdout, "%s:%d: %s %s\n%s\n--- tablerun\n%s\n--- Flink\n%s\n\n", f, s.Line, s.Outcome, s.Detail, s.SQL, s.Ours, s.Flink)
		}
		fmt.Fprintf(stdout, "%s: %d statements: %d equal, %d known, %d differ, %d skipped\n", f, len(rep.Statements),
			rep.Count(Equal), rep.Count(Known), rep.Count(Differ), rep.Count(Skipped))
		if rep.Count(Differ) > 0 {
			code = 1
		}
	}
	return code
}

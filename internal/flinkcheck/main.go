package flinkcheck

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

const usage = `Usage: tablerun check [--flink] script.sql ...

Parses each script (syntax errors exit with 1). With --flink it also lists,
with line and column, everything that will not run on Apache Flink:
tablerun's extensions (the README's extensions table) and Python functions
PyFlink would not register; the exit code is then 1 if anything was found.
`

// Main is `tablerun check`; it returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tablerun check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	flink := fs.Bool("flink", false, "list what will not run on Apache Flink")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	code := 0
	for _, path := range fs.Args() {
		text, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "tablerun check: %v\n", err)
			code = 1
			continue
		}
		findings, err := Check(string(text), Options{ReadFile: func(p string) ([]byte, error) {
			if !filepath.IsAbs(p) {
				// python.files as the CLI resolves them: against the
				// working directory
				p = filepath.Clean(p)
			}
			return os.ReadFile(p)
		}})
		if err != nil {
			fmt.Fprintf(stdout, "%s:%v\n", path, err) // a ParseError says line:col:
			code = 1
			continue
		}
		if !*flink {
			continue
		}
		for _, f := range findings {
			fmt.Fprintf(stdout, "%s:%s\n", path, f)
		}
		if len(findings) > 0 {
			code = 1
			noun := "findings"
			if len(findings) == 1 {
				noun = "finding"
			}
			fmt.Fprintf(stdout, "%s: %d %s: this script will not run on Apache Flink as it is\n", path, len(findings), noun)
		} else {
			fmt.Fprintf(stdout, "%s: nothing tablerun-only found\n", path)
		}
	}
	return code
}

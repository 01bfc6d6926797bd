package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/internal/bench"
)

// withStdin makes run read text as its standard input.
func withStdin(t *testing.T, text string) {
	old := stdin
	stdin = strings.NewReader(text)
	t.Cleanup(func() { stdin = old })
}

// TestScriptCommand checks what makes the command fit for scripts: data
// alone on stdout with --format, exit codes from every source of SQL, -f
// -, a last statement without ';', the arrow rule, --help and HELP;.
func TestScriptCommand(t *testing.T) {
	const batch = "-D"
	cases := []struct {
		name         string
		args         []string
		stdin        string
		code         int
		stdout       string // exact, when set
		stdoutHas    []string
		stderrHas    []string
		stderrHasNot []string
	}{
		{name: "csv keeps stdout for data", args: []string{"--format", "csv", "-e", "CREATE TABLE t (a INT) WITH ('connector' = 'values', 'data' = '[[1], [2]]'); SELECT a FROM t; SELECT nope FROM t"},
			code: 1, stdout: "op,a\n+I,1\n+I,2\n", stderrHas: []string{"[INFO] Execute statement succeeded.", "[ERROR] Could not execute SQL statement."}},
		{name: "json in batch mode", args: []string{batch, "execution.runtime-mode=batch", "--format", "json", "-e", "SET 'a.b' = 'c'; SELECT 1 AS x"},
			stdout: "{\"x\":1}\n", stderrHas: []string{"[INFO] Execute statement succeeded."}},
		{name: "-f - reads stdin, last statement without ;", args: []string{batch, "execution.runtime-mode=batch", "-f", "-"}, stdin: "SELECT 1 AS one;\nSELECT 2 AS two",
			stdoutHas: []string{"| one |", "| two |"}},
		{name: "-f - fails", args: []string{"-f", "-"}, stdin: "SELECT 1;\nSELECT nope", code: 1, stdoutHas: []string{"[ERROR]"}},
		{name: "piped stdin fails", args: nil, stdin: "SELECT 1;\nSELECT x FROM nope;\n", code: 1, stdoutHas: []string{"[ERROR]"}},
		{name: "piped stdin, last statement without ;", args: []string{batch, "execution.runtime-mode=batch"}, stdin: "SELECT 1 AS one;\nSELECT 2 AS two",
			stdoutHas: []string{"| one |", "| two |"}},
		{name: "-e fails", args: []string{"-e", "SELECT nope"}, code: 1},
		{name: "arrow takes one result", args: []string{"--format", "arrow", "-e", "SELECT 1;\nSHOW TABLES;\nSELECT 2"}, code: 2,
			stdout: "", stderrHas: []string{"--format arrow writes one Arrow IPC stream", "(lines 1, 2, 3)"}},
		{name: "unknown format", args: []string{"--format", "xml", "-e", "SELECT 1"}, code: 2, stderrHas: []string{`unknown --format "xml"`}},
		{name: "help lists the subcommands", args: []string{"--help"},
			stdoutHas: []string{"tablerun kernel install", "tablerun kernel --connection-file", "tablerun bench nexmark", "tablerun bench live", "tablerun diff", "--format"}},
		{name: "HELP describes tablerun", args: []string{"-e", "HELP;"},
			stdoutHas: []string{"SHOW EFFECTIVE CONFIGURATION", "LANGUAGE PYTHON|JAVASCRIPT", "--format csv|json|arrow"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withStdin(t, c.stdin)
			var out, errOut bytes.Buffer
			code := run(context.Background(), c.args, &out, &errOut)
			require.Equal(t, c.code, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
			if c.stdout != "" || c.code == 2 && c.name == "arrow takes one result" {
				require.Equal(t, c.stdout, out.String())
			}
			for _, s := range c.stdoutHas {
				require.Contains(t, out.String(), s)
			}
			for _, s := range c.stderrHas {
				require.Contains(t, errOut.String(), s)
			}
			require.NotContains(t, out.String()+errOut.String(), "ADD JAR")
			require.NotContains(t, out.String()+errOut.String(), "java.lang.RuntimeException")
		})
	}
}

// syncWriter is a buffer several goroutines may write and read.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.b.Bytes()...)
}

const unboundedDDL = "CREATE TABLE g (k INT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'fields.k.min' = '1', 'fields.k.max' = '10');\n"

// TestUnboundedScript runs an unbounded GROUP BY through -e in each
// format: rows reach stdout while the query runs, Ctrl-C (the context)
// ends it in under a second with exit code 130 and "[INFO] Query
// canceled." on stderr (stdout, in tableau), and the data stays
// well-formed.
func TestUnboundedScript(t *testing.T) {
	for _, format := range []string{"tableau", "csv", "json", "arrow"} {
		t.Run(format, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			out, errOut := &syncWriter{}, &syncWriter{}
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, []string{"--format", format, "-e", unboundedDDL + "SELECT k, SUM(v) FROM g GROUP BY k"}, out, errOut)
			}()
			deadline := time.Now().Add(10 * time.Second)
			for {
				o := out.bytes()
				if format == "arrow" && len(o) > 1000 || bytes.Count(o, []byte("+U")) >= 5 {
					break
				}
				select {
				case code := <-done:
					t.Fatalf("ended early with %d:\n%s\n%s", code, o, errOut.bytes())
				default:
				}
				require.True(t, time.Now().Before(deadline), "no rows while the query runs:\n%s", o)
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
			stop := time.Now()
			select {
			case code := <-done:
				require.Equal(t, 130, code)
			case <-time.After(5 * time.Second):
				t.Fatal("Ctrl-C did not end the query")
			}
			require.Less(t, time.Since(stop), time.Second)
			info := string(errOut.bytes())
			if format == "tableau" {
				info = string(out.bytes())
			}
			require.Contains(t, info, "[INFO] Query canceled.")
			require.NotContains(t, string(out.bytes())+string(errOut.bytes()), "java.")
			switch format {
			case "csv":
				require.True(t, strings.HasPrefix(string(out.bytes()), "op,k,EXPR$1\n+I,"))
			case "arrow":
				r, err := ipc.NewReader(bytes.NewReader(out.bytes()))
				require.NoError(t, err)
				n := int64(0)
				for r.Next() {
					n += r.RecordBatch().NumRows()
				}
				require.NoError(t, r.Err())
				require.Positive(t, n)
				r.Release()
			}
		})
	}
}

// TestBenchNexmarkFromAnyFolder runs `tablerun bench nexmark` in an empty
// directory: the queries come from the binary.
func TestBenchNexmarkFromAnyFolder(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errOut bytes.Buffer
	code := bench.Main(context.Background(), []string{"nexmark", "--query", "q1", "--events", "2000", "--runs", "1"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Contains(t, out.String(), "nexmark q1")
	// --queries-dir overrides the embedded copy
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ddl_gen.sql"), []byte("CREATE TABLE x (a INT) WITH ('connector' = 'datagen')"), 0o644))
	code = bench.Main(context.Background(), []string{"nexmark", "--query", "q1", "--events", "2000", "--runs", "1", "--queries-dir", dir}, io.Discard, &errOut)
	require.Equal(t, 1, code)
	require.Contains(t, errOut.String(), "ddl_views.sql")
}

package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files of the examples")

// repoRoot makes the test run from the repository root, where the example
// scripts' relative data paths (examples/data/...) resolve.
func repoRoot(t *testing.T) {
	t.Chdir("../..")
}

// TestExamples runs every examples/*.sql script through the CLI and compares
// stdout and the exit code with examples/golden/<name>.out (regenerate with
// go test ./cmd/tablerun -rewrite).
func TestExamples(t *testing.T) {
	repoRoot(t)
	scripts, err := filepath.Glob("examples/*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	for _, s := range scripts {
		name := strings.TrimSuffix(filepath.Base(s), ".sql")
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"-f", s, "-D", "sql-client.display.print-time-cost=false"}, &out, &errOut)
			got := out.String() + errOut.String()
			if code != 0 {
				got += "exit code: " + string(rune('0'+code)) + "\n"
			}
			golden := filepath.Join("examples", "golden", name+".out")
			if *rewrite {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run with -rewrite")
			require.Equal(t, string(want), got)
		})
	}
}

func TestCLI(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	initFile := write("init.sql", "SET 'table.display.max-column-width' = '5';\n")
	badScript := write("bad.sql", "SET 'a' = 'b';\n\n  SELECT * FROM;\nSET 'c' = 'd';\n")
	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"usage", []string{"stray-argument"}, 2, ""},
		{"both", []string{"-e", "SET 'a'='b'", "-f", "x"}, 2, ""},
		{"missing file", []string{"-f", filepath.Join(dir, "nope.sql")}, 1, ""},
		{"set", []string{"-e", "SET 'a' = 'b'; RESET 'a'"}, 0,
			"[INFO] Execute statement succeeded.\n\n[INFO] Execute statement succeeded.\n\n"},
		{"set list", []string{"-e", "SET 'x.y' = 'z';SET;", "-D", "sql-client.display.print-time-cost=false"}, 0,
			"[INFO] Execute statement succeeded.\n\n+------------------------------------+---------+\n"},
		{"bad value", []string{"-e", "SET 'table.dml-sync' = 'maybe'"}, 1,
			"[ERROR] Could not execute SQL statement. Reason:\n" +
				"java.lang.IllegalArgumentException: Unrecognized option for boolean: maybe. Expected either true or false(case insensitive)\n\n"},
		{"stops at error", []string{"-f", badScript}, 1, "[INFO] Execute statement succeeded.\n\n[ERROR] Could not execute SQL statement. Reason:\norg.apache.flink.sql.parser.impl.ParseException: "},
		{"keep going", []string{"--keep-going", "-f", badScript}, 1, "[INFO] Execute statement succeeded.\n\n[ERROR]"},
		{"init", []string{"-i", initFile, "-e", "SET 'q' = 'r'"}, 0, "[INFO] Execute statement succeeded.\n\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), c.args, &out, &errOut)
			require.Equal(t, c.code, code, out.String()+errOut.String())
			if c.name == "set list" {
				require.Contains(t, out.String(), "|                                x.y |       z |\n")
				// Flink's SET; lists explicitly set keys only: the streaming
				// default is not among them.
				require.Contains(t, out.String(), "3 rows in set\n\n")
			}
			if c.out != "" {
				require.True(t, strings.HasPrefix(out.String(), c.out), out.String())
			}
			if c.name == "keep going" {
				require.Equal(t, 3, strings.Count(out.String(), "[INFO]")+strings.Count(out.String(), "[ERROR]"))
			}
			if c.name == "stops at error" {
				require.Contains(t, out.String(), "at line 3, column")
				require.NotContains(t, out.String(), "'c'")
			}
		})
	}
}

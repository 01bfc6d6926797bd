package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

// qDir is where CI keeps Flink's scripts: shared/ beside the clone.
const qDir = "../../../shared/conformance/flink-q/sql-client"

// gatewayDir holds the SQL-gateway dialect twins of the scripts.
const gatewayDir = "../../../shared/conformance/flink-q/sql-gateway"

func TestParse(t *testing.T) {
	text := `# comment

SET 'a' = 'b';
[INFO] Execute statement succeeded.
!info

SELECT ';
';
+---+
!ok

SELECT --;
1;
Empty set
!ok
`
	recs, err := Parse(text)
	require.NoError(t, err)
	require.Len(t, recs, 3)
	require.Equal(t, Record{Line: 3, SQL: "SET 'a' = 'b';", Output: "[INFO] Execute statement succeeded.", Tag: "info"}, recs[0])
	require.Equal(t, "SELECT ';\n';", recs[1].SQL)
	require.Equal(t, "SELECT --;\n1;", recs[2].SQL)
	require.Equal(t, "ok", recs[2].Tag)

	_, err = Parse("SELECT 1;\noutput\n")
	require.Error(t, err)
}

func TestParseGateway(t *testing.T) {
	text := `# comment

SET 'a' = 'b';
!output
+--------+
| result |
+--------+
|     OK |
+--------+
1 row in set
!ok

select 1
from t
!output
org.x.Y: boom
!error
`
	recs, err := ParseGateway(text)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.Equal(t, Record{Line: 3, SQL: "SET 'a' = 'b'", Output: "+--------+\n| result |\n+--------+\n|     OK |\n+--------+\n1 row in set", Tag: "ok"}, recs[0])
	require.Equal(t, Record{Line: 13, SQL: "select 1\nfrom t", Output: "org.x.Y: boom", Tag: "error"}, recs[1])
	_, err = ParseGateway("SELECT 1\n")
	require.Error(t, err)
	require.Equal(t, "Empty set\n", tableau([]string{"a"}, nil))
	require.Equal(t, "+----+----+\n| op |  a |\n+----+----+\n| +I | 中 |\n+----+----+\n1 row in set\n",
		tableau([]string{"op", "a"}, [][]string{{"+I", "中"}}))
}

func TestSkipReason(t *testing.T) {
	require.NotEmpty(t, SkipReason(Record{SQL: "ADD JAR '/x.jar';"}, ""))
	require.NotEmpty(t, SkipReason(Record{SQL: "show  jars;"}, ""))
	require.NotEmpty(t, SkipReason(Record{SQL: "CREATE FUNCTION f AS 'X' USING JAR 'y.jar';"}, ""))
	require.NotEmpty(t, SkipReason(Record{SQL: "SELECT f(1);"}, "TableException: not supported yet: calling java function 'f': tablerun has no JVM"))
	require.NotEmpty(t, SkipReason(Record{SQL: "help;"}, ""))
	require.Empty(t, SkipReason(Record{SQL: "SELECT 1;"}, "wrong"))
}

func TestNormalize(t *testing.T) {
	require.Equal(t, "a\nJob ID:\nb", Normalize("a  \nJob ID: 1234\nb \n"))
}

// minPass is the number of records that pass in the files in scope of the
// session issue: TestConformance fails when a file passes fewer (a ratchet;
// raise the numbers as more records pass). Other files are only reported.
var minPass = map[string]int{
	"catalog_database.q":            128,
	"table.q":                       85,
	"view.q":                        45,
	"set.q":                         21,
	"statement_set.q":               22,
	"module.q":                      21,
	"gateway/catalog_database.q":    102,
	"gateway/table.q":               51,
	"gateway/view.q":                45,
	"gateway/set.q":                 4,
	"gateway/statement_set.q":       17,
	"gateway/begin_statement_set.q": 24,
}

// TestConformance runs every sql-client .q file and reports, per file, the
// records passed, failed and legitimately skipped (SkipReason; with
// CONFORMANCE_FILE=name -v the diffs and skips of the matching files are
// logged, CONFORMANCE_DIFF=1 -v logs all diffs). It fails on panics,
// unreadable files and when a file in scope passes fewer records than
// minPass records.
func TestConformance(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(qDir, "*.q"))
	if len(files) == 0 {
		t.Skipf("no .q files under %s", qDir)
	}
	sort.Strings(files)
	gw, _ := filepath.Glob(filepath.Join(gatewayDir, "*.q"))
	sort.Strings(gw)
	files = append(files, gw...)
	total, pass, skips := 0, 0, 0
	var summary []string
	only := os.Getenv("CONFORMANCE_FILE")
	for _, f := range files {
		name := filepath.Base(f)
		run := RunFile
		if filepath.Dir(f) == filepath.Clean(gatewayDir) {
			name, run = "gateway/"+name, RunGatewayFile
		}
		if only != "" && !strings.Contains(name, only) {
			continue
		}
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		var outs []Outcome
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic: %v", name, r)
				}
			}()
			outs, err = run(context.Background(), string(text))
		}()
		if err != nil {
			t.Logf("%s: %v", name, err)
		}
		p, skipped := 0, 0
		for _, o := range outs {
			if o.Internal != nil {
				var ce *core.Error
				stack := ""
				if errors.As(o.Internal, &ce) {
					stack = ce.Stack
				}
				t.Errorf("%s:%d: tablerun panicked: %v\n%s", name, o.Record.Line, o.Internal, stack)
			}
			if o.Pass {
				p++
			} else if o.Skip != "" {
				skipped++
				if testing.Verbose() && only != "" {
					t.Logf("%s:%d: skipped: %s", name, o.Record.Line, o.Skip)
				}
			} else if testing.Verbose() && (os.Getenv("CONFORMANCE_DIFF") != "" || only != "") {
				t.Logf("%s:%d: mismatch\n--- sql\n%s\n--- want (%s)\n%s\n--- got (%s)\n%s", name, o.Record.Line,
					o.Record.SQL, o.Record.Tag, Normalize(o.Record.Output), o.Tag, o.Actual)
			}
		}
		total += len(outs)
		pass += p
		skips += skipped
		failed := len(outs) - p - skipped
		summary = append(summary, fmt.Sprintf("%-28s %3d/%3d passed, %3d failed, %3d skipped", name, p, len(outs), failed, skipped))
		if min, ok := minPass[name]; ok && p < min {
			t.Errorf("%s: %d records pass, fewer than the %d it passed before (a regression)", name, p, min)
		}
	}
	for _, s := range summary {
		t.Log(s)
	}
	line := fmt.Sprintf("conformance: %d/%d records pass (%d legitimately skipped)", pass, total, skips)
	t.Log(line)
	fmt.Println(line)
}

func TestNewSession(t *testing.T) {
	env, err := NewSession()
	require.NoError(t, err)
	require.Len(t, env.Config().Explicit(), 9)
	env.Config().ResetAll()
	require.Len(t, env.Config().Explicit(), 7)
}

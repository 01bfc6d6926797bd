package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

// qDir is where CI keeps Flink's scripts: shared/ beside the clone.
const qDir = "../../../shared/conformance/flink-q/sql-client"

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

func TestNormalize(t *testing.T) {
	require.Equal(t, "a\nJob ID:\nb", Normalize("a  \nJob ID: 1234\nb \n"))
}

// TestConformance runs every sql-client .q file and reports pass counts. It
// fails only on panics and unreadable files, never on mismatches.
func TestConformance(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(qDir, "*.q"))
	if len(files) == 0 {
		t.Skipf("no .q files under %s", qDir)
	}
	sort.Strings(files)
	total, pass := 0, 0
	var summary []string
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		var outs []Outcome
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic: %v", filepath.Base(f), r)
				}
			}()
			outs, err = RunFile(context.Background(), string(text))
		}()
		if err != nil {
			t.Logf("%s: %v", filepath.Base(f), err)
		}
		p := 0
		for _, o := range outs {
			if o.Internal != nil {
				var ce *core.Error
				stack := ""
				if errors.As(o.Internal, &ce) {
					stack = ce.Stack
				}
				t.Errorf("%s:%d: tablerun panicked: %v\n%s", filepath.Base(f), o.Record.Line, o.Internal, stack)
			}
			if o.Pass {
				p++
			} else if testing.Verbose() && os.Getenv("CONFORMANCE_DIFF") != "" {
				t.Logf("%s:%d: mismatch\n--- sql\n%s\n--- want (%s)\n%s\n--- got (%s)\n%s", filepath.Base(f), o.Record.Line,
					o.Record.SQL, o.Record.Tag, Normalize(o.Record.Output), o.Tag, o.Actual)
			}
		}
		total += len(outs)
		pass += p
		summary = append(summary, fmt.Sprintf("%-20s %3d/%3d", filepath.Base(f), p, len(outs)))
	}
	for _, s := range summary {
		t.Log(s)
	}
	line := fmt.Sprintf("conformance: %d/%d records pass", pass, total)
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

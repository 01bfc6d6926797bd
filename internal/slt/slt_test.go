package slt

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	text := `# a comment
statement ok
CREATE TEMPORARY VIEW t(a) AS VALUES (1)

statement error ValidationException: .*not found
SELECT * FROM nope

skipif tablerun # engine bug 42
query IT rowsort
SELECT a,
  'x'
FROM t
----
1	x
2   y

halt
`
	recs, err := Parse(text)
	require.NoError(t, err)
	require.Len(t, recs, 4)
	require.Equal(t, StatementOK, recs[0].Kind)
	require.Equal(t, 2, recs[0].Line)
	require.Equal(t, StatementError, recs[1].Kind)
	require.Equal(t, "ValidationException: .*not found", recs[1].ErrPattern)
	require.Equal(t, Query, recs[2].Kind)
	require.Equal(t, "engine bug 42", recs[2].Skip)
	require.True(t, recs[2].RowSort)
	require.Equal(t, "SELECT a,\n  'x'\nFROM t", recs[2].SQL)
	require.Equal(t, []string{"1 x", "2 y"}, recs[2].Expected)
	require.Equal(t, Halt, recs[3].Kind)

	recs, err = Parse("query I materialize\nSELECT 1\n----\n1\n")
	require.NoError(t, err)
	require.True(t, recs[0].Materialize)
	require.True(t, recs[0].RowSort)

	for _, bad := range []string{"query\nSELECT 1\n----\n1", "query I\nSELECT 1\n", "statement maybe\nSELECT 1", "frobnicate", "statement error (\nSELECT 1"} {
		_, err := Parse(bad)
		require.Error(t, err, bad)
	}
}

// TestFiles runs every testdata/*.slt file in every verification mode.
func TestFiles(t *testing.T) {
	files, err := filepath.Glob("../../testdata/*.slt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			text, err := os.ReadFile(f)
			require.NoError(t, err)
			recs, err := Parse(string(text))
			require.NoError(t, err)
			for _, m := range Modes() {
				res := Run(context.Background(), recs, m, t.TempDir())
				for _, fl := range res.Failures {
					t.Errorf("%s:%s", filepath.Base(f), fl)
				}
				t.Logf("%s [%s]: %d passed, %d skipped, %d failed", filepath.Base(f), m.Name, res.Passed, res.Skipped, len(res.Failures))
			}
		})
	}
}

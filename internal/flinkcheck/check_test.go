package flinkcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readmeExtensions returns the first cells of the README's extensions
// table (the table under "Extensions (not in Flink").
func readmeExtensions(t *testing.T) []string {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "| extension | what |") {
			start = i
			break
		}
	}
	require.GreaterOrEqual(t, start, 0, "README has no extensions table")
	var names []string
	for _, l := range lines[start+2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		cells := strings.Split(strings.Trim(l, "|"), " | ")
		names = append(names, strings.TrimSpace(cells[0]))
	}
	return names
}

// TestExtensionsAreTheREADMETable: the check knows exactly the
// extensions the README documents.
func TestExtensionsAreTheREADMETable(t *testing.T) {
	var known []string
	for _, e := range Extensions {
		known = append(known, e.Name)
	}
	readme := readmeExtensions(t)
	sort.Strings(known)
	sort.Strings(readme)
	require.Equal(t, known, readme, "README's extensions table vs flinkcheck.Extensions")
}

func TestCheck(t *testing.T) {
	script := `SET 'execution.runtime-mode' = 'batch';
SET 'tablerun.exec.batch-size' = '1024';
CREATE TABLE v (a INT) WITH ('connector' = 'values', 'data' = '[[1]]');
CREATE TABLE f (a INT) WITH (
  'connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'arrow');
CREATE TABLE n (a INT) WITH ('connector' = 'nexmark');
CREATE CATALOG c WITH ('type' = 'tablerun_file', 'path' = '/tmp/c');
  SHOW EFFECTIVE CONFIGURATION;
EXPLAIN ANALYZE SELECT * FROM v;
CREATE FUNCTION js(x INT) RETURNS INT LANGUAGE JAVASCRIPT AS $$ function js(x) { return x; } $$;
CREATE FUNCTION py(x INT) RETURNS INT LANGUAGE PYTHON AS $$
def py(x):
    return x
$$;
SELECT * FROM v /*+ OPTIONS('tablerun.x' = '1') */;
SELECT 1;`
	fs, err := Check(script, Options{})
	require.NoError(t, err)
	var got []string
	for _, f := range fs {
		got = append(got, f.String())
	}
	want := []string{
		"2:5: option 'tablerun.exec.batch-size' (tablerun extension `tablerun.*` options): " + ExtOptions.Flink,
		"3:54: 'data' of the values connector (tablerun extension `values` connector `'data'`): " + ExtValuesData.Flink,
		"5:50: 'format' = 'arrow' (tablerun extension `'format' = 'arrow'`): " + ExtArrowFormat.Flink,
		"6:30: 'connector' = 'nexmark' (tablerun extension `nexmark` connector): " + ExtNexmark.Flink,
		"7:24: a tablerun_file catalog (tablerun extension `tablerun_file` catalog): " + ExtFileCatalog.Flink,
		"8:8: SHOW EFFECTIVE CONFIGURATION (tablerun extension `SHOW EFFECTIVE CONFIGURATION`): " + ExtShowEffective.Flink,
		"9:9: EXPLAIN ANALYZE (tablerun extension `EXPLAIN ANALYZE`): " + ExtExplainAnalyze.Flink,
		"10:39: a JavaScript function (tablerun extension `LANGUAGE JAVASCRIPT` functions): " + ExtJavaScript.Flink,
		"11:55: the inline body of function py (tablerun extension inline function bodies (`RETURNS … LANGUAGE PYTHON AS $$ … $$`)): " + ExtInlineFunction.Flink,
		"15:29: option 'tablerun.x' (tablerun extension `tablerun.*` options): " + ExtOptions.Flink,
	}
	require.Equal(t, strings.Join(want, "\n"), strings.Join(got, "\n"))

	_, err = Check("SELECT 1;\nSELECT FROM;", Options{})
	require.ErrorContains(t, err, "2:")
}

func TestCheckInferredColumnsAndCSVHeader(t *testing.T) {
	script := `CREATE TABLE p WITH ('connector' = 'filesystem', 'path' = '/d', 'format' = 'parquet');
CREATE TABLE c WITH ('connector' = 'filesystem', 'path' = '/d', 'format' = 'csv', 'csv.header' = 'true');
CREATE TABLE k (a INT) WITH ('connector' = 'filesystem', 'path' = '/d', 'format' = 'json');`
	fs, err := Check(script, Options{})
	require.NoError(t, err)
	var got []string
	for _, f := range fs {
		got = append(got, f.String())
	}
	require.Equal(t, []string{
		"1:1: table p declares no columns (tablerun reads them from its files) (tablerun extension " + ExtInferredColumns.Name + "): " + ExtInferredColumns.Flink,
		"2:1: table c declares no columns (tablerun reads them from its files) (tablerun extension " + ExtInferredColumns.Name + "): " + ExtInferredColumns.Flink,
		"2:83: option 'csv.header' (tablerun extension `'csv.header'`): " + ExtCSVHeader.Flink,
	}, got)
}

// TestCheckReservedNames: unquoted names that are reserved words of
// Flink's parser (each position here is one Flink 2.3 refuses with
// "Encountered …") are reported; quoted ones, function names (COUNT(*),
// YEAR(d)) and keywords are not.
func TestCheckReservedNames(t *testing.T) {
	script := "CREATE TABLE t (`value` INT, `user` STRING, ts TIMESTAMP(3));\n" +
		"CREATE TABLE u (value INT, year INT, r ROW<count INT>) WITH ('connector' = 'datagen');\n" +
		"SELECT value AS `count`, COUNT(*) AS cnt, YEAR(CURRENT_DATE) FROM u GROUP BY value;\n" +
		"SELECT t.value, x.count FROM (SELECT 1 AS count) x, u AS t;\n" +
		"SELECT * FROM u date;"
	fs, err := Check(script, Options{})
	require.NoError(t, err)
	var got []string
	for _, f := range fs {
		require.Equal(t, &ExtReservedNames, f.Ext)
		got = append(got, fmt.Sprintf("%d:%d %s", f.Line, f.Col, f.What))
	}
	require.Equal(t, []string{
		"2:17 name value, a reserved word in Flink (write `value`)",
		"2:28 name year, a reserved word in Flink (write `year`)",
		"2:44 name count, a reserved word in Flink (write `count`)",
		"3:8 name value, a reserved word in Flink (write `value`)",
		"3:78 name value, a reserved word in Flink (write `value`)",
		"4:10 name value, a reserved word in Flink (write `value`)",
		"4:19 name count, a reserved word in Flink (write `count`)",
		"4:43 name count, a reserved word in Flink (write `count`)",
		"5:17 name date, a reserved word in Flink (write `date`)",
	}, got)
}

package filesystem_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInferSchemaSelfDescribingFormats writes every type with declared
// columns, declares a second table on the same files without columns and
// reads the same rows back through the inferred columns.
func TestInferSchemaSelfDescribingFormats(t *testing.T) {
	for _, format := range []string{"parquet", "avro", "arrow"} {
		t.Run(format, func(t *testing.T) {
			e := batchEnv(t)
			dir := t.TempDir()
			cols, rows := allTypesColumns, allTypesRows
			if format == "avro" { // Avro holds no TIMESTAMP(9)
				cols = strings.NewReplacer("ts9 TIMESTAMP(9), ", "").Replace(allTypesColumns)
				rows = "SELECT b, ti, si, i, bi, f, d, dec1, dec2, dec3, c, s, vb, dt, tm, ts0, ts3, ts6, ltz, arr, arrs, m, r, ar FROM (" + allTypesRows + ")"
			}
			run(t, e, "CREATE TABLE w ("+cols+") WITH ('connector' = 'filesystem', 'path' = '"+dir+"', 'format' = '"+format+"')")
			run(t, e, "INSERT INTO w "+rows)
			run(t, e, "CREATE TABLE inferred WITH ('connector' = 'filesystem', 'path' = '"+dir+"', 'format' = '"+format+"')")
			got := printedRows(t, e, "DESCRIBE inferred")
			want := printedRows(t, e, "DESCRIBE w")
			require.Len(t, got, len(want))
			for i := range want { // same names, in order
				require.Equal(t, strings.Split(want[i], "|")[0], strings.Split(got[i], "|")[0])
			}
			src := "SELECT * FROM w ORDER BY i NULLS FIRST"
			if format == "parquet" { // INT96 timestamps are inferred as TIMESTAMP(9)
				src = "SELECT b, ti, si, i, bi, f, d, dec1, dec2, dec3, c, s, vb, dt, tm, CAST(ts0 AS TIMESTAMP(9)), CAST(ts3 AS TIMESTAMP(9)), CAST(ts6 AS TIMESTAMP(9)), ts9, CAST(CAST(ltz AS TIMESTAMP(3)) AS TIMESTAMP(9)), arr, arrs, m, r, ar FROM w ORDER BY i NULLS FIRST"
			}
			require.Equal(t, printedRows(t, e, src),
				printedRows(t, e, "SELECT * FROM inferred ORDER BY i NULLS FIRST"))
		})
	}
}

// TestInferSchemaCSVHeader: 'csv.header' writes the names first, reads
// past them, and names and types the columns of a table without them.
func TestInferSchemaCSVHeader(t *testing.T) {
	e := batchEnv(t)
	dir := t.TempDir()
	run(t, e, "CREATE TABLE w (id BIGINT, name STRING, price DOUBLE, ok BOOLEAN, d DATE, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '"+dir+"', 'format' = 'csv', 'csv.header' = 'true')")
	run(t, e, "INSERT INTO w VALUES (1, 'a,b', 1.5, TRUE, DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05.678'), (2, CAST(NULL AS STRING), 2e0, FALSE, DATE '2024-01-03', TIMESTAMP '2024-01-02 00:00:00')")
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	text, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(text), "id,name,price,ok,d,ts\n"), string(text))
	require.ElementsMatch(t, []string{"1|a,b|1.5|true|19724|1704164645678000", "2||2|false|19725|1704153600000000"},
		printedRows(t, e, "SELECT * FROM w"))

	run(t, e, "CREATE TABLE inferred WITH ('connector' = 'filesystem', 'path' = '"+dir+"', 'format' = 'csv', 'csv.header' = 'true')")
	var desc []string
	for _, r := range printedRows(t, e, "DESCRIBE inferred") {
		f := strings.Split(r, "|")
		desc = append(desc, f[0]+" "+f[1])
	}
	require.Equal(t, []string{"id BIGINT", "name STRING", "price DOUBLE", "ok BOOLEAN", "d DATE", "ts TIMESTAMP(3)"}, desc)
	require.Equal(t, printedRows(t, e, "SELECT * FROM w ORDER BY id"), printedRows(t, e, "SELECT * FROM inferred ORDER BY id"))

	// A quoted header field with a line break is one header record.
	f := filepath.Join(t.TempDir(), "q.csv")
	require.NoError(t, os.WriteFile(f, []byte("\"a\nb\",c\n1,x\n"), 0o644))
	run(t, e, "CREATE TABLE q (x INT, y STRING) WITH ('connector' = 'filesystem', 'path' = '"+f+"', 'format' = 'csv', 'csv.header' = 'true')")
	require.Equal(t, []string{"1|x"}, printedRows(t, e, "SELECT * FROM q"))
}

// TestInferSchemaErrors: what cannot be inferred fails CREATE TABLE with
// the reason, and the session goes on.
func TestInferSchemaErrors(t *testing.T) {
	e := batchEnv(t)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.csv")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	dup := filepath.Join(dir, "dup.csv")
	require.NoError(t, os.WriteFile(dup, []byte("a,A\n1,2\n"), 0o644))
	for sql, want := range map[string]string{
		"CREATE TABLE t1 WITH ('connector' = 'filesystem', 'path' = '" + dir + "/missing', 'format' = 'parquet')":              "declares no columns and they cannot be inferred: File " + dir + "/missing does not exist",
		"CREATE TABLE t2 WITH ('connector' = 'filesystem', 'path' = '" + empty + "', 'format' = 'csv', 'csv.header' = 'true')": "is empty (no header line)",
		"CREATE TABLE t3 WITH ('connector' = 'filesystem', 'path' = '" + dup + "', 'format' = 'csv', 'csv.header' = 'true')":   "has the column name 'A' twice",
		"CREATE TABLE t4 WITH ('connector' = 'filesystem', 'path' = '" + empty + "', 'format' = 'avro')":                       "declares no columns and they cannot be inferred: reading " + empty,
	} {
		err := runErr(e, sql)
		require.Error(t, err, sql)
		require.Contains(t, err.Error(), want, sql)
	}
	// nothing was created; the session goes on
	require.Error(t, runErr(e, "DESCRIBE t1"))
	require.Equal(t, []string{"1|2"}, printedRows(t, e, "SELECT * FROM (VALUES (1, 2))"))
}

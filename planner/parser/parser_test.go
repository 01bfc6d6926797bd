package parser

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/ast"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		sql       string
		line, col int
		msg       string
	}{
		{"SELECT a FROMM t", 1, 16, `SQL parse failed. Encountered "t" at line 1, column 16.`},
		{"SELECT * FROMM t", 1, 10, `SQL parse failed. Encountered "FROMM" at line 1, column 10.`},
		{"SELECT 'abc", 1, 8, ""},
		{"SELECT `abc", 1, 8, ""},
		{"SELECT 1 /* never closed", 1, 10, ""},
		{"SELECT\n  a,\n  FROM t", 3, 3, `SQL parse failed. Encountered "FROM" at line 3, column 3.`},
		{"create catalog invalid.cat with ('type'='generic_in_memory')", 1, 23, `SQL parse failed. Encountered "." at line 1, column 23.`},
		{"LOAD MODULE 'dummy'", 1, 13, `SQL parse failed. Encountered "\'dummy\'" at line 1, column 13.`},
		{"SELECT", 1, 7, `SQL parse failed. Encountered "<EOF>" at line 1, column 7.`},
		{"SELECT 1 2", 1, 10, `SQL parse failed. Encountered "2" at line 1, column 10.`},
		{"SELECT (1", 1, 10, ""},
		{"SELECT CAST(a AS NOPE) FROM t", 1, 18, ""},
		{"SELECT a FROM t WHERE", 1, 22, ""},
		{"CREATE TABLE t (a INT,)", 1, 23, ""},
		{"CREATE TABLE t (a INT) WITH ('k' = 1)", 1, 36, ""},
		{"INSERT t SELECT 1", 1, 8, ""},
		{"SELECT 1 FROM t JOIN s", 1, 23, ""},
		{"SELECT INTERVAL '1' FORTNIGHT", 1, 21, ""},
		{"SELECT X'0G'", 1, 8, ""},
		{"SELECT 12abc", 1, 8, ""},
		{"SELECT a FROM t ORDER a", 1, 23, ""},
		{"SELECT $$abc", 1, 8, ""},
		{"SELECT a + FROM t", 1, 12, ""},
		{"EXECUTE STATEMENT SET BEGIN\nEND", 2, 1, `SQL parse failed. Encountered "END" at line 2, column 1.`},
		{"BEGIN STATEMENT", 1, 16, ""},
		{"show databases in c0.t", 1, 19, "SQL parse failed. Show databases from/in identifier [ c0.t ] format error, catalog must be a single part identifier."},
		{"show tables in a.b.c", 1, 16, "SQL parse failed. Show tables from/in identifier [ a.b.c ] format error, it should be [catalog_name.]database_name."},
		{"EXECUTE STATEMENT SET BEGIN SELECT 1; END", 1, 29, ""},
		{"EXECUTE STATEMENT SET BEGIN INSERT INTO t SELECT 1 END", 1, 52, ""},
		{"EXECUTE STATEMENT SET BEGIN CREATE TABLE t (a INT); END", 1, 29, ""},
		{"SELECT * FROM t /*+ OPTIONS('k' = 'v' */", 1, 39, ""},
		{"SELECT 1;;", 1, 10, ""},
		{"SELECT a FROM t WHERE a IS 5", 1, 28, ""},
		{"  \n\t SELECT ,", 2, 10, ""},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := ParseStatement(tc.sql)
			require.Error(t, err)
			var pe *Error
			require.True(t, errors.As(err, &pe), "%T %v", err, err)
			require.Equal(t, tc.line, pe.Line, err.Error())
			require.Equal(t, tc.col, pe.Col, err.Error())
			require.False(t, pe.Unsupported)
			if tc.msg != "" {
				require.Equal(t, tc.msg, pe.Msg[:0]+"SQL parse failed. "+pe.Msg)
			}
		})
	}
}

func TestNotSupported(t *testing.T) {
	tests := []string{
		"EXECUTE SELECT 1",
		"SELECT * FROM t MATCH_RECOGNIZE (MEASURES FINAL LAST(A.x) AS y PATTERN (A) DEFINE A AS TRUE)",
		"CREATE OR REPLACE TABLE t AS SELECT 1",
		"CREATE TABLE t (a INT) DISTRIBUTED BY HASH(a) INTO 4 BUCKETS",
		"SELECT a FROM t WHERE a = ANY (SELECT b FROM s)",
		"SELECT ?",
		"SELECT JSON_ARRAYAGG(s ORDER BY s) FROM t",
		"SELECT LISTAGG(a) WITHIN GROUP (ORDER BY a) FROM t",
		"WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r",
		"DELETE FROM t WHERE a = 1",
		"UPDATE t SET a = 1",
		"SHOW PARTITIONS t",
		"SELECT CAST(a AS TIMESTAMP WITH TIME ZONE) FROM t",
		"ALTER TABLE t ADD PARTITION (dt = '1')",
		"SELECT a FROM t LIMIT 1, 2",
	}
	for _, sql := range tests {
		t.Run(sql, func(t *testing.T) {
			_, err := ParseStatement(sql)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrNotSupported)
			require.Regexp(t, `^not supported yet: `, err.Error())
			var pe *Error
			require.ErrorAs(t, err, &pe)
			require.Positive(t, pe.Line)
			require.Positive(t, pe.Col)
		})
	}
}

// TestExpressionRoundTrip checks that Format produces text that parses back
// to the same formatted text, and that it matches the expected rendering.
func TestExpressionRoundTrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ts - INTERVAL '1' SECONDS", "`ts` - INTERVAL '1' SECOND"},
		{"ts - INTERVAL '5' SECOND", "`ts` - INTERVAL '5' SECOND"},
		{"PROCTIME()", "PROCTIME()"},
		{"a + b * c", "`a` + `b` * `c`"},
		{"(a + b) * c", "(`a` + `b`) * `c`"},
		{"a - (b - c)", "`a` - (`b` - `c`)"},
		{"(a - b) - c", "`a` - `b` - `c`"},
		{"a OR b AND c", "`a` OR `b` AND `c`"},
		{"(a OR b) AND c", "(`a` OR `b`) AND `c`"},
		{"NOT a = b", "NOT `a` = `b`"},
		{"NOT (a AND b)", "NOT (`a` AND `b`)"},
		{"a = b = c", "`a` = `b` = `c`"},
		{"-(-a)", "-(-`a`)"},
		{"- 1", "-1"},
		{"a || 'x''y'", "`a` || 'x''y'"},
		{"t.`weird ``name`", "`t`.`weird ``name`"},
		{"CAST(x AS VARCHAR(10) NOT NULL)", "CAST(`x` AS VARCHAR(10) NOT NULL)"},
		{"CAST(x AS ROW(a INT, b ARRAY<STRING>))", "CAST(`x` AS ROW<`a` INT, `b` ARRAY<STRING>>)"},
		{"TRY_CAST(x AS MAP<STRING, INT>)", "TRY_CAST(`x` AS MAP<STRING, INT>)"},
		{"coalesce(a, 'x')", "COALESCE(`a`, 'x')"},
		{"count(*)", "COUNT(*)"},
		{"count(DISTINCT a) FILTER (WHERE b > 1)", "COUNT(DISTINCT `a`) FILTER (WHERE `b` > 1)"},
		{"EXTRACT(DAY FROM ts)", "EXTRACT(DAY FROM `ts`)"},
		{"POSITION('a' IN s)", "POSITION('a' IN `s`)"},
		{"TRIM(TRAILING 'x' FROM s)", "TRIM(TRAILING 'x' FROM `s`)"},
		{"OVERLAY(s PLACING 'x' FROM 1 FOR 2)", "OVERLAY(`s` PLACING 'x' FROM 1 FOR 2)"},
		{"FLOOR(ts TO HOUR)", "FLOOR(`ts` TO HOUR)"},
		{"a NOT IN (1, 2)", "`a` NOT IN (1, 2)"},
		{"a NOT LIKE 'x' ESCAPE '\\'", "`a` NOT LIKE 'x' ESCAPE '\\'"},
		{"a IS NOT DISTINCT FROM b", "`a` IS NOT DISTINCT FROM `b`"},
		{"CASE WHEN a THEN 1 ELSE 2 END", "CASE WHEN `a` THEN 1 ELSE 2 END"},
		{"ARRAY[1, 2][1]", "ARRAY[1, 2][1]"},
		{"m['k'].f", "`m`['k'].`f`"},
		{"ROW(1, 'a')", "ROW(1, 'a')"},
		{"(1, 'a')", "(1, 'a')"},
		{"MAP['a', 1]", "MAP['a', 1]"},
		{"DATE '2020-01-01'", "DATE '2020-01-01'"},
		{"TIMESTAMP '2020-01-01 00:00:00'", "TIMESTAMP '2020-01-01 00:00:00'"},
		{"INTERVAL '1 10:00:00.000' DAY TO SECOND(3)", "INTERVAL '1 10:00:00.000' DAY TO SECOND(3)"},
		{"INTERVAL '10' SECOND(3)", "INTERVAL '10' SECOND(3)"},
		{"INTERVAL -'2' HOURS", "INTERVAL -'2' HOUR"},
		{"CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP"},
		{"SUM(a) OVER (PARTITION BY b ORDER BY c ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)", "SUM(`a`) OVER (PARTITION BY `b` ORDER BY `c` ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"},
		{"a BETWEEN b + 1 AND c", "`a` BETWEEN `b` + 1 AND `c`"},
		{"(a = b) IS TRUE", "(`a` = `b`) IS TRUE"},
		{"X'ab'", "X'ab'"},
		{"1.5e10", "1.5e10"},
		{"name", "`name`"},
		{"`value` + type", "`value` + `type`"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			e, err := ParseExpression(tc.in)
			require.NoError(t, err)
			got := ast.Format(e)
			require.Equal(t, tc.want, got)
			e2, err := ParseExpression(got)
			require.NoError(t, err, got)
			require.Equal(t, got, ast.Format(e2))
		})
	}
}

func TestExpressionShapes(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"123", `Literal{Kind:INTEGER Text:"123"}`},
		{"00123", `Literal{Kind:INTEGER Text:"00123"}`},
		{"1.50", `Literal{Kind:DECIMAL Text:"1.50"}`},
		{".5", `Literal{Kind:DECIMAL Text:".5"}`},
		{"1E-3", `Literal{Kind:APPROX Text:"1E-3"}`},
		{"'it''s'", `Literal{Kind:STRING Text:"it's"}`},
		{"''", `Literal{Kind:STRING}`},
		{"X'0aff'", `Literal{Kind:BINARY Text:"0aff"}`},
		{"TRUE", `Literal{Kind:BOOLEAN Text:"TRUE"}`},
		{"null", `Literal{Kind:NULL Text:"NULL"}`},
		{"TIMESTAMP_LTZ '2020-01-01 00:00:00'", `Literal{Kind:TIMESTAMP_LTZ Text:"2020-01-01 00:00:00"}`},
		{"INTERVAL '10' SECOND(3)", `IntervalLit{Value:"10" Qualifier:IntervalQualifier{Start:"SECOND" StartPrecision:3 StartFracPrecision:-1 EndFracPrecision:-1}}`},
		{"INTERVAL -'1-2' YEAR TO MONTH", `IntervalLit{Negative:true Value:"1-2" Qualifier:IntervalQualifier{Start:"YEAR" StartPrecision:-1 StartFracPrecision:-1 End:"MONTH" EndFracPrecision:-1}}`},
		{"r.f.g", `Identifier{Parts:["r" "f" "g"]}`},
		{"`a.b`.c", `Identifier{Parts:["a.b" "c"]}`},
		{"a != b", `Binary{Op:"<>" Left:«` + "`a`" + `» Right:«` + "`b`" + `»}`},
		{"CURRENT_DATE", `FunctionCall{Name:` + "`CURRENT_DATE`" + ` NoParens:true}`},
		{"EXTRACT(YEAR FROM ts)", `FunctionCall{Name:` + "`EXTRACT`" + ` Args:[«YEAR» «` + "`ts`" + `»]}`},
		{"COUNT(*)", `FunctionCall{Name:` + "`COUNT`" + ` Star:true}`},
		{"CAST(a AS INT)", `Cast{Expr:«` + "`a`" + `» Type:INT}`},
		{"TRY_CAST(a AS INT)", `Cast{Expr:«` + "`a`" + `» Type:INT Try:true}`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			e, err := ParseExpression(tc.in)
			require.NoError(t, err)
			// Dump a struct copy so the top-level expression is shown field by field.
			require.Equal(t, tc.want, dumpTop(e))
		})
	}
}

// dumpTop dumps the fields of e itself rather than its Format rendering.
func dumpTop(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Literal:
		return ast.Dump(*x)
	case *ast.IntervalLit:
		return ast.Dump(*x)
	case *ast.Identifier:
		return ast.Dump(*x)
	case *ast.Binary:
		return ast.Dump(*x)
	case *ast.FunctionCall:
		return ast.Dump(*x)
	case *ast.Cast:
		return ast.Dump(*x)
	}
	return ast.Dump(e)
}

func TestDataTypes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"INT", "INT"},
		{"integer not null", "INTEGER NOT NULL"},
		{"STRING NULL", "STRING"},
		{"VARCHAR(10)", "VARCHAR(10)"},
		{"CHARACTER VARYING(5)", "VARCHAR(5)"},
		{"CHAR VARYING", "VARCHAR"},
		{"CHARACTER(2)", "CHAR(2)"},
		{"BINARY VARYING(4)", "VARBINARY(4)"},
		{"DECIMAL(10, 2)", "DECIMAL(10, 2)"},
		{"DEC", "DEC"},
		{"NUMERIC(5)", "NUMERIC(5)"},
		{"DOUBLE PRECISION", "DOUBLE"},
		{"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(3)"},
		{"TIMESTAMP WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ"},
		{"TIMESTAMP(6) WITHOUT TIME ZONE", "TIMESTAMP(6)"},
		{"TIME(0) WITHOUT TIME ZONE", "TIME(0)"},
		{"TIMESTAMP_LTZ(9) NOT NULL", "TIMESTAMP_LTZ(9) NOT NULL"},
		{"ARRAY<INT NOT NULL> NOT NULL", "ARRAY<INT NOT NULL> NOT NULL"},
		{"INT ARRAY", "ARRAY<INT>"},
		{"INT NOT NULL ARRAY NOT NULL", "ARRAY<INT NOT NULL> NOT NULL"},
		{"STRING MULTISET", "MULTISET<STRING>"},
		{"MAP<STRING, ARRAY<ROW<a INT>>>", "MAP<STRING, ARRAY<ROW<`a` INT>>>"},
		{"ROW<a INT 'desc', `b c` STRING>", "ROW<`a` INT 'desc', `b c` STRING>"},
		{"ROW(a INT, b STRING)", "ROW<`a` INT, `b` STRING>"},
		{"ROW<>", "ROW<>"},
		{"INTERVAL DAY(2) TO SECOND(3)", "INTERVAL DAY(2) TO SECOND(3)"},
		{"INTERVAL YEAR TO MONTH", "INTERVAL YEAR TO MONTH"},
		{"RAW('a.B', 'c')", "RAW('a.B', 'c')"},
		{"BYTES", "BYTES"},
		{"BOOLEAN", "BOOLEAN"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			dt, err := ParseDataType(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, dt.String())
		})
	}
	for _, bad := range []string{"", "FOO", "VARCHAR(", "DECIMAL(a)", "ARRAY<INT", "MAP<INT>", "ROW<a>", "INT NOT", "DECIMAL(99999999999999)"} {
		t.Run("bad "+bad, func(t *testing.T) {
			_, err := ParseDataType(bad)
			require.Error(t, err)
		})
	}
}

func TestPositions(t *testing.T) {
	st, err := ParseStatement("SELECT\n  a + b AS s,\n  f(x)\nFROM t AS u\nWHERE c > 1")
	require.NoError(t, err)
	sel := st.(*ast.QueryStmt).Query.(*ast.Select)
	require.Equal(t, ast.Pos{Line: 1, Col: 1}, sel.Pos)
	require.Equal(t, ast.Pos{Line: 2, Col: 3}, sel.Items[0].Pos)
	require.Equal(t, ast.Pos{Line: 2, Col: 3}, sel.Items[0].Expr.Position())
	bin := sel.Items[0].Expr.(*ast.Binary)
	require.Equal(t, ast.Pos{Line: 2, Col: 7}, bin.Right.Position())
	require.Equal(t, ast.Pos{Line: 3, Col: 3}, sel.Items[1].Expr.Position())
	require.Equal(t, ast.Pos{Line: 4, Col: 6}, sel.From.Position())
	require.Equal(t, ast.Pos{Line: 5, Col: 7}, sel.Where.Position())

	// Columns count characters, not bytes.
	st, err = ParseStatement("SELECT 'äöü', x")
	require.NoError(t, err)
	sel = st.(*ast.QueryStmt).Query.(*ast.Select)
	require.Equal(t, ast.Pos{Line: 1, Col: 15}, sel.Items[1].Expr.Position())
}

func TestCreateViewQueryText(t *testing.T) {
	tests := []struct{ sql, text string }{
		{"CREATE VIEW v AS SELECT a FROM t", "SELECT a FROM t"},
		{"CREATE VIEW v AS\n  SELECT a -- c\n  FROM t /* x */ ;", "SELECT a -- c\n  FROM t"},
		{"create temporary view v(x) as (select 1) union (select 2)", "(select 1) union (select 2)"},
		{"CREATE VIEW v AS WITH w AS (SELECT 1 AS a) SELECT * FROM w ORDER BY a LIMIT 1", "WITH w AS (SELECT 1 AS a) SELECT * FROM w ORDER BY a LIMIT 1"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			st, err := ParseStatement(tc.sql)
			require.NoError(t, err)
			require.Equal(t, tc.text, st.(*ast.CreateView).QueryText)
		})
	}
}

func TestKeywordsAsIdentifiers(t *testing.T) {
	for _, name := range []string{"name", "type", "value", "comment", "data", "year", "month", "day", "hour", "minute", "second",
		"user", "key", "language", "timestamp", "date", "time", "row", "array", "map", "position", "session", "window_start", "status", "count", "first", "last", "rows", "range", "partition", "system_time"} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseStatement("SELECT " + name + " FROM t WHERE " + name + " IS NOT NULL")
			require.NoError(t, err)
			_, err = ParseStatement("CREATE TABLE t (" + name + " INT, x AS " + name + " + 1)")
			require.NoError(t, err)
		})
	}
	for _, name := range []string{"select", "from", "where", "table", "default", "order", "group", "join", "on"} {
		t.Run("reserved "+name, func(t *testing.T) {
			_, err := ParseStatement("CREATE TABLE t (" + name + " INT)")
			require.Error(t, err)
			_, err = ParseStatement("CREATE TABLE t (`" + name + "` INT)")
			require.NoError(t, err)
		})
	}
}

// TestReservedNames: the names Flink's parser reserves are recorded in
// every name position, with their place; quoted names, function names and
// the grammar's keywords are not.
func TestReservedNames(t *testing.T) {
	names, err := ReservedNames("SELECT value, t.year, COUNT(*) AS `count`, YEAR(d) FROM (SELECT 1 AS value) AS t(d) GROUP BY value")
	require.NoError(t, err)
	var got []string
	for _, w := range names {
		got = append(got, fmt.Sprintf("%s@%d:%d", w.Text, w.Line, w.Col))
	}
	require.Equal(t, []string{"value@1:8", "year@1:17", "value@1:70", "value@1:94"}, got)
	names, err = ReservedNames("CREATE TABLE `user` (`value` INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) COMMENT 'x'")
	require.NoError(t, err)
	require.Empty(t, names)
	_, err = ReservedNames("SELECT FROM")
	require.Error(t, err)
}

package core

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Script table and aggregate functions called from queries: LATERAL TABLE
// (Correlate) and user-defined aggregates in the batch HashAggregate.

const splitPython = `CREATE TEMPORARY FUNCTION split_words(s STRING) RETURNS TABLE (word STRING, len INT) LANGUAGE PYTHON AS $$
def split_words(s):
    if s is None:
        return
    for w in s.split(' '):
        if w == 'boom':
            raise ValueError('boom word')
        yield w, len(w)
$$`

const splitJS = `CREATE TEMPORARY FUNCTION split_words(s STRING) RETURNS TABLE (word STRING, len INT) LANGUAGE JAVASCRIPT AS $$
function* split_words(s) {
  if (s === null) return;
  for (const w of s.split(' ')) {
    if (w === 'boom') throw new Error('boom word');
    yield [w, w.length];
  }
}
$$`

const wavgPython = `CREATE TEMPORARY FUNCTION wavg(v BIGINT, w INT) RETURNS DOUBLE LANGUAGE PYTHON AS $$
class wavg:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, v, w):
        if v is None or w is None:
            return
        if w < 0:
            raise ValueError('negative weight')
        acc[0] += v * w
        acc[1] += w

    def get_value(self, acc):
        if acc[1] == 0:
            return None
        return acc[0] / acc[1]
$$`

const wavgJS = `CREATE TEMPORARY FUNCTION wavg(v BIGINT, w INT) RETURNS DOUBLE LANGUAGE JAVASCRIPT AS $$
class wavg {
  createAccumulator() { return {sum: 0, weight: 0}; }
  accumulate(acc, v, w) {
    if (v === null || w === null) return;
    if (w < 0) throw new Error('negative weight');
    acc.sum += v * w;
    acc.weight += w;
  }
  getValue(acc) { return acc.weight === 0 ? null : acc.sum / acc.weight; }
}
$$`

const linesView = "CREATE TEMPORARY VIEW lines(id, s) AS VALUES (1, 'a bb'), (2, CAST(NULL AS STRING)), (3, 'ccc'), (4, '')"

const weightsView = "CREATE TEMPORARY VIEW weights(k, v, w) AS VALUES ('a', CAST(1 AS BIGINT), 1), ('a', CAST(3 AS BIGINT), 3), ('b', CAST(NULL AS BIGINT), 1), ('c', CAST(5 AS BIGINT), 2)"

func TestTableFunctionQueries(t *testing.T) {
	langs := map[string]string{"python": splitPython, "javascript": splitJS}
	tests := []struct {
		name string
		sql  string
		want [][]any
	}{
		{"comma lateral", "SELECT id, word, len FROM lines, LATERAL TABLE(split_words(s)) AS T(word, len)",
			[][]any{{int32(1), "a", int32(1)}, {int32(1), "bb", int32(2)}, {int32(3), "ccc", int32(3)}, {int32(4), "", int32(0)}}},
		{"join lateral on true", "SELECT id, word FROM lines JOIN LATERAL TABLE(split_words(s)) AS T(word, len) ON TRUE WHERE len > 1",
			[][]any{{int32(1), "bb"}, {int32(3), "ccc"}}},
		{"left join lateral", "SELECT id, word, len FROM lines LEFT JOIN LATERAL TABLE(split_words(s)) AS T(word, len) ON TRUE",
			[][]any{{int32(1), "a", int32(1)}, {int32(1), "bb", int32(2)}, {int32(2), nil, nil}, {int32(3), "ccc", int32(3)}, {int32(4), "", int32(0)}}},
		{"declared column names", "SELECT id, T.word FROM lines, LATERAL TABLE(split_words(s)) AS T WHERE id = 3",
			[][]any{{int32(3), "ccc"}}},
		{"aggregate over the function's rows", "SELECT id, SUM(len) FROM lines, LATERAL TABLE(split_words(s)) AS T(word, len) GROUP BY id",
			[][]any{{int32(1), int32(3)}, {int32(3), int32(3)}, {int32(4), int32(0)}}},
		{"expression arguments", "SELECT word FROM lines, LATERAL TABLE(split_words(UPPER(s) || ' x')) AS T(word, len) WHERE id = 1",
			[][]any{{"A"}, {"BB"}, {"x"}}},
		{"alone in FROM", "SELECT * FROM TABLE(split_words('p qq'))",
			[][]any{{"p", int32(1)}, {"qq", int32(2)}}},
	}
	for lang, create := range langs {
		for _, tt := range tests {
			t.Run(lang+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t)
				exec(t, e, create)
				exec(t, e, linesView)
				require.ElementsMatch(t, tt.want, rows(t, e, tt.sql))
			})
		}
	}
}

func TestAggregateFunctionQueries(t *testing.T) {
	langs := map[string]string{"python": wavgPython, "javascript": wavgJS}
	tests := []struct {
		name string
		sql  string
		want [][]any
	}{
		{"group by", "SELECT k, wavg(v, w) FROM weights GROUP BY k",
			[][]any{{"a", 2.5}, {"b", nil}, {"c", 5.0}}},
		{"global", "SELECT wavg(v, w), COUNT(*) FROM weights",
			[][]any{{20.0 / 6, int64(4)}}},
		{"global over no rows", "SELECT wavg(v, w) FROM weights WHERE k = 'z'",
			[][]any{{nil}}},
		{"with a filter and a built-in", "SELECT k, wavg(v, w) FILTER (WHERE v > 1), MAX(v) FROM weights GROUP BY k",
			[][]any{{"a", 3.0, int64(3)}, {"b", nil, nil}, {"c", 5.0, int64(5)}}},
		{"in an expression and HAVING", "SELECT k, wavg(v, w) * 2 FROM weights GROUP BY k HAVING wavg(v, w) > 3",
			[][]any{{"c", 10.0}}},
		{"implicit cast of the arguments", "SELECT wavg(x, 1) FROM (VALUES (1), (2)) AS t(x)",
			[][]any{{1.5}}},
	}
	for lang, create := range langs {
		for _, tt := range tests {
			t.Run(lang+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t)
				exec(t, e, create)
				exec(t, e, weightsView)
				require.ElementsMatch(t, tt.want, rows(t, e, tt.sql))
			})
		}
	}
}

func TestScriptFunctionQueryErrors(t *testing.T) {
	tests := []struct {
		name   string
		create []string
		sql    string
		want   []string // substrings of the error
	}{
		{"table function arity", []string{splitPython}, "SELECT * FROM lines, LATERAL TABLE(split_words(s, 1)) AS T(w, l)",
			[]string{"Cannot apply 'split_words'"}},
		{"table function column aliases", []string{splitJS}, "SELECT * FROM lines, LATERAL TABLE(split_words(s)) AS T(w)",
			[]string{"List of column aliases must have same degree as table; table has 2 columns ('word', 'len'), whereas alias list has 1 columns"}},
		{"python table function exception", []string{splitPython}, "SELECT * FROM (VALUES ('x boom')) AS t(s), LATERAL TABLE(split_words(s)) AS T(w, l)",
			[]string{"Python UDF 'split_words'", "line 7", "boom word", "x boom"}},
		{"javascript table function exception", []string{splitJS}, "SELECT * FROM (VALUES ('x boom')) AS t(s), LATERAL TABLE(split_words(s)) AS T(w, l)",
			[]string{"JavaScript UDF 'split_words'", "line 5", "boom word", "x boom"}},
		{"scalar function in LATERAL TABLE", nil, "SELECT * FROM lines, LATERAL TABLE(UPPER(s)) AS T(w)",
			[]string{"is not a table function"}},
		{"unknown table function", nil, "SELECT * FROM lines, LATERAL TABLE(nope(s)) AS T(w)",
			[]string{"No match found for function signature nope(<CHARACTER>)"}},
		{"left join with a subquery condition", []string{splitPython}, "SELECT * FROM lines LEFT JOIN LATERAL TABLE(split_words(s)) AS T(w, l) ON l IN (SELECT 1)",
			[]string{"not supported yet: subqueries in ON conditions"}},
		{"table function as a scalar", []string{splitPython}, "SELECT split_words(s) FROM lines",
			[]string{"table function"}},
		{"aggregate arity", []string{wavgPython}, "SELECT wavg(v) FROM weights",
			[]string{"Cannot apply 'wavg'"}},
		{"aggregate argument type", []string{wavgJS}, "SELECT wavg(k, w) FROM weights",
			[]string{"Cannot apply 'wavg'"}},
		{"python aggregate exception", []string{wavgPython}, "SELECT wavg(v, w) FROM (VALUES (CAST(1 AS BIGINT), -1)) AS t(v, w)",
			[]string{"Python UDF 'wavg'", "line 10", "negative weight", "(1, -1)"}},
		{"javascript aggregate exception", []string{wavgJS}, "SELECT wavg(v, w) FROM (VALUES (CAST(1 AS BIGINT), -1)) AS t(v, w)",
			[]string{"JavaScript UDF 'wavg'", "negative weight"}},
		{"aggregate in WHERE", []string{wavgPython}, "SELECT k FROM weights WHERE wavg(v, w) > 1",
			[]string{"Aggregate expression is illegal in WHERE clause"}},
		{"nested aggregates", []string{wavgPython}, "SELECT SUM(wavg(v, w)) FROM weights",
			[]string{"Aggregate expressions cannot be nested"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for _, s := range tt.create {
				exec(t, e, s)
			}
			exec(t, e, linesView)
			exec(t, e, weightsView)
			_, err := e.ExecuteSQL(context.Background(), tt.sql)
			require.Error(t, err)
			for _, w := range tt.want {
				require.Contains(t, err.Error(), w)
			}
			// the session stays usable
			require.Len(t, rows(t, e, "SELECT id FROM lines"), 4)
		})
	}
}

func TestCorrelateExplain(t *testing.T) {
	e := newEnv(t)
	exec(t, e, splitPython)
	exec(t, e, linesView)
	plan := printed(t, exec(t, e, "EXPLAIN SELECT id, word FROM lines LEFT JOIN LATERAL TABLE(split_words(s)) AS T(word, len) ON TRUE"))
	for _, want := range []string{
		"LogicalCorrelate(correlation=[$cor0], joinType=[left], requiredColumns=[{1}])",
		"LogicalTableFunctionScan(invocation=[split_words($cor0.s)]",
		"Correlate(invocation=[split_words($cor0.s)], correlate=[table(split_words($cor0.s))], select=[id,s,word,len]",
		"joinType=[LEFT])",
	} {
		require.True(t, strings.Contains(plan, want), "missing %q in\n%s", want, plan)
	}
}

// Projection pruning reaches through the Correlate: the scan reads only
// the columns used above and by the function's arguments.
func TestCorrelatePrunesColumns(t *testing.T) {
	e := newEnv(t)
	exec(t, e, splitJS)
	exec(t, e, "CREATE TABLE wide (a INT, b STRING, c DOUBLE, d STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '5')")
	plan := printed(t, exec(t, e, "EXPLAIN SELECT word, a FROM wide, LATERAL TABLE(split_words(d)) AS T(word, len) WHERE len > 0"))
	// datagen has no projection push-down (as in Flink): a Calc drops the rest
	require.Regexp(t, `Calc\(select=\[a, d\]\)\s+\+- TableSourceScan\(table=\[\[default_catalog, default_database, wide\]\], fields=\[a, b, c, d\]\)`, plan)
	require.Contains(t, plan, "Correlate(invocation=[split_words($cor0.d)]")

	// a filter on the left input's columns runs before the function
	plan = printed(t, exec(t, e, "EXPLAIN SELECT word FROM wide LEFT JOIN LATERAL TABLE(split_words(d)) AS T(word, len) ON TRUE WHERE a > 0 AND len > 1"))
	require.Regexp(t, `Calc\(select=\[word\], where=\[>\(len, 1\)\]\)\s+\+- Correlate\(.*joinType=\[LEFT\]\)\s+\+- Calc\(select=\[d\], where=\[>\(a, 0\)\]\)`, plan)
	require.Len(t, rows(t, e, "SELECT a FROM wide, LATERAL TABLE(split_words(d)) AS T(word, len)"), 5)
}

func TestScriptFunctionsInCatalogQueries(t *testing.T) {
	e := newEnv(t)
	exec(t, e, strings.Replace(splitJS, "TEMPORARY ", "", 1))
	exec(t, e, strings.Replace(wavgPython, "TEMPORARY ", "", 1))
	exec(t, e, weightsView)
	require.ElementsMatch(t, [][]any{{"a", 2.5}, {"b", nil}, {"c", 5.0}},
		rows(t, e, "SELECT k, default_database.wavg(v, w) FROM weights GROUP BY k"))
	require.Equal(t, [][]any{{"x", int32(1)}},
		rows(t, e, "SELECT word, len FROM (VALUES (1)) AS t(i), LATERAL TABLE(default_catalog.default_database.split_words('x')) AS T(word, len)"))
}

// NULLs in and out of a table function, and typed columns.
func TestTableFunctionNullsAndTypes(t *testing.T) {
	e := newEnv(t)
	exec(t, e, `CREATE TEMPORARY FUNCTION pairs(n INT) RETURNS TABLE (i INT, label STRING, amount DECIMAL(10, 2)) LANGUAGE PYTHON AS $$
def pairs(n):
    if n is None:
        yield None, 'null input', None
        return
    for i in range(n):
        yield i, None if i % 2 else 'even', i
$$`)
	got := rows(t, e, "SELECT x, i, label, CAST(amount AS STRING) FROM (VALUES (2), (CAST(NULL AS INT))) AS t(x), LATERAL TABLE(pairs(x))")
	require.ElementsMatch(t, [][]any{
		{int32(2), int32(0), "even", "0.00"},
		{int32(2), int32(1), nil, "1.00"},
		{nil, nil, "null input", nil},
	}, got)
}

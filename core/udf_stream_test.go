package core

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
)

// TestLateralTableStreaming runs a script table function over a streaming
// query: the Correlate is stateless, so every input row's function rows
// come out as inserts in input order.
func TestLateralTableStreaming(t *testing.T) {
	e := NewTableEnvironment(InStreamingMode())
	exec(t, e, `CREATE TEMPORARY FUNCTION split_words(s STRING) RETURNS TABLE (w STRING) LANGUAGE JAVASCRIPT AS $$
function* split_words(s) { for (const w of s.split(' ')) yield w; }
$$`)
	exec(t, e, `CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'values', 'data' = '[[1, "a b"], [2, "c"], [3, ""]]')`)
	res := exec(t, e, `SELECT id, w FROM t LEFT JOIN LATERAL TABLE(split_words(s)) AS T(w) ON TRUE`)
	require.Equal(t, [][]any{{int32(1), "a"}, {int32(1), "b"}, {int32(2), "c"}, {int32(3), ""}}, res.Rows())
	for _, k := range res.RowKinds() {
		require.Equal(t, changelog.Insert, k)
	}
}

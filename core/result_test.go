package core

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestPrintTableau(t *testing.T) {
	cases := []struct {
		name  string
		res   *TableResult
		timed bool
		want  string
	}{
		{
			name: "query",
			res: &TableResult{kind: SuccessWithContent, query: true, maxWidth: 30,
				schema: types.Schema{{Name: "id", Type: types.IntT}, {Name: "cnt", Type: types.BigIntT}, {Name: "ok", Type: types.BooleanT}},
				rows:   [][]any{{int32(1), int64(1), true}, {int32(2), nil, false}}},
			want: "+----+--------+-------+\n" +
				"| id |    cnt |    ok |\n" +
				"+----+--------+-------+\n" +
				"|  1 |      1 |  TRUE |\n" +
				"|  2 | <NULL> | FALSE |\n" +
				"+----+--------+-------+\n" +
				"2 rows in set\n",
		},
		{
			name: "one row, capped width",
			res: &TableResult{kind: SuccessWithContent, query: true, maxWidth: 10,
				schema: types.Schema{{Name: "name", Type: types.StringT}},
				rows:   [][]any{{"30b5c1bb-0ac0-43d3-b812-fcb649fd2b07"}}},
			want: "+------------+\n" +
				"|       name |\n" +
				"+------------+\n" +
				"| 30b5c1b... |\n" +
				"+------------+\n" +
				"1 row in set\n",
		},
		{
			name: "show result: NULL empty, never capped",
			res: &TableResult{kind: SuccessWithContent, maxWidth: 3,
				schema: types.Schema{{Name: "table name", Type: types.StringT}},
				rows:   [][]any{{"a_long_table_name"}, {nil}}},
			want: "+-------------------+\n" +
				"|        table name |\n" +
				"+-------------------+\n" +
				"| a_long_table_name |\n" +
				"|                   |\n" +
				"+-------------------+\n" +
				"2 rows in set\n",
		},
		{
			name: "wide characters",
			res: &TableResult{kind: SuccessWithContent, query: true,
				schema: types.Schema{{Name: "s", Type: types.StringT}},
				rows:   [][]any{{"中文"}}},
			want: "+------+\n|    s |\n+------+\n| 中文 |\n+------+\n1 row in set\n",
		},
		{
			name: "empty",
			res:  &TableResult{kind: SuccessWithContent, query: true, schema: types.Schema{{Name: "a", Type: types.IntT}}},
			want: "Empty set\n",
		},
		{
			name:  "timed",
			res:   &TableResult{kind: SuccessWithContent, query: true, elapsed: 1500 * time.Millisecond, schema: types.Schema{{Name: "a", Type: types.IntT}}},
			timed: true,
			want:  "Empty set (1.50 seconds)\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if c.timed {
				require.NoError(t, c.res.PrintTimed(&b))
			} else {
				require.NoError(t, c.res.Print(&b))
			}
			require.Equal(t, c.want, b.String())
		})
	}
}

func TestCollect(t *testing.T) {
	res := &TableResult{kind: SuccessWithContent, schema: types.Schema{{Name: "a", Type: types.IntT}},
		rows: [][]any{{int32(1)}, {int32(2)}, {int32(3)}}}
	var got []any
	for r := range res.Collect() {
		got = append(got, r[0])
		if len(got) == 2 {
			break
		}
	}
	require.Equal(t, []any{int32(1), int32(2)}, got)
	require.Equal(t, "SUCCESS_WITH_CONTENT", res.Kind().String())
	require.Equal(t, "SUCCESS", okResult().Kind().String())
}

func TestTruncate(t *testing.T) {
	require.Equal(t, "abc...", truncate("abcdefghij", 6))
	require.Equal(t, "..", truncate("abcdef", 2))
	require.Equal(t, "中...", truncate("中文中文", 6))
}

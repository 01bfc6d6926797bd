package shell

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

func TestWriteResult(t *testing.T) {
	env := core.NewTableEnvironment(core.InBatchMode())
	const query = "SELECT * FROM (VALUES (1, 'a,b', CAST(1.50 AS DECIMAL(5, 2)), ARRAY[1, 2], TRUE), " +
		"(2, CAST(NULL AS STRING), CAST(NULL AS DECIMAL(5, 2)), CAST(NULL AS ARRAY<INT>), FALSE)) AS t(id, s, d, arr, b)"
	cases := []struct {
		format string
		want   string
	}{
		{FormatCSV, "id,s,d,arr,b\n1,\"a,b\",1.50,\"[1, 2]\",TRUE\n2,,,,FALSE\n"},
		{FormatJSON, `{"id":1,"s":"a,b","d":1.50,"arr":[1,2],"b":true}` + "\n" + `{"id":2,"s":null,"d":null,"arr":null,"b":false}` + "\n"},
		{FormatTableau, "+----+--------+--------+--------+-------+\n"},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			res, err := env.ExecuteSQL(context.Background(), query)
			require.NoError(t, err)
			var b bytes.Buffer
			require.NoError(t, WriteResult(&b, res, c.format))
			if c.format == FormatTableau {
				require.Contains(t, b.String(), c.want)
				return
			}
			require.Equal(t, c.want, b.String())
		})
	}
	t.Run("arrow", func(t *testing.T) {
		res, err := env.ExecuteSQL(context.Background(), query)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, WriteResult(&b, res, FormatArrow))
		r, err := ipc.NewReader(bytes.NewReader(b.Bytes()), ipc.WithAllocator(memory.NewGoAllocator()))
		require.NoError(t, err)
		defer r.Release()
		require.True(t, r.Next())
		require.EqualValues(t, 2, r.RecordBatch().NumRows())
		require.False(t, r.Next())
		require.NoError(t, r.Err())
		require.Equal(t, "id", r.Schema().Field(0).Name)
	})
	t.Run("unknown format", func(t *testing.T) {
		res, err := env.ExecuteSQL(context.Background(), "SELECT 1")
		require.NoError(t, err)
		require.ErrorContains(t, WriteResult(&bytes.Buffer{}, res, "xml"), `unknown output format "xml"`)
	})
	t.Run("streaming results have an op column", func(t *testing.T) {
		senv := core.NewTableEnvironment(core.InStreamingMode())
		res, err := senv.ExecuteSQL(context.Background(), "SELECT k, COUNT(*) AS c FROM (VALUES (1), (1)) AS t(k) GROUP BY k")
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, WriteResult(&b, res, FormatCSV))
		require.Equal(t, "op,k,c\n+I,1,1\n-U,1,1\n+U,1,2\n", b.String())
	})
}

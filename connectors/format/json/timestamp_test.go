package json

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestNanoTimestampJSONRoundTrip(t *testing.T) {
	schema := types.Schema{{Name: "ts", Type: types.TimestampOf(9)}, {Name: "l", Type: types.TimestampLTZOf(9)}}
	cases := []struct {
		name string
		iso  bool
		row  []any
		want string
	}{
		{"sql", false, []any{int64(1618344731_123456789), int64(1)}, `{"ts":"2021-04-13 20:12:11.123456789","l":"1970-01-01 00:00:00.000000001Z"}`},
		{"iso", true, []any{int64(-1), int64(1618344731_100000000)}, `{"ts":"1969-12-31T23:59:59.999999999","l":"2021-04-13T20:12:11.1Z"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.ISO8601 = c.iso
			rec, err := types.BuildRecord(memory.DefaultAllocator, schema, [][]any{c.row})
			require.NoError(t, err)
			defer rec.Release()
			var buf bytes.Buffer
			w := NewWriter(&buf, schema, opts)
			require.NoError(t, w.Write(rec))
			require.NoError(t, w.Flush())
			require.Equal(t, c.want+"\n", buf.String())
			back, err := readAll(t, buf.String(), schema, nil, opts)
			require.NoError(t, err)
			require.Equal(t, [][]any{c.row}, back)
		})
	}
}

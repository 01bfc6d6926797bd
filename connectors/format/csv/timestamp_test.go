package csv

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestNanoTimestampRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		t    types.Type
		v    int64
		text string
	}{
		{"ts9", types.TimestampOf(9), 1618344731_123456789, "2021-04-13 20:12:11.123456789"},
		{"ts9 millis", types.TimestampOf(9), 1618344731_120000000, "2021-04-13 20:12:11.12"},
		{"ts7 before epoch", types.TimestampOf(7), -100, "1969-12-31 23:59:59.9999999"},
		{"ltz9", types.TimestampLTZOf(9), 1, "1970-01-01 00:00:00.000000001"},
		{"ts6", types.TimestampOf(6), 1618344731_123456, "2021-04-13 20:12:11.123456"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			schema := types.Schema{{Name: "ts", Type: c.t}}
			rec, err := types.BuildRecord(memory.DefaultAllocator, schema, [][]any{{c.v}})
			require.NoError(t, err)
			defer rec.Release()
			var buf bytes.Buffer
			w := NewWriter(&buf, schema, DefaultOptions())
			require.NoError(t, w.Write(rec))
			require.NoError(t, w.Flush())
			require.Equal(t, c.text+"\n", buf.String())
			back, err := readAll(t, strings.NewReader(buf.String()), schema, nil, DefaultOptions(), 10)
			require.NoError(t, err)
			require.Equal(t, [][]any{{c.v}}, back)
		})
	}
}

func TestNanoTimestampOutOfRange(t *testing.T) {
	schema := types.Schema{{Name: "ts", Type: types.TimestampOf(9)}}
	_, err := readAll(t, strings.NewReader("2300-01-01 00:00:00\n"), schema, nil, DefaultOptions(), 10)
	require.ErrorContains(t, err, "out of range for TIMESTAMP(9)")
}

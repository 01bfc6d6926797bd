package datagen

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

type collect struct {
	schema types.Schema
	rows   [][]any
}

func (c *collect) Emit(ctx context.Context, b vectorized.Batch) error {
	c.rows = append(c.rows, types.RecordRows(b.Rec, c.schema)...)
	return nil
}
func (c *collect) EmitMarker(ctx context.Context, m vectorized.Marker) error { return nil }

var allScalars = types.Schema{
	{Name: "b", Type: types.BooleanT}, {Name: "ti", Type: types.TinyIntT}, {Name: "si", Type: types.SmallIntT},
	{Name: "i", Type: types.IntT}, {Name: "bi", Type: types.BigIntT}, {Name: "f", Type: types.FloatT},
	{Name: "d", Type: types.DoubleT}, {Name: "dec", Type: types.DecimalOf(10, 3)}, {Name: "c", Type: types.CharOf(4)},
	{Name: "vc", Type: types.VarCharOf(8)}, {Name: "s", Type: types.StringT}, {Name: "bin", Type: types.Type{Kind: types.Binary, Precision: 3}},
	{Name: "vb", Type: types.BytesT}, {Name: "dt", Type: types.DateT}, {Name: "tm", Type: types.TimeOf(0)},
	{Name: "ts", Type: types.TimestampOf(3)}, {Name: "ltz", Type: types.TimestampLTZOf(3)},
	{Name: "iym", Type: types.IntervalYM}, {Name: "idt", Type: types.IntervalDT},
}

func run(t *testing.T, opts map[string]string, schema types.Schema) [][]any {
	t.Helper()
	src, err := NewSource("t", opts, schema, nil, 4, true, time.UTC)
	require.NoError(t, err)
	c := &collect{schema: schema}
	require.NoError(t, src.Run(context.Background(), c))
	for _, r := range c.rows {
		require.Len(t, r, len(schema))
	}
	return c.rows
}

func TestRandomAllScalarTypes(t *testing.T) {
	rows := run(t, map[string]string{"number-of-rows": "9"}, allScalars)
	require.Len(t, rows, 9)
	for _, r := range rows {
		for i, v := range r {
			require.NotNil(t, v, allScalars[i].Name)
		}
		require.Len(t, r[8], 4)    // CHAR(4)
		require.Len(t, r[9], 8)    // VARCHAR(8)
		require.Len(t, r[10], 100) // STRING
		require.Len(t, r[11], 3)   // BINARY(3)
		require.Len(t, r[12], 100) // BYTES
		iym := r[17].(int32)
		require.True(t, iym >= 0 && iym <= 120000)
	}
}

func TestSequenceAllTypes(t *testing.T) {
	var schema types.Schema
	opts := map[string]string{}
	for _, f := range allScalars {
		schema = append(schema, f)
		if f.Type.Kind == types.IntervalYearMonth || f.Type.Kind == types.IntervalDayTime {
			schema = schema[:len(schema)-1]
			continue
		}
		opts["fields."+f.Name+".kind"] = "sequence"
		opts["fields."+f.Name+".start"] = "5"
		opts["fields."+f.Name+".end"] = "9"
	}
	rows := run(t, opts, schema)
	require.Len(t, rows, 5)
	require.Equal(t, int8(5), rows[0][1])
	require.Equal(t, int64(9), rows[4][4])
	require.Equal(t, 6.0, rows[1][6])
	require.Equal(t, "7", rows[2][10])
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 8}, rows[3][12])
	require.Equal(t, "5.000", types.FormatValue(rows[0][7], schema[7].Type, nil))
}

func TestSupportedOptions(t *testing.T) {
	schema := types.Schema{{Name: "id", Type: types.BigIntT}, {Name: "b", Type: types.BooleanT}, {Name: "bin", Type: types.BytesT}}
	require.Equal(t, []string{"number-of-rows", "rows-per-second", "scan.parallelism",
		"fields.id.kind", "fields.id.start", "fields.id.end",
		"fields.b.kind", "fields.b.null-rate",
		"fields.bin.kind", "fields.bin.length", "fields.bin.var-len"},
		SupportedOptions(map[string]string{"fields.id.kind": "sequence"}, schema))
}

func TestOptionErrors(t *testing.T) {
	schema := types.Schema{{Name: "x", Type: types.IntT}, {Name: "a", Type: types.ArrayOf(types.IntT)}}
	cases := []struct {
		opts map[string]string
		sch  types.Schema
		err  string
	}{
		{map[string]string{"number-of-rows": "-1"}, schema[:1], "Could not parse value '-1' for key 'number-of-rows'."},
		{map[string]string{"number-of-rows": "1", "fields.x.max": "99999999999"}, schema[:1], "Could not parse value '99999999999' for key 'fields.x.max'."},
		{map[string]string{"number-of-rows": "1", "fields.x.min": "5", "fields.x.max": "1"}, schema[:1], "is greater than"},
		{map[string]string{"number-of-rows": "1", "fields.x.null-rate": "abc"}, schema[:1], "Could not parse value 'abc' for key 'fields.x.null-rate'."},
		{map[string]string{"number-of-rows": "1", "fields.a.kind": "sequence"}, schema, "not supported yet: datagen for column a of type ARRAY<INT>"},
		{map[string]string{}, schema[:1], "Querying an unbounded table 't' in batch mode is not allowed."},
	}
	for _, c := range cases {
		_, err := NewSource("t", c.opts, c.sch, nil, 4, true, nil)
		require.ErrorContains(t, err, c.err)
	}
}

func TestDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"500": 500 * time.Millisecond, "10 s": 10 * time.Second,
		"1min": time.Minute, "2h": 2 * time.Hour, "1 d": 24 * time.Hour} {
		d, err := optReader{map[string]string{"k": in}}.duration("k")
		require.NoError(t, err)
		require.Equal(t, want, d, in)
	}
	_, err := optReader{map[string]string{"k": "5 parsecs"}}.duration("k")
	require.Error(t, err)
}

func TestNestedTypes(t *testing.T) {
	schema := types.Schema{
		{Name: "a", Type: types.ArrayOf(types.IntT)},
		{Name: "m", Type: types.MapOf(types.VarCharOf(3), types.DoubleT)},
		{Name: "r", Type: types.RowOf(types.Field{Name: "x", Type: types.TinyIntT}, types.Field{Name: "y", Type: types.BooleanT})},
	}
	opts := map[string]string{"number-of-rows": "5", "fields.a.length": "2", "fields.a.element.min": "1", "fields.a.element.max": "3",
		"fields.m.length": "1", "fields.r.x.min": "7", "fields.r.x.max": "7", "fields.r.y.null-rate": "1"}
	rows := run(t, opts, schema)
	require.Len(t, rows, 5)
	for _, r := range rows {
		a := r[0].([]any)
		require.Len(t, a, 2)
		for _, e := range a {
			require.True(t, e.(int32) >= 1 && e.(int32) <= 3)
		}
		m := r[1].(*types.MapValue)
		require.Len(t, m.Keys, 1)
		require.Len(t, m.Keys[0], 3)
		require.Equal(t, []any{int8(7), nil}, r[2])
	}
	require.Equal(t, []string{"number-of-rows", "rows-per-second", "scan.parallelism",
		"fields.a.kind", "fields.a.element.min", "fields.a.element.max", "fields.a.element.null-rate", "fields.a.null-rate", "fields.a.length"},
		SupportedOptions(nil, schema[:1]))
}

package json

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/core/types"
)

// referenceRow decodes msg the slow way — encoding/json into a map and
// ConvertValue per field, the path the span decoder replaced — as the
// oracle of the fast path.
func referenceRow(msg []byte, schema types.Schema, opts Options) ([]any, error) {
	dec := stdjson.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, fmt.Errorf("not an object")
	}
	out := make([]any, len(schema))
	for i, f := range schema {
		raw, ok := obj[f.Name]
		if !ok && opts.FailOnMissingField {
			return nil, fmt.Errorf("missing %s", f.Name)
		}
		v, err := ConvertValue(raw, f.Type, opts.style(), opts.FailOnMissingField)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// TestDecoderMatchesReference feeds random messages to the span decoder
// and to the reference: both fail, or both give the same row.
func TestDecoderMatchesReference(t *testing.T) {
	schema := types.Schema{
		{Name: "b", Type: types.BooleanT}, {Name: "t", Type: types.TinyIntT}, {Name: "i", Type: types.IntT},
		{Name: "l", Type: types.BigIntT}, {Name: "f", Type: types.FloatT}, {Name: "d", Type: types.DoubleT},
		{Name: "s", Type: types.StringT}, {Name: "dec", Type: types.DecimalOf(6, 2)}, {Name: "dt", Type: types.DateT},
		{Name: "ts", Type: types.TimestampOf(3)}, {Name: "ltz", Type: types.TimestampLTZOf(3)},
		{Name: "a", Type: types.ArrayOf(types.IntT)}, {Name: "m", Type: types.MapOf(types.StringT, types.BigIntT)},
		{Name: "r", Type: types.RowOf(types.Field{Name: "x", Type: types.IntT})}, {Name: "tm", Type: types.TimeOf(3)},
	}
	vals := []string{`null`, `true`, `false`, `0`, `-1`, `127`, `128`, `3000000000`, `1.5`, `-2.75e1`, `1e400`, `"7"`, `"x"`, `""`,
		`"1.25"`, `"2024-02-29"`, `"2024-02-30"`, `"2021-04-13 20:12:11.123"`, `"2021-04-13T20:12:11"`, `"1970-01-01 00:00:01Z"`,
		`"1970-01-01T00:00:01Z"`, `"12:34:56"`, `[1, null, 2]`, `["a"]`, `{"k": 1}`, `{"x": 5}`, `{}`, `[]`, `"a\"b\\u00e9"`, `"\ud83d\ude00"`}
	rng := rand.New(rand.NewSource(1))
	for _, iso := range []bool{false, true} {
		opts := DefaultOptions()
		opts.ISO8601 = iso
		dec, err := NewDecoder(schema, nil, opts)
		require.NoError(t, err)
		rows, err := format.NewRows(schema)
		require.NoError(t, err)
		for n := 0; n < 3000; n++ {
			var parts []string
			for _, f := range schema {
				if rng.Intn(4) == 0 {
					continue
				}
				parts = append(parts, fmt.Sprintf("%q: %s", f.Name, vals[rng.Intn(len(vals))]))
			}
			msg := []byte("{" + strings.Join(parts, ", ") + "}")
			want, werr := referenceRow(msg, schema, opts)
			gerr := dec.Decode(msg, rows)
			if werr != nil || gerr != nil {
				require.Equal(t, werr != nil, gerr != nil, "%s: reference %v, decoder %v", msg, werr, gerr)
				continue
			}
			b := rows.Batch()
			got := types.RecordRows(b.Rec, schema)[0]
			b.Rec.Release()
			require.Equal(t, want, got, "%s", msg)
		}
	}
}

package formats

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

func fl(name string, t types.Type) types.Field { return types.Field{Name: name, Type: t} }

// decodeAll decodes msgs with the format of opts and returns the rows
// (with their kinds as a leading string) or the first error.
func decodeAll(t *testing.T, opts map[string]string, physical types.Schema, proj []int, metadata []string, msgs ...string) ([][]any, error) {
	t.Helper()
	f, err := Builtin().Open(opts, "format")
	if err != nil {
		return nil, err
	}
	dec, err := f.NewDecoder(physical, proj, metadata)
	if err != nil {
		return nil, err
	}
	rows, err := format.NewRows(dec.Schema())
	require.NoError(t, err)
	defer rows.Release()
	for _, m := range msgs {
		var b []byte
		if m != "<nil>" {
			b = []byte(m)
		}
		if err := dec.Decode(b, rows); err != nil {
			return nil, err
		}
	}
	batch := rows.Batch()
	defer batch.Rec.Release()
	var out [][]any
	for i, r := range types.RecordRows(batch.Rec, dec.Schema()) {
		k := changelog.Insert
		if batch.Kinds != nil {
			k = batch.Kinds[i]
		}
		out = append(out, append([]any{k.String()}, r...))
	}
	return out, nil
}

// encodeAll encodes rows (with kinds) with the format of opts.
func encodeAll(t *testing.T, opts map[string]string, schema types.Schema, kinds []changelog.RowKind, rows [][]any) []string {
	t.Helper()
	f, err := Builtin().Open(opts, "format")
	require.NoError(t, err)
	enc, err := f.NewEncoder(schema)
	require.NoError(t, err)
	rec, err := types.BuildRecord(memory.DefaultAllocator, schema, rows)
	require.NoError(t, err)
	defer rec.Release()
	var out []string
	for r := range rows {
		k := changelog.Insert
		if kinds != nil {
			k = kinds[r]
		}
		b, err := enc.Encode(nil, rec, r, k)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	return out
}

func TestJSONMessages(t *testing.T) {
	sch := types.Schema{fl("id", types.BigIntT), fl("i", types.IntT), fl("name", types.StringT), fl("d", types.DoubleT),
		fl("dec", types.DecimalOf(5, 2)), fl("ts", types.TimestampOf(3)), fl("ok", types.BooleanT), fl("arr", types.ArrayOf(types.IntT)),
		fl("r", types.RowOf(fl("x", types.IntT)))}
	json := map[string]string{"format": "json"}
	rows, err := decodeAll(t, json, sch, nil, nil,
		`{"id": 1, "i": 2.7, "name": "a\"\u00e9\ud83d\ude00", "d": 1e2, "dec": "1.255", "ts": "2021-04-13 20:12:11.123", "ok": true, "arr": [1, null], "r": {"x": 3}, "extra": {"deep": [1]}}`,
		`{"name": {"b": [1, 2]}, "id": "7", "ok": "TRUE", "i": -3}`,
		`<nil>`, // a tombstone
	)
	require.NoError(t, err)
	require.Equal(t, [][]any{
		{"+I", int64(1), int32(2), "a\"é😀", 100.0, decimal128.FromI64(126), int64(1618344731123000), true, []any{int32(1), nil}, []any{int32(3)}},
		{"+I", int64(7), int32(-3), `{"b":[1,2]}`, nil, nil, nil, true, nil, nil},
	}, rows)

	// projection: only the named columns, in the projection's order
	rows, err = decodeAll(t, json, sch, []int{2, 0}, nil, `{"id": 5, "name": "x"}`)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", "x", int64(5)}}, rows)

	// bad messages: the error says what failed; nothing is appended
	for _, bad := range []string{`{"id": 1`, `{"id": 01}`, `[1]`, `{"id": "x"}`, `{"i": 3000000000}`, `{"ts": "2021-04-13T20:12:11"}`, `{"id": tru}`} {
		_, err := decodeAll(t, json, sch, nil, nil, `{"id": 1}`, bad)
		require.ErrorContains(t, err, "Failed to deserialize JSON '"+bad+"'.", bad)
	}
	rows, err = decodeAll(t, map[string]string{"format": "json", "json.ignore-parse-errors": "true"}, sch, []int{0}, nil,
		`{"id": 1`, `{"id": "x"}`, `{"id": 2}`)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int64(2)}}, rows)

	_, err = decodeAll(t, map[string]string{"format": "json", "json.fail-on-missing-field": "true"}, sch, []int{0, 2}, nil, `{"id": 1}`)
	require.ErrorContains(t, err, "Could not find field with name 'name'.")

	rows, err = decodeAll(t, map[string]string{"format": "json", "json.timestamp-format.standard": "ISO-8601"}, sch, []int{5}, nil, `{"ts": "2021-04-13T20:12:11"}`)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int64(1618344731000000)}}, rows)

	// round trip through the encoder
	in := [][]any{{int64(1), int32(2), "a\"b", 1.5, decimal128.FromI64(125), int64(1618344731123000), false, []any{int32(1)}, []any{int32(3)}}}
	msgs := encodeAll(t, json, sch, nil, in)
	require.Equal(t, []string{`{"id":1,"i":2,"name":"a\"b","d":1.5,"dec":1.25,"ts":"2021-04-13 20:12:11.123","ok":false,"arr":[1],"r":{"x":3}}`}, msgs)
	rows, err = decodeAll(t, json, sch, nil, nil, msgs...)
	require.NoError(t, err)
	require.Equal(t, append([]any{"+I"}, in[0]...), rows[0])
}

func TestCSVMessages(t *testing.T) {
	sch := types.Schema{fl("id", types.IntT), fl("s", types.StringT), fl("a", types.ArrayOf(types.IntT))}
	csv := map[string]string{"format": "csv"}
	rows, err := decodeAll(t, csv, sch, nil, nil, `1,"x,y",1;2`, "2,,\n")
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int32(1), "x,y", []any{int32(1), int32(2)}}, {"+I", int32(2), "", []any{}}}, rows)
	_, err = decodeAll(t, csv, sch, nil, nil, `x,a,`)
	require.ErrorContains(t, err, `Failed to deserialize CSV row 'x,a,'. For input string: "x"`)
	_, err = decodeAll(t, csv, sch, nil, nil, `1,a`)
	require.ErrorContains(t, err, "Row length mismatch. 3 fields expected but was 2.")
	rows, err = decodeAll(t, map[string]string{"format": "csv", "csv.ignore-parse-errors": "true", "csv.field-delimiter": "|"}, sch, []int{2, 1}, nil, `x|a|z`, `x|b|5`)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", []any{int32(5)}, "b"}}, rows) // only projected fields are converted
	msgs := encodeAll(t, csv, sch, nil, [][]any{{int32(1), "x,y", []any{int32(1), int32(2)}}})
	require.Equal(t, []string{`1,"x,y",1;2`}, msgs)
}

func TestRawMessages(t *testing.T) {
	raw := map[string]string{"format": "raw"}
	rows, err := decodeAll(t, raw, types.Schema{fl("s", types.StringT)}, nil, nil, "héllo", "<nil>", "")
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", "héllo"}, {"+I", nil}, {"+I", ""}}, rows)
	le := map[string]string{"format": "raw", "raw.endianness": "little-endian"}
	msgs := encodeAll(t, le, types.Schema{fl("n", types.IntT)}, nil, [][]any{{int32(258)}})
	require.Equal(t, []string{"\x02\x01\x00\x00"}, msgs)
	rows, err = decodeAll(t, le, types.Schema{fl("n", types.IntT)}, nil, nil, msgs[0])
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int32(258)}}, rows)
	_, err = decodeAll(t, raw, types.Schema{fl("n", types.IntT)}, nil, nil, "abc")
	require.ErrorContains(t, err, "Failed to deserialize raw message of 3 bytes.")
	_, err = decodeAll(t, raw, types.Schema{fl("a", types.IntT), fl("b", types.StringT)}, nil, nil)
	require.EqualError(t, err, "The 'raw' format only supports single physical column. However the defined schema contains multiple physical columns: [`a` INT, `b` STRING]")
	_, err = decodeAll(t, raw, types.Schema{fl("a", types.DateT)}, nil, nil)
	require.EqualError(t, err, "The 'raw' format doesn't supports 'DATE' as column type.")
}

func TestAvroMessages(t *testing.T) {
	sch := types.Schema{fl("id", types.BigIntT), fl("s", types.StringT), fl("ts", types.TimestampOf(3))}
	avro := map[string]string{"format": "avro"}
	in := [][]any{{int64(1), "x", int64(1618344731123000)}, {nil, nil, nil}}
	msgs := encodeAll(t, avro, sch, nil, in)
	rows, err := decodeAll(t, avro, sch, []int{2, 0}, nil, msgs...)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"+I", int64(1618344731123000), int64(1)}, {"+I", nil, nil}}, rows)
	_, err = decodeAll(t, avro, sch, nil, nil, "\x07")
	require.ErrorContains(t, err, "Failed to deserialize Avro record.")
}

func TestOptionErrors(t *testing.T) {
	sch := types.Schema{fl("s", types.StringT)}
	cases := []struct {
		opts map[string]string
		err  string
	}{
		{map[string]string{"format": "nope"}, "Could not find any format factory for identifier 'nope' in the classpath."},
		{map[string]string{"format": "json", "json.ignore-parse-errors": "yes"}, "Could not parse value 'yes' for key 'json.ignore-parse-errors'."},
		{map[string]string{"format": "json", "json.ignore-parse-errors": "true", "json.fail-on-missing-field": "true"}, "fail-on-missing-field and ignore-parse-errors shouldn't both be true."},
		{map[string]string{"format": "json", "json.timestamp-format.standard": "X"}, "Unsupported value 'X' for timestamp-format.standard. Supported values are [SQL, ISO-8601]."},
		{map[string]string{"format": "json", "json.map-null-key.mode": "X"}, "Unsupported value 'X' for option map-null-key.mode. Supported values are [LITERAL, FAIL, DROP]."},
		{map[string]string{"format": "csv", "csv.field-delimiter": "ab"}, "Option 'csv.field-delimiter' must be a string with single character, but was: ab"},
		{map[string]string{"format": "csv", "csv.quote-character": "'", "csv.disable-quote-character": "true"}, "Format cannot define a quote character and disabled quote character at the same time."},
		{map[string]string{"format": "raw", "raw.endianness": "middle"}, "Unsupported endianness name: middle. Valid values of 'raw.endianness' option are 'big-endian' and 'little-endian'."},
		{map[string]string{"format": "raw", "raw.charset": "EBCDIC-X"}, "Unsupported 'raw.charset' name: EBCDIC-X."},
	}
	for _, c := range cases {
		_, err := decodeAll(t, c.opts, sch, nil, nil)
		require.EqualError(t, err, c.err)
	}
	// a connector's key/value prefixes
	_, err := Builtin().Open(map[string]string{"value.format": "json", "value.json.ignore-parse-errors": "x"}, "value.format")
	require.EqualError(t, err, "Could not parse value 'x' for key 'value.json.ignore-parse-errors'.")
	require.Contains(t, Builtin().OptionKeys(map[string]string{"key.format": "csv"}, "key.format"), "key.csv.field-delimiter")
}

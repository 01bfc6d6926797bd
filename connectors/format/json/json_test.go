package json

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func f(name string, t types.Type) types.Field { return types.Field{Name: name, Type: t} }

func readAll(t *testing.T, in string, schema types.Schema, proj []int, opts Options) ([][]any, error) {
	rd, err := NewReader(strings.NewReader(in), "t.json", schema, proj, opts, 2)
	require.NoError(t, err)
	out := schema
	if proj != nil {
		out = nil
		for _, p := range proj {
			out = append(out, schema[p])
		}
	}
	var rows [][]any
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows = append(rows, types.RecordRows(rec, out)...)
	}
}

func TestReader(t *testing.T) {
	sch := types.Schema{f("id", types.IntT), f("name", types.StringT)}
	cases := []struct {
		name string
		in   string
		sch  types.Schema
		proj []int
		opts func(*Options)
		want [][]any
		err  string
	}{
		{name: "basic", in: "{\"id\":1,\"name\":\"a\"}\n{\"name\":\"b\",\"id\":2}\n\n{\"id\":3}", sch: sch,
			want: [][]any{{int32(1), "a"}, {int32(2), "b"}, {int32(3), nil}}},
		{name: "projection", in: `{"id":1,"name":"a"}`, sch: sch, proj: []int{1}, want: [][]any{{"a"}}},
		{name: "string numbers", in: `{"id":"7","name":5}`, sch: sch, want: [][]any{{int32(7), "5"}}},
		{name: "missing field fails", in: `{"id":1}`, sch: sch, opts: func(o *Options) { o.FailOnMissingField = true },
			err: "Failed to deserialize JSON '{\"id\":1}' at t.json:1: Could not find field with name 'name'."},
		{name: "bad json", in: "{\"id\":1}\n{oops\n", sch: sch, err: "at t.json:2:"},
		{name: "ignore errors", in: "{oops\n{\"id\":\"x\"}\n{\"id\":2}\n", sch: sch, opts: func(o *Options) { o.IgnoreParseErrors = true },
			want: [][]any{{int32(2), nil}}},
		{name: "types", in: `{"b":true,"d":1.5,"dec":"1.255","dt":"2024-01-31","ts":"2021-04-13 20:12:11.123","arr":[1,null],"m":{"k":1},"r":{"x":1}}`,
			sch: types.Schema{f("b", types.BooleanT), f("d", types.DoubleT), f("dec", types.DecimalOf(5, 2)), f("dt", types.DateT),
				f("ts", types.TimestampOf(3)), f("arr", types.ArrayOf(types.BigIntT)), f("m", types.MapOf(types.StringT, types.IntT)),
				f("r", types.RowOf(f("x", types.IntT)))},
			want: [][]any{{true, 1.5, decimal128.FromI64(126), int32(19753), int64(1618344731123000), []any{int64(1), nil},
				&types.MapValue{Keys: []any{"k"}, Values: []any{int32(1)}}, []any{int32(1)}}}},
		{name: "iso timestamps", in: `{"ts":"2021-04-13T20:12:11"}`, sch: types.Schema{f("ts", types.TimestampOf(3))},
			opts: func(o *Options) { o.ISO8601 = true }, want: [][]any{{int64(1618344731000000)}}},
		{name: "sql rejects T", in: `{"ts":"2021-04-13T20:12:11"}`, sch: types.Schema{f("ts", types.TimestampOf(3))}, err: "could not be parsed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := DefaultOptions()
			if c.opts != nil {
				c.opts(&opts)
			}
			rows, err := readAll(t, c.in, c.sch, c.proj, opts)
			if c.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, rows)
		})
	}
}

func TestWriter(t *testing.T) {
	schema := types.Schema{f("id", types.IntT), f("s", types.StringT), f("d", types.DoubleT), f("ts", types.TimestampOf(3)),
		f("arr", types.ArrayOf(types.IntT)), f("m", types.MapOf(types.StringT, types.BooleanT)), f("r", types.RowOf(f("x", types.IntT)))}
	rows := [][]any{
		{int32(1), "a\"b\n<é>", 1e10, int64(1618344731123000), []any{int32(1), nil}, &types.MapValue{Keys: []any{"k"}, Values: []any{true}}, []any{int32(5)}},
		{nil, nil, nil, nil, nil, nil, nil},
	}
	rec, err := types.BuildRecord(memory.DefaultAllocator, schema, rows)
	require.NoError(t, err)
	var buf bytes.Buffer
	w := NewWriter(&buf, schema, DefaultOptions())
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Flush())
	require.Equal(t, `{"id":1,"s":"a\"b\n<é>","d":1.0E10,"ts":"2021-04-13 20:12:11.123","arr":[1,null],"m":{"k":true},"r":{"x":5}}`+"\n"+
		`{"id":null,"s":null,"d":null,"ts":null,"arr":null,"m":null,"r":null}`+"\n", buf.String())
	back, err := readAll(t, buf.String(), schema, nil, DefaultOptions())
	require.NoError(t, err)
	require.Equal(t, rows[1], back[1])
	require.Equal(t, rows[0][:4], back[0][:4])
}

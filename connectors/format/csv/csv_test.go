package csv

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func readAll(t *testing.T, r io.Reader, schema types.Schema, proj []int, opts Options, batch int) ([][]any, error) {
	t.Helper()
	rd, err := NewReader(r, "data/t.csv", schema, proj, opts, batch)
	require.NoError(t, err)
	out := types.Schema{}
	if proj == nil {
		out = schema
	} else {
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
		require.LessOrEqual(t, int(rec.NumRows()), batch)
		rows = append(rows, types.RecordRows(rec, out)...)
		rec.Release()
	}
}

func field(name string, t types.Type) types.Field { return types.Field{Name: name, Type: t} }

func TestReader(t *testing.T) {
	kv := types.Schema{field("k", types.BigIntT), field("v", types.StringT)}
	nullLit := "N/A"
	cases := []struct {
		name  string
		in    string
		sch   types.Schema
		proj  []int
		opts  func(*Options)
		want  [][]any
		err   string
		batch int
	}{
		{name: "plain", in: "1,a\n2,b\n", sch: kv, want: [][]any{{int64(1), "a"}, {int64(2), "b"}}},
		{name: "no final newline", in: "1,a\n2,b", sch: kv, want: [][]any{{int64(1), "a"}, {int64(2), "b"}}},
		{name: "crlf", in: "1,a\r\n2,b\r\n", sch: kv, want: [][]any{{int64(1), "a"}, {int64(2), "b"}}},
		{name: "blank lines", in: "\n1,a\n\n2,b\n\n", sch: kv, want: [][]any{{int64(1), "a"}, {int64(2), "b"}}},
		{name: "quoted", in: "1,\"x,y\"\n2,\"say \"\"hi\"\"\"\n", sch: kv, want: [][]any{{int64(1), "x,y"}, {int64(2), `say "hi"`}}},
		{name: "quoted newline", in: "1,\"line1\nline2\"\n2,b\n", sch: kv, want: [][]any{{int64(1), "line1\nline2"}, {int64(2), "b"}}},
		{name: "empty string", in: "1,\n", sch: kv, want: [][]any{{int64(1), ""}}},
		{name: "projection", in: "1,a\n2,b\n", sch: kv, proj: []int{1}, want: [][]any{{"a"}, {"b"}}},
		{name: "projection reversed", in: "1,a\n", sch: kv, proj: []int{1, 0}, want: [][]any{{"a", int64(1)}}},
		{name: "small batches", in: "1,a\n2,b\n3,c\n", sch: kv, batch: 2, want: [][]any{{int64(1), "a"}, {int64(2), "b"}, {int64(3), "c"}}},
		{name: "delimiter", in: "1|a\n", sch: kv, opts: func(o *Options) { o.FieldDelimiter = '|' }, want: [][]any{{int64(1), "a"}}},
		{name: "comments", in: "# c\n1,a\n", sch: kv, opts: func(o *Options) { o.AllowComments = true }, want: [][]any{{int64(1), "a"}}},
		{name: "null literal", in: "N/A,N/A\n", sch: kv, opts: func(o *Options) { o.NullLiteral = &nullLit }, want: [][]any{{nil, nil}}},
		{name: "escape", in: "1,a\\,b\n", sch: kv, opts: func(o *Options) { o.EscapeCharacter = '\\' }, want: [][]any{{int64(1), "a,b"}}},
		{name: "bad int", in: "1,a\nx,b\n", sch: kv, err: "Failed to deserialize CSV row 'x,b' at data/t.csv:2: For input string: \"x\""},
		{name: "bad line after quoted newline", in: "1,\"a\nb\"\ny,c\n", sch: kv, err: "at data/t.csv:3:"},
		{name: "empty int", in: ",a\n", sch: kv, err: `For input string: ""`},
		{name: "too many fields", in: "1,a,b\n", sch: kv, err: "Failed to deserialize CSV row '1,a,b' at data/t.csv:1: Row length mismatch. 2 fields expected but was 3."},
		{name: "too few fields", in: "1\n", sch: kv, err: "Row length mismatch. 2 fields expected but was 1."},
		{name: "ignore bad fields", in: "x,a\n2,b,c\n3\n", sch: kv, opts: func(o *Options) { o.IgnoreParseErrors = true },
			want: [][]any{{nil, "a"}, {int64(2), "b"}, {int64(3), nil}}},
		{name: "unclosed quote", in: "1,\"abc\n", sch: kv, err: "expected close marker"},
		{name: "unclosed quote ignored", in: "0,z\n1,\"abc\n", sch: kv, opts: func(o *Options) { o.IgnoreParseErrors = true }, want: [][]any{{int64(0), "z"}}},
		{name: "types", in: "true,7,1.5,12.345,2024-01-31,12:34:56,2021-04-13 20:12:11.123,1;2;;3,100\n",
			sch: types.Schema{field("b", types.BooleanT), field("i", types.IntT), field("d", types.DoubleT),
				field("dec", types.DecimalOf(5, 2)), field("dt", types.DateT), field("tm", types.TimeOf(0)),
				field("ts", types.TimestampOf(3)), field("arr", types.ArrayOf(types.IntT)), field("s", types.SmallIntT)},
			want: [][]any{{true, int32(7), 1.5, decimal128.FromI64(1235), int32(19753), int32(45296000), int64(1618344731123000),
				[]any{int32(1), int32(2), nil, int32(3)}, int16(100)}},
			opts: func(o *Options) { n := ""; o.NullLiteral = &n }},
		{name: "int overflow", in: "3000000000\n", sch: types.Schema{field("i", types.IntT)}, err: "For input string"},
		{name: "decimal overflow is null", in: "123456\n", sch: types.Schema{field("d", types.DecimalOf(4, 2))}, want: [][]any{{nil}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, oneByte := range []bool{false, true} {
				opts := DefaultOptions()
				if c.opts != nil {
					c.opts(&opts)
				}
				batch := c.batch
				if batch == 0 {
					batch = 4096
				}
				var r io.Reader = strings.NewReader(c.in)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				rows, err := readAll(t, r, c.sch, c.proj, opts, batch)
				if c.err != "" {
					require.Error(t, err)
					require.Contains(t, err.Error(), c.err)
					continue
				}
				require.NoError(t, err)
				require.Equal(t, c.want, rows)
			}
		})
	}
}

func TestReaderLongRecordGrowsBuffer(t *testing.T) {
	long := strings.Repeat("x", 3*bufSize)
	in := "1," + long + "\n2,y\n"
	rows, err := readAll(t, strings.NewReader(in), types.Schema{field("k", types.BigIntT), field("v", types.StringT)}, nil, DefaultOptions(), 10)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.Equal(t, long, rows[0][1])
}

func TestWriterRoundTrip(t *testing.T) {
	schema := types.Schema{field("i", types.IntT), field("s", types.StringT), field("d", types.DoubleT),
		field("ts", types.TimestampOf(3)), field("b", types.BooleanT), field("dec", types.DecimalOf(6, 2)),
		field("arr", types.ArrayOf(types.BigIntT)), field("bin", types.BytesT)}
	rows := [][]any{
		{int32(1), "Hello World", 1e10, int64(1618344731123000), true, decimal128.FromI64(150), []any{int64(1), int64(2)}, []byte("hi")},
		{int32(2), "a,\"b\"", 0.5, int64(1618344731000000), false, decimal128.FromI64(-5), []any{}, []byte{}},
		{nil, "", nil, nil, nil, nil, nil, nil},
	}
	rec, err := types.BuildRecord(memory.DefaultAllocator, schema, rows)
	require.NoError(t, err)
	var buf bytes.Buffer
	w := NewWriter(&buf, schema, DefaultOptions())
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Flush())
	require.Equal(t, "1,Hello World,1.0E10,2021-04-13 20:12:11.123,true,1.50,1;2,aGk=\n"+
		"2,\"a,\"\"b\"\"\",0.5,2021-04-13 20:12:11,false,-0.05,,\n"+
		",,,,,,,\n", buf.String())
	// Reading back (strings only; NULL numbers need a null literal).
	back, err := readAll(t, strings.NewReader(buf.String()), schema, []int{1}, DefaultOptions(), 10)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"Hello World"}, {"a,\"b\""}, {""}}, back)
}

func TestReaderNoColumns(t *testing.T) {
	// COUNT(*) scans project no column; rows are still counted and checked.
	schema := types.Schema{field("k", types.BigIntT), field("v", types.StringT)}
	rd, err := NewReader(strings.NewReader("1,a\n\n2,b\n3,c\n"), "t.csv", schema, []int{}, DefaultOptions(), 2)
	require.NoError(t, err)
	total := 0
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		require.Equal(t, int64(0), rec.NumCols())
		total += int(rec.NumRows())
	}
	require.Equal(t, 3, total)
}

func TestReaderErrorOrder(t *testing.T) {
	// The first bad row in file order is reported, whatever its column.
	schema := types.Schema{field("a", types.BigIntT), field("b", types.BigIntT)}
	_, err := readAll(t, strings.NewReader("1,2\n3,x\ny,4\n"), schema, nil, DefaultOptions(), 10)
	require.EqualError(t, err, "Failed to deserialize CSV row '3,x' at data/t.csv:2: For input string: \"x\"")
}

func TestReaderNullsInIntColumns(t *testing.T) {
	schema := types.Schema{field("a", types.BigIntT), field("b", types.IntT)}
	opts := DefaultOptions()
	opts.IgnoreParseErrors = true
	rows, err := readAll(t, strings.NewReader("1,2\n-3,\n4,5\n,x\n7,8\n"), schema, nil, opts, 10)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(1), int32(2)}, {int64(-3), nil}, {int64(4), int32(5)}, {nil, nil}, {int64(7), int32(8)}}, rows)
}

func TestReaderRepeatedProjection(t *testing.T) {
	schema := types.Schema{field("k", types.BigIntT), field("v", types.StringT)}
	rows, err := readAll(t, strings.NewReader("1,a\n2,b\n"), schema, []int{1, 0, 1}, DefaultOptions(), 10)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"a", int64(1), "a"}, {"b", int64(2), "b"}}, rows)
}

func TestReaderDecimalDateString(t *testing.T) {
	dec := types.Type{Kind: types.Decimal, Precision: 5, Scale: 2}
	schema := types.Schema{field("d", dec), field("t", types.DateT), field("s", types.StringT)}
	opts := DefaultOptions()
	opts.IgnoreParseErrors = true
	in := "1.5,1970-01-02,a\n-0.125,1970-1-3,\n1e1,x,\"q,r\"\n1234.5,2000-02-29,bc\n,,d\n"
	rows, err := readAll(t, strings.NewReader(in), schema, nil, opts, 2)
	require.NoError(t, err)
	require.Equal(t, [][]any{
		{decimal128.FromI64(150), int32(1), "a"},
		{decimal128.FromI64(-13), int32(2), ""},
		{decimal128.FromI64(1000), nil, "q,r"},
		{nil, int32(11016), "bc"}, // 1234.50 needs 6 digits: NULL, as in Flink
		{nil, nil, "d"},
	}, rows)
	_, err = readAll(t, strings.NewReader("1.5,1970-01-02,a\n2,1970-02-30,b\n"), schema, nil, DefaultOptions(), 10)
	require.ErrorContains(t, err, "Failed to deserialize CSV row '2,1970-02-30,b' at data/t.csv:2: Text '1970-02-30' could not be parsed as a DATE")
}

// TestMessageCodecsRefuseNestedTypes: the csv message format (kafka's
// 'format' = 'csv') refuses MAP and ROW columns when the encoder or the
// decoder is made, naming the column.
func TestMessageCodecsRefuseNestedTypes(t *testing.T) {
	f, err := Factory{}.Create(map[string]string{}, "")
	require.NoError(t, err)
	schema := types.Schema{field("k", types.IntT), field("r", types.RowOf(field("x", types.IntT)))}
	_, err = f.NewEncoder(schema)
	require.ErrorContains(t, err, "not supported yet: csv format for column r of type ROW<`x` INT>")
	_, err = f.NewDecoder(schema, nil, nil)
	require.ErrorContains(t, err, "not supported yet: csv format for column r")
	_, err = f.NewEncoder(schema[:1])
	require.NoError(t, err)
}

package connectors

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/values"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

type collector struct {
	batches []vectorized.Batch
}

func (c *collector) Emit(ctx context.Context, b vectorized.Batch) error {
	c.batches = append(c.batches, b)
	return nil
}
func (c *collector) EmitMarker(ctx context.Context, m vectorized.Marker) error { return nil }

func (c *collector) rows(s types.Schema) [][]any {
	var out [][]any
	for _, b := range c.batches {
		out = append(out, types.RecordRows(b.Rec, s)...)
	}
	return out
}

func col(name string, t types.Type) catalog.Column { return catalog.Column{Name: name, Type: t} }

func table(name string, cols []catalog.Column, opts map[string]string) *catalog.ResolvedTable {
	return &catalog.ResolvedTable{
		ID:    catalog.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Object: name},
		Table: &catalog.Table{Columns: cols, Options: opts},
	}
}

func testCx(out *bytes.Buffer) *Context {
	return &Context{Stdout: out, Stderr: out, Parallelism: 1, BatchSize: 3, Bounded: true}
}

// scan runs a source to completion and returns its rows.
func scan(t *testing.T, cx *Context, tbl *catalog.ResolvedTable, proj []int) ([][]any, error) {
	t.Helper()
	f, err := Builtin().Lookup(tbl)
	require.NoError(t, err)
	src, err := f.CreateSource(cx, SourceSpec{Table: tbl, Projection: proj})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	defer src.Close()
	if err := src.Open(ctx); err != nil {
		return nil, err
	}
	c := &collector{}
	if err := src.Run(ctx, c); err != nil {
		return nil, err
	}
	s := tbl.PhysicalSchema()
	if proj != nil {
		var ps types.Schema
		for _, p := range proj {
			ps = append(ps, s[p])
		}
		s = ps
	}
	for _, b := range c.batches {
		require.LessOrEqual(t, b.NumRows(), cx.BatchSize)
		require.Equal(t, len(s), int(b.Rec.NumCols()))
	}
	return c.rows(s), nil
}

// write runs rows through a sink.
func write(t *testing.T, cx *Context, tbl *catalog.ResolvedTable, rows [][]any, kinds []changelog.RowKind, overwrite bool) error {
	t.Helper()
	f, err := Builtin().Lookup(tbl)
	require.NoError(t, err)
	sink, err := f.CreateSink(cx, SinkSpec{Table: tbl, Overwrite: overwrite})
	if err != nil {
		return err
	}
	ctx := context.Background()
	defer sink.Close()
	if err := sink.Open(ctx); err != nil {
		return err
	}
	rec, err := types.BuildRecord(memory.DefaultAllocator, tbl.PhysicalSchema(), rows)
	require.NoError(t, err)
	if err := sink.Write(ctx, vectorized.Batch{Rec: rec, Kinds: kinds}); err != nil {
		return err
	}
	return sink.Finish(ctx)
}

func TestDatagenUnsupportedOptionsMessage(t *testing.T) {
	// The table of sql-client/table.q (orders2) with a Kafka option left over.
	tbl := table("orders2", []catalog.Column{
		col("user", types.BigIntT.WithNullable(false)),
		col("product", types.VarCharOf(32)),
		col("amount", types.IntT),
		col("ts", types.TimestampOf(3)),
		{Name: "ptime", Type: types.TimestampLTZOf(3), Expr: "PROCTIME()"},
	}, map[string]string{"connector": "datagen", "scan.startup.mode": "earliest-offset"})
	_, err := scan(t, testCx(&bytes.Buffer{}), tbl, nil)
	require.EqualError(t, err, `Unsupported options found for 'datagen'.

Unsupported options:

scan.startup.mode

Supported options:

connector
fields.amount.kind
fields.amount.max
fields.amount.min
fields.amount.null-rate
fields.product.kind
fields.product.length
fields.product.null-rate
fields.product.var-len
fields.ts.kind
fields.ts.max-past
fields.ts.null-rate
fields.user.kind
fields.user.max
fields.user.min
fields.user.null-rate
number-of-rows
rows-per-second
scan.parallelism`)
}

func TestOptionErrors(t *testing.T) {
	kv := []catalog.Column{col("k", types.BigIntT), col("v", types.StringT)}
	cases := []struct {
		name string
		opts map[string]string
		sink bool
		err  string
	}{
		{"filesystem missing path", map[string]string{"connector": "filesystem", "format": "csv"}, false,
			"One or more required options are missing.\n\nMissing required options are:\n\npath"},
		{"filesystem missing both", map[string]string{"connector": "filesystem"}, true,
			"One or more required options are missing.\n\nMissing required options are:\n\nformat\npath"},
		{"filesystem json key on csv", map[string]string{"connector": "filesystem", "format": "csv", "path": "/x", "json.fail-on-missing-field": "true"}, false,
			"Unsupported options found for 'filesystem'.\n\nUnsupported options:\n\njson.fail-on-missing-field\n\nSupported options:\n\nauto-compaction\ncompaction.file-size\nconnector\ncsv.allow-comments"},
		{"filesystem unknown format", map[string]string{"connector": "filesystem", "format": "nope", "path": "/x"}, false,
			"Could not find any format factory for identifier 'nope' in the classpath."},
		{"csv delimiter", map[string]string{"connector": "filesystem", "format": "csv", "path": "/x", "csv.field-delimiter": "ab"}, false,
			"Option 'csv.field-delimiter' must be a string with single character, but was: ab"},
		{"csv bool", map[string]string{"connector": "filesystem", "format": "csv", "path": "/x", "csv.ignore-parse-errors": "yes"}, false,
			"Could not parse value 'yes' for key 'csv.ignore-parse-errors'."},
		{"datagen rps", map[string]string{"connector": "datagen", "rows-per-second": "abc", "number-of-rows": "1"}, false,
			"Could not parse value 'abc' for key 'rows-per-second'."},
		{"datagen min", map[string]string{"connector": "datagen", "fields.k.min": "x", "number-of-rows": "1"}, false,
			"Could not parse value 'x' for key 'fields.k.min'."},
		{"datagen kind", map[string]string{"connector": "datagen", "fields.k.kind": "zigzag"}, false,
			"Unsupported generator kind: zigzag"},
		{"datagen sequence end", map[string]string{"connector": "datagen", "fields.k.kind": "sequence", "fields.k.start": "1"}, false,
			"Could not find required property 'fields.k.end' for sequence generator."},
		{"datagen unbounded in batch", map[string]string{"connector": "datagen"}, false,
			"Querying an unbounded table 'default_catalog.default_database.t' in batch mode is not allowed. The table source is unbounded."},
		{"datagen sequence key on random field", map[string]string{"connector": "datagen", "number-of-rows": "1", "fields.k.start": "1"}, false,
			"Unsupported options found for 'datagen'.\n\nUnsupported options:\n\nfields.k.start\n\n"},
		{"datagen sink", map[string]string{"connector": "datagen"}, true,
			"Connector 'datagen' can only be used as a source. It cannot be used as a sink."},
		{"print source", map[string]string{"connector": "print"}, false,
			"Connector 'print' can only be used as a sink. It cannot be used as a source."},
		{"print unknown", map[string]string{"connector": "print", "foo": "1"}, true,
			"Unsupported options found for 'print'.\n\nUnsupported options:\n\nfoo\n\nSupported options:\n\nconnector\nprint-identifier\nsink.parallelism\nstandard-error"},
		{"blackhole unknown", map[string]string{"connector": "blackhole", "foo": "1"}, true,
			"Unsupported options found for 'blackhole'.\n\nUnsupported options:\n\nfoo\n\nSupported options:\n\nconnector\nsink.parallelism"},
		{"values bad data", map[string]string{"connector": "values", "data": "[[1]]"}, false,
			"Invalid value for option 'data': row 1 must be a JSON array of 2 values"},
		{"values failing", map[string]string{"connector": "values", "data-id": "non-exist", "failing-source": "true"}, false,
			"testing elements of values source shouldn't be empty."},
		{"unknown connector", map[string]string{"connector": "kinesis"}, false,
			"Could not find any factory for identifier 'kinesis' that implements 'org.apache.flink.table.factories.DynamicTableFactory' in the classpath.\n\nAvailable factory identifiers are:\n\nblackhole\ndatagen\nfilesystem\njdbc\nkafka\nnexmark\nprint\nupsert-kafka\nvalues"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl := table("t", kv, c.opts)
			var err error
			f, lerr := Builtin().Lookup(tbl)
			switch {
			case lerr != nil:
				err = lerr
			case c.sink:
				_, err = f.CreateSink(testCx(&bytes.Buffer{}), SinkSpec{Table: tbl})
			default:
				var src vectorized.Source
				src, err = f.CreateSource(testCx(&bytes.Buffer{}), SourceSpec{Table: tbl})
				if err == nil {
					err = src.Run(context.Background(), &collector{})
				}
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), c.err)
		})
	}
}

func TestDatagen(t *testing.T) {
	cols := []catalog.Column{col("id", types.IntT), col("name", types.StringT), col("score", types.DoubleT),
		col("flag", types.BooleanT), col("small", types.TinyIntT), col("dec", types.DecimalOf(5, 2)),
		col("ts", types.TimestampOf(3)), col("seq_s", types.VarCharOf(10)), col("d", types.DateT)}
	opts := map[string]string{"connector": "datagen", "number-of-rows": "100",
		"fields.id.kind": "sequence", "fields.id.start": "1", "fields.id.end": "7",
		"fields.name.length": "5", "fields.score.min": "1", "fields.score.max": "2",
		"fields.small.min": "-3", "fields.small.max": "3", "fields.dec.min": "0", "fields.dec.max": "10",
		"fields.ts.max-past": "10 s", "fields.seq_s.kind": "sequence", "fields.seq_s.start": "10", "fields.seq_s.end": "100",
		"fields.flag.null-rate": "1.0"}
	tbl := table("gen", cols, opts)
	rows, err := scan(t, testCx(&bytes.Buffer{}), tbl, nil)
	require.NoError(t, err)
	require.Len(t, rows, 7) // the id sequence bounds the source
	for i, r := range rows {
		require.Equal(t, int32(i+1), r[0])
		require.Len(t, r[1], 5)
		require.Regexp(t, "^[0-9a-f]{5}$", r[1])
		require.GreaterOrEqual(t, r[2], 1.0)
		require.LessOrEqual(t, r[2], 2.0)
		require.Nil(t, r[3])
		require.GreaterOrEqual(t, r[4], int8(-3))
		require.LessOrEqual(t, r[4], int8(3))
		require.NotNil(t, r[5])
		require.NotNil(t, r[6])
		require.Equal(t, types.FormatValue(int64(10+i), types.BigIntT, nil), r[7])
		require.NotNil(t, r[8])
	}
	// Reproducible: the same definition gives the same random values.
	again, err := scan(t, testCx(&bytes.Buffer{}), tbl, nil)
	require.NoError(t, err)
	for i := range rows {
		require.Equal(t, rows[i][:6], again[i][:6])
	}
	// Projection gives the same values for the projected columns.
	proj, err := scan(t, testCx(&bytes.Buffer{}), tbl, []int{2, 0})
	require.NoError(t, err)
	for i := range rows {
		require.Equal(t, []any{rows[i][2], rows[i][0]}, proj[i])
	}
	// number-of-rows alone.
	n, err := scan(t, testCx(&bytes.Buffer{}), table("g2", []catalog.Column{col("x", types.BigIntT)},
		map[string]string{"connector": "datagen", "number-of-rows": "10"}), nil)
	require.NoError(t, err)
	require.Len(t, n, 10)
	// Zero columns (COUNT(*)).
	n, err = scan(t, testCx(&bytes.Buffer{}), table("g3", []catalog.Column{col("x", types.BigIntT)},
		map[string]string{"connector": "datagen", "number-of-rows": "4"}), []int{})
	require.NoError(t, err)
	require.Len(t, n, 4)
}

func TestFilesystemCSV(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	require.NoError(t, os.MkdirAll(filepath.Join(data, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(data, "_skip"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(data, "a.csv"), []byte("1,x\n2,y\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(data, "sub", "b.csv"), []byte("3,z\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(data, ".hidden"), []byte("garbage\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(data, "_SUCCESS"), []byte("garbage\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(data, "_skip", "c.csv"), []byte("garbage\n"), 0o644))
	cols := []catalog.Column{col("id", types.IntT), col("s", types.StringT), {Name: "c", Type: types.IntT, Expr: "id + 1"}}
	cx := testCx(&bytes.Buffer{})

	// A directory, recursively, hidden files skipped.
	rows, err := scan(t, cx, table("t", cols, map[string]string{"connector": "filesystem", "path": data, "format": "csv"}), nil)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int32(1), "x"}, {int32(2), "y"}, {int32(3), "z"}}, rows)

	// A single file, projected.
	rows, err = scan(t, cx, table("t", cols, map[string]string{"connector": "filesystem", "path": filepath.Join(data, "a.csv"), "format": "csv"}), []int{1})
	require.NoError(t, err)
	require.Equal(t, [][]any{{"x"}, {"y"}}, rows)

	// A bad row names the file and line.
	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("1,a\n2,b\nthree,c\n"), 0o644))
	_, err = scan(t, cx, table("t", cols, map[string]string{"connector": "filesystem", "path": bad, "format": "csv"}), nil)
	require.EqualError(t, err, "Failed to deserialize CSV row 'three,c' at "+bad+":3: For input string: \"three\"")
	rows, err = scan(t, cx, table("t", cols, map[string]string{"connector": "filesystem", "path": bad, "format": "csv", "csv.ignore-parse-errors": "true"}), nil)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int32(1), "a"}, {int32(2), "b"}, {nil, "c"}}, rows)

	// Missing path.
	_, err = scan(t, cx, table("t", cols, map[string]string{"connector": "filesystem", "path": filepath.Join(dir, "nope"), "format": "csv"}), nil)
	require.ErrorContains(t, err, "does not exist")

	// Write, append, read back, overwrite.
	out := filepath.Join(dir, "out")
	tbl := table("o", cols, map[string]string{"connector": "filesystem", "path": out, "format": "csv", "csv.field-delimiter": "|"})
	require.NoError(t, write(t, cx, tbl, [][]any{{int32(1), "Hello World"}, {int32(2), "a|b"}}, nil, false))
	require.NoError(t, write(t, cx, tbl, [][]any{{int32(3), "c"}}, nil, false))
	rows, err = scan(t, cx, tbl, nil)
	require.NoError(t, err)
	sort.Slice(rows, func(i, j int) bool { return rows[i][0].(int32) < rows[j][0].(int32) })
	require.Equal(t, [][]any{{int32(1), "Hello World"}, {int32(2), "a|b"}, {int32(3), "c"}}, rows)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	for _, e := range entries {
		require.Regexp(t, `^part-[0-9a-f-]{36}-0-0$`, e.Name())
	}
	require.NoError(t, write(t, cx, tbl, [][]any{{int32(9), "only"}}, nil, true))
	rows, err = scan(t, cx, tbl, nil)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int32(9), "only"}}, rows)

	// Writing into an existing regular file is refused.
	err = write(t, cx, table("o", cols, map[string]string{"connector": "filesystem", "path": bad, "format": "csv"}), nil, nil, false)
	require.ErrorContains(t, err, "not supported yet")
}

func TestFilesystemJSON(t *testing.T) {
	dir := t.TempDir()
	cols := []catalog.Column{col("id", types.IntT), col("ts", types.TimestampOf(3)), col("tags", types.ArrayOf(types.StringT))}
	tbl := table("j", cols, map[string]string{"connector": "filesystem", "path": dir, "format": "json"})
	cx := testCx(&bytes.Buffer{})
	in := [][]any{{int32(1), int64(1618344731123000), []any{"a", nil}}, {int32(2), nil, nil}}
	require.NoError(t, write(t, cx, tbl, in, nil, false))
	rows, err := scan(t, cx, tbl, nil)
	require.NoError(t, err)
	require.Equal(t, in, rows)

	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.MkdirAll(bad, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, "x.json"), []byte("{\"id\":1}\n{\"id\":\"two\"}\n"), 0o644))
	_, err = scan(t, cx, table("j", cols, map[string]string{"connector": "filesystem", "path": bad, "format": "json"}), nil)
	require.ErrorContains(t, err, "Failed to deserialize JSON '{\"id\":\"two\"}' at "+filepath.Join(bad, "x.json")+":2: For input string: \"two\"")
	rows, err = scan(t, cx, table("j", cols, map[string]string{"connector": "filesystem", "path": bad, "format": "json", "json.ignore-parse-errors": "true"}), nil)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int32(1), nil, nil}}, rows)
}

func TestPrint(t *testing.T) {
	cols := []catalog.Column{col("id", types.IntT), col("s", types.StringT), col("ts", types.TimestampOf(3)), col("b", types.BooleanT)}
	rows := [][]any{{int32(1), "Hello", int64(1618344731123000), true}, {int32(2), nil, nil, nil}}
	kinds := []changelog.RowKind{changelog.Insert, changelog.UpdateBefore}
	cases := []struct {
		name        string
		opts        map[string]string
		parallelism int
		stderr      bool
		want        string
	}{
		{"plain", map[string]string{}, 1, false, "+I[1, Hello, 2021-04-13T20:12:11.123, true]\n-U[2, null, null, null]\n"},
		{"identifier", map[string]string{"print-identifier": "out"}, 1, false, "out> +I[1, Hello, 2021-04-13T20:12:11.123, true]\nout> -U[2, null, null, null]\n"},
		{"parallel", map[string]string{}, 4, false, "1> +I[1, Hello, 2021-04-13T20:12:11.123, true]\n1> -U[2, null, null, null]\n"},
		{"parallel identifier", map[string]string{"print-identifier": "out", "sink.parallelism": "2"}, 1, false, "out:1> +I[1, Hello, 2021-04-13T20:12:11.123, true]\nout:1> -U[2, null, null, null]\n"},
		{"stderr", map[string]string{"standard-error": "true"}, 1, true, "+I[1, Hello, 2021-04-13T20:12:11.123, true]\n-U[2, null, null, null]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cx := &Context{Stdout: &stdout, Stderr: &stderr, Parallelism: c.parallelism, BatchSize: 10, Bounded: true}
			opts := map[string]string{"connector": "print"}
			for k, v := range c.opts {
				opts[k] = v
			}
			require.NoError(t, write(t, cx, table("p", cols, opts), rows, kinds, false))
			got, other := stdout.String(), stderr.String()
			if c.stderr {
				got, other = other, got
			}
			require.Equal(t, c.want, got)
			require.Empty(t, other)
		})
	}
}

func TestBlackholeAndValues(t *testing.T) {
	cols := []catalog.Column{col("id", types.IntT), col("s", types.StringT)}
	cx := testCx(&bytes.Buffer{})
	require.NoError(t, write(t, cx, table("b", cols, map[string]string{"connector": "blackhole"}), [][]any{{int32(1), "a"}}, nil, false))

	// Empty values table.
	rows, err := scan(t, cx, table("v", cols, map[string]string{"connector": "values"}), nil)
	require.NoError(t, err)
	require.Empty(t, rows)
	// Inline data, batches of 3.
	rows, err = scan(t, cx, table("v", cols, map[string]string{"connector": "values",
		"data": `[[1,"a"],[2,null],[3,"c"],[4,"d"]]`}), []int{1, 0})
	require.NoError(t, err)
	require.Equal(t, [][]any{{"a", int32(1)}, {nil, int32(2)}, {"c", int32(3)}, {"d", int32(4)}}, rows)
	// Registered data.
	id := values.RegisterData([][]any{{int32(7), "x"}})
	rows, err = scan(t, cx, table("v", cols, map[string]string{"connector": "values", "data-id": id}), nil)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int32(7), "x"}}, rows)
	// Typed inline data.
	typed := []catalog.Column{col("d", types.DateT), col("ts", types.TimestampOf(3)), col("dec", types.DecimalOf(4, 1)),
		col("arr", types.ArrayOf(types.IntT)), col("r", types.RowOf(types.Field{Name: "a", Type: types.IntT}))}
	rows, err = scan(t, cx, table("v", typed, map[string]string{"connector": "values",
		"data": `[["2024-01-31", "2021-04-13T20:12:11.123", 1.25, [1, null], [5]]]`}), nil)
	require.NoError(t, err)
	require.Equal(t, "[2024-01-31 2021-04-13 20:12:11.123 1.3 [1, NULL] (5)]", formatRow(rows[0], typed))

	// The sink collects per table; overwrite replaces.
	values.ClearCollected()
	sinkTbl := table("collect", cols, map[string]string{"connector": "values"})
	require.NoError(t, write(t, cx, sinkTbl, [][]any{{int32(1), "a"}}, nil, false))
	require.NoError(t, write(t, cx, sinkTbl, [][]any{{int32(2), "b"}}, []changelog.RowKind{changelog.Delete}, false))
	require.Equal(t, []values.Row{{Kind: changelog.Insert, Values: []any{int32(1), "a"}}, {Kind: changelog.Delete, Values: []any{int32(2), "b"}}},
		values.Collected(sinkTbl.ID.String()))
	require.NoError(t, write(t, cx, sinkTbl, [][]any{{int32(3), "c"}}, nil, true))
	require.Len(t, values.Collected(sinkTbl.ID.String()), 1)
}

func formatRow(r []any, cols []catalog.Column) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = types.FormatValue(v, cols[i].Type, nil)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

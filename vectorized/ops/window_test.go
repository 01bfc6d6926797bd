package ops

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

var (
	ts3      = types.Type{Kind: types.Timestamp, Precision: 3}
	wSchema  = types.Schema{{Name: "k", Type: types.StringT}, {Name: "v", Type: types.IntT}, {Name: "ts", Type: ts3}}
	winCols  = logical.WindowColumns(ts3)
	secMicro = int64(1_000_000)
)

// wrow is a row of wSchema with the time in seconds.
func wrow(k string, v int32, sec float64) []any {
	return []any{k, v, int64(sec * float64(secMicro))}
}

// windowStep is one step of a window operator script: rows (one batch)
// or a watermark (in seconds).
type windowStep struct {
	rows [][]any
	wm   float64
}

// runWindowScript feeds the steps to op, then EndOfInput, and returns its
// output: rows with times in seconds, markers as "WM <s>" / "EOI".
func runWindowScript(t *testing.T, op vectorized.Operator, steps []windowStep, out types.Schema) []string {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, op.Open(ctx))
	defer func() { require.NoError(t, op.Close()) }()
	var got []string
	c := &collector{}
	flush := func() {
		for _, b := range c.batches {
			for i, row := range types.RecordRows(b.Rec, out) {
				parts := make([]string, len(row))
				for j, v := range row {
					if out[j].Type.Kind == types.Timestamp && v != nil {
						v = float64(v.(int64)) / float64(secMicro)
					}
					parts[j] = fmt.Sprint(v)
				}
				got = append(got, b.Kind(i).String()+"["+strings.Join(parts, " ")+"]")
			}
		}
		for _, m := range c.markers {
			if m.Kind == vectorized.EndOfInput {
				got = append(got, "EOI")
			} else if m.Watermark == math.MaxInt64 {
				got = append(got, "WM +inf")
			} else {
				got = append(got, fmt.Sprintf("WM %g", float64(m.Watermark)/1000))
			}
		}
		c.batches, c.markers = nil, nil
	}
	for _, s := range steps {
		if s.rows != nil {
			rec, err := types.BuildRecord(vectorized.Mem, wSchema, s.rows)
			require.NoError(t, err)
			require.NoError(t, op.Process(ctx, vectorized.Batch{Rec: rec}, c))
		} else {
			require.NoError(t, op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: int64(s.wm * 1000)}, c))
		}
		flush()
	}
	require.NoError(t, op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
	flush()
	return got
}

func TestWindowAggregate(t *testing.T) {
	count := aggCall("COUNT", false)
	sum := aggCall("SUM", false, 1)
	keyed := types.Schema{{Name: "k", Type: types.StringT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, {Name: "s", Type: types.IntT}, winCols[0], winCols[1]}
	global := types.Schema{{Name: "c", Type: types.BigIntT.WithNullable(false)}, winCols[0], winCols[1]}
	tests := []struct {
		name  string
		win   logical.WindowSpec
		keys  []int
		aggs  []logical.AggCall
		out   types.Schema
		steps []windowStep
		want  []string
		late  int64
	}{
		{
			name: "tumble fires on the watermark and drops late rows",
			win:  logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, Size: 10_000},
			keys: []int{0}, aggs: []logical.AggCall{count, sum}, out: keyed,
			steps: []windowStep{
				{rows: [][]any{wrow("a", 1, 1), wrow("b", 2, 4), wrow("a", 3, 12)}},
				{wm: 9.998}, // window [0, 10) still open: its last ms is 9.999
				{rows: [][]any{wrow("a", 10, 9.999)}},
				{wm: 9.999},
				{rows: [][]any{wrow("a", 5, 2), wrow("b", 4, 15)}}, // 2 s is late
				{wm: 12},
			},
			want: []string{
				"WM 9.998",
				"+I[a 2 11 0 10]", "+I[b 1 2 0 10]", "WM 9.999",
				"WM 12",
				"+I[a 1 3 10 20]", "+I[b 1 4 10 20]", "EOI",
			},
			late: 1,
		},
		{
			name: "hop assigns every row to size/slide windows",
			win:  logical.WindowSpec{Kind: logical.Hop, TimeCol: 2, Size: 10_000, Slide: 5_000},
			aggs: []logical.AggCall{count}, out: global,
			steps: []windowStep{
				{rows: [][]any{wrow("a", 1, 1), wrow("b", 2, 6), wrow("a", 3, 12)}},
				{wm: 5},
			},
			want: []string{
				"+I[1 -5 5]", "WM 5",
				"+I[2 0 10]", "+I[2 5 15]", "+I[1 10 20]", "EOI",
			},
		},
		{
			name: "cumulate windows grow by the step",
			win:  logical.WindowSpec{Kind: logical.Cumulate, TimeCol: 2, Size: 10_000, Step: 5_000},
			aggs: []logical.AggCall{count}, out: global,
			steps: []windowStep{
				{rows: [][]any{wrow("a", 1, 1), wrow("b", 2, 6), wrow("a", 3, 12)}},
				{rows: [][]any{{"n", int32(1), nil}}}, // NULL time: no window
			},
			want: []string{"+I[1 0 5]", "+I[2 0 10]", "+I[1 10 15]", "+I[1 10 20]", "EOI"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, err := NewWindowAggregate(tt.keys, tt.aggs, tt.win, wSchema, mustArrow(t, tt.out))
			require.NoError(t, err)
			got := runWindowScript(t, op, tt.steps, tt.out)
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.late, op.LateRows())
			require.Zero(t, op.OpenWindows())
		})
	}
}

func TestWindowTableFunction(t *testing.T) {
	out := append(append(types.Schema{}, wSchema...), winCols...)
	tests := []struct {
		name string
		win  logical.WindowSpec
		want []string
	}{
		{"tumble", logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, Size: 10_000},
			[]string{"+I[a 1 1 0 10 9.999]", "+I[b 2 12 10 20 19.999]", "EOI"}},
		{"hop", logical.WindowSpec{Kind: logical.Hop, TimeCol: 2, Size: 10_000, Slide: 5_000},
			[]string{"+I[a 1 1 -5 5 4.999]", "+I[a 1 1 0 10 9.999]", "+I[b 2 12 5 15 14.999]", "+I[b 2 12 10 20 19.999]", "EOI"}},
		{"cumulate", logical.WindowSpec{Kind: logical.Cumulate, TimeCol: 2, Size: 10_000, Step: 5_000},
			[]string{"+I[a 1 1 0 5 4.999]", "+I[a 1 1 0 10 9.999]", "+I[b 2 12 10 15 14.999]", "+I[b 2 12 10 20 19.999]", "EOI"}},
		{"offset", logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, Size: 10_000, Offset: 2_000},
			[]string{"+I[a 1 1 -8 2 1.999]", "+I[b 2 12 12 22 21.999]", "EOI"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := NewWindowTableFunction(tt.win, mustArrow(t, out))
			got := runWindowScript(t, op, []windowStep{{rows: [][]any{wrow("a", 1, 1), wrow("b", 2, 12), {"n", int32(3), nil}}}}, out)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestWatermarkAssigner(t *testing.T) {
	// watermark = ts - 5 s
	ev := &rowEvaluator{s: wSchema, t: ts3, fn: func(row []any) any {
		if row[2] == nil {
			return nil
		}
		return row[2].(int64) - 5*secMicro
	}}
	op := NewWatermarkAssigner(ev)
	got := runWindowScript(t, op, []windowStep{
		{rows: [][]any{wrow("a", 1, 10), wrow("b", 2, 7)}},
		{rows: [][]any{wrow("a", 3, 8), {"n", int32(4), nil}}}, // no progress: no watermark
		{wm: 100}, // upstream watermarks are replaced
		{rows: [][]any{wrow("b", 4, 20.5)}},
	}, wSchema)
	require.Equal(t, []string{
		"+I[a 1 10]", "+I[b 2 7]", "WM 5",
		"+I[a 3 8]", "+I[n 4 <nil>]",
		"+I[b 4 20.5]", "WM 15.5",
		"WM +inf", "EOI",
	}, got)
}

func TestSessionWindowAggregate(t *testing.T) {
	count := aggCall("COUNT", false)
	out := types.Schema{{Name: "k", Type: types.StringT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, winCols[0], winCols[1], winCols[2]}
	win := logical.WindowSpec{Kind: logical.Session, TimeCol: 2, Size: 5_000, PartitionKeys: []int{0}}
	op, err := NewSessionWindowAggregate([]int{0}, []logical.AggCall{count}, win, wSchema, mustArrow(t, out))
	require.NoError(t, err)
	got := runWindowScript(t, op, []windowStep{
		{rows: [][]any{wrow("a", 1, 1), wrow("b", 2, 4), wrow("a", 3, 10)}},
		{rows: [][]any{wrow("a", 4, 6)}}, // bridges a's sessions [1, 6) and [10, 15)
		{wm: 10},
		{rows: [][]any{wrow("b", 5, 3)}}, // late: [3, 8) ended
		{rows: [][]any{wrow("b", 6, 6)}}, // extends nothing: b's [4, 9) fired
		{wm: 16.999},
	}, out)
	require.Equal(t, []string{
		"+I[b 1 4 9 8.999]", "WM 10",
		"+I[b 1 6 11 10.999]", "+I[a 3 1 15 14.999]", "WM 16.999",
		"EOI",
	}, got)
	require.Equal(t, int64(1), op.LateRows())
	require.Zero(t, op.OpenWindows())
}

func TestWindowAggregateProctime(t *testing.T) {
	// processing time: windows whose end passed on the wall clock fire as
	// batches arrive, watermarks are ignored and no row is late
	count := aggCall("COUNT", false)
	out := types.Schema{{Name: "c", Type: types.BigIntT.WithNullable(false)}, winCols[0], winCols[1]}
	win := logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, Size: 10_000, Proctime: true}
	op, err := NewWindowAggregate(nil, []logical.AggCall{count}, win, wSchema, mustArrow(t, out))
	require.NoError(t, err)
	got := runWindowScript(t, op, []windowStep{
		{wm: 100},
		{rows: [][]any{wrow("a", 1, 1), wrow("b", 2, 4)}},
		{rows: [][]any{wrow("a", 3, 2)}},
	}, out)
	require.Equal(t, []string{"WM 100", "+I[2 0 10]", "+I[1 0 10]", "EOI"}, got)
	require.Zero(t, op.LateRows())
}

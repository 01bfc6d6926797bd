package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// fakeFactory is a connector whose sources emit Rows (in batches of
// BatchSize) and whose sinks collect what they get; Log records every
// call.
type fakeFactory struct {
	Schema    types.Schema
	Rows      [][]any
	BatchSize int
	Log       []string
	Written   [][]any
	Emitted   int // batches emitted by sources
	FailOn    string
}

func (f *fakeFactory) Identifier() string        { return "fake" }
func (f *fakeFactory) RequiredOptions() []string { return nil }
func (f *fakeFactory) OptionalOptions() []string { return nil }
func (f *fakeFactory) step(s string) error {
	f.Log = append(f.Log, s)
	if s == f.FailOn {
		return errors.New(s + " failed")
	}
	return nil
}

func (f *fakeFactory) CreateSource(_ *connectors.Context, spec connectors.SourceSpec) (vectorized.Source, error) {
	return &fakeSource{f: f}, nil
}

func (f *fakeFactory) CreateSink(_ *connectors.Context, spec connectors.SinkSpec) (connectors.Sink, error) {
	return &fakeSink{f: f}, nil
}

type fakeSource struct{ f *fakeFactory }

func (s *fakeSource) Open(context.Context) error { return s.f.step("source open") }
func (s *fakeSource) Run(ctx context.Context, out vectorized.Collector) error {
	if err := s.f.step("source run"); err != nil {
		return err
	}
	bs := max(s.f.BatchSize, 1)
	for lo := 0; lo < len(s.f.Rows); lo += bs {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := types.BuildRecord(vectorized.Mem, s.f.Schema, s.f.Rows[lo:min(lo+bs, len(s.f.Rows))])
		if err != nil {
			return err
		}
		s.f.Emitted++
		if err := out.Emit(ctx, vectorized.Batch{Rec: rec}); err != nil {
			return fmt.Errorf("fake source: %w", err)
		}
	}
	return nil
}
func (s *fakeSource) Close() error { return s.f.step("source close") }

type fakeSink struct{ f *fakeFactory }

func (s *fakeSink) Open(context.Context) error { return s.f.step("sink open") }
func (s *fakeSink) Write(_ context.Context, b vectorized.Batch) error {
	s.f.Written = append(s.f.Written, types.RecordRows(b.Rec, s.f.Schema)...)
	return s.f.step("sink write")
}
func (s *fakeSink) Finish(context.Context) error { return s.f.step("sink finish") }
func (s *fakeSink) Close() error                 { return s.f.step("sink close") }

func fakeEnv(f *fakeFactory) (*Env, *catalog.ResolvedTable) {
	reg := connectors.NewRegistry()
	reg.Register(f)
	cols := make([]catalog.Column, len(f.Schema))
	for i, c := range f.Schema {
		cols[i] = catalog.Column{Name: c.Name, Type: c.Type}
	}
	tab := &catalog.ResolvedTable{
		ID:    catalog.ObjectIdentifier{Catalog: "c", Database: "d", Object: "t"},
		Table: &catalog.Table{Columns: cols, Options: map[string]string{"connector": "fake"}},
	}
	return &Env{Connectors: reg}, tab
}

var (
	kvSchema = types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.StringT}}
	kvRows   = [][]any{{int64(3), "c"}, {int64(1), "a"}, {nil, "n"}, {int64(2), "b"}, {int64(1), "a2"}}
)

func values(rows [][]any) *physical.Values { return &physical.Values{Rows: rows, Out: kvSchema} }

func collectRows(t *testing.T, plan physical.Node, env *Env) ([][]any, error) {
	t.Helper()
	bs, err := Collect(context.Background(), plan, env)
	if err != nil {
		return nil, err
	}
	var out [][]any
	for _, b := range bs {
		out = append(out, types.RecordRows(b.Rec, plan.Schema())...)
	}
	return out, nil
}

func TestRunPlans(t *testing.T) {
	cnt := types.BigIntT.WithNullable(false)
	aggOut := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "c", Type: cnt}}
	joinOut := append(append(types.Schema{}, kvSchema...), kvSchema...)
	tests := []struct {
		name string
		plan physical.Node
		want [][]any
	}{
		{"values", values(kvRows), kvRows},
		{"empty values", values(nil), nil},
		{"sort", &physical.Sort{Input: values(kvRows), Keys: []logical.SortKey{{Index: 0, Desc: true}, {Index: 1}}},
			[][]any{{int64(3), "c"}, {int64(2), "b"}, {int64(1), "a"}, {int64(1), "a2"}, {nil, "n"}}},
		{"sort limit", &physical.SortLimit{Input: values(kvRows), Keys: []logical.SortKey{{Index: 0, NullsFirst: true}}, Offset: 1, Fetch: 2},
			[][]any{{int64(1), "a"}, {int64(1), "a2"}}},
		{"limit", &physical.Limit{Input: values(kvRows), Offset: 1, Fetch: 2}, kvRows[1:3]},
		{"aggregate over sort", &physical.Sort{Keys: []logical.SortKey{{Index: 0}}, Input: &physical.HashAggregate{
			Input: values(kvRows), GroupKeys: []int{0}, Aggs: []logical.AggCall{{Name: "COUNT", Filter: -1, T: cnt}}, Out: aggOut}},
			[][]any{{int64(1), int64(2)}, {int64(2), int64(1)}, {int64(3), int64(1)}, {nil, int64(1)}}},
		{"global aggregate, empty", &physical.HashAggregate{Input: values(nil),
			Aggs: []logical.AggCall{{Name: "COUNT", Filter: -1, T: cnt}}, Out: aggOut[1:]}, [][]any{{int64(0)}}},
		{"union", &physical.Union{Inputs: []physical.Node{values(kvRows[:2]), values(nil), values(kvRows[4:])}, Out: kvSchema},
			[][]any{kvRows[0], kvRows[1], kvRows[4]}},
		{"except", &physical.SetOp{Left: values(kvRows), Right: values(kvRows[1:3]), Kind: logical.Except},
			[][]any{kvRows[0], kvRows[3], kvRows[4]}},
		{"hash join", &physical.Sort{Keys: []logical.SortKey{{Index: 1}, {Index: 3}}, Input: &physical.HashJoin{
			Left: values(kvRows), Right: values(kvRows), Kind: logical.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Out: joinOut}},
			[][]any{{int64(1), "a", int64(1), "a"}, {int64(1), "a", int64(1), "a2"}, {int64(1), "a2", int64(1), "a"}, {int64(1), "a2", int64(1), "a2"},
				{int64(2), "b", int64(2), "b"}, {int64(3), "c", int64(3), "c"}}},
		{"cross join", &physical.NestedLoopJoin{Left: values(kvRows[:2]), Right: values(kvRows[:2]), Kind: logical.InnerJoin, Out: joinOut},
			[][]any{{int64(3), "c", int64(3), "c"}, {int64(3), "c", int64(1), "a"}, {int64(1), "a", int64(3), "c"}, {int64(1), "a", int64(1), "a"}}},
		{"calc of column refs", &physical.Calc{Input: values(kvRows[:2]), Projection: []logical.Expr{
			&logical.ColumnRef{Index: 1, T: types.StringT}, &logical.ColumnRef{Index: 0, T: types.BigIntT}},
			Out: types.Schema{{Name: "v", Type: types.StringT}, {Name: "k", Type: types.BigIntT}}},
			[][]any{{"c", int64(3)}, {"a", int64(1)}}},
	}
	for _, tc := range tests {
		got, err := collectRows(t, tc.plan, nil)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
}

func TestRunScanAndSink(t *testing.T) {
	f := &fakeFactory{Schema: kvSchema, Rows: kvRows, BatchSize: 2}
	env, tab := fakeEnv(f)
	scan := &physical.TableSourceScan{Table: tab, Out: kvSchema}
	got, err := collectRows(t, scan, env)
	require.NoError(t, err)
	require.Equal(t, kvRows, got)
	require.Equal(t, []string{"source open", "source run", "source close"}, f.Log)

	f.Log = nil
	delivered := 0
	err = Run(context.Background(), &physical.Sink{Input: scan, Table: tab}, env, func(vectorized.Batch) error {
		delivered++
		return nil
	})
	require.NoError(t, err)
	require.Zero(t, delivered)
	require.Equal(t, kvRows, f.Written)
	require.Equal(t, []string{"sink open", "source open", "source run", "sink write", "sink write", "sink write", "sink finish", "source close", "sink close"}, f.Log)
}

func TestRunLimitStopsEarly(t *testing.T) {
	var rows [][]any
	for i := 0; i < 1000; i++ {
		rows = append(rows, []any{int64(i), "x"})
	}
	f := &fakeFactory{Schema: kvSchema, Rows: rows, BatchSize: 10}
	env, tab := fakeEnv(f)
	scan := &physical.TableSourceScan{Table: tab, Out: kvSchema}
	// Limit over Limit: the inner one stops first, the outer one must not
	// be confused by it.
	plan := &physical.Limit{Input: &physical.Limit{Input: scan, Offset: 5, Fetch: 20}, Offset: 2, Fetch: 100}
	got, err := collectRows(t, plan, env)
	require.NoError(t, err)
	require.Equal(t, rows[7:25], got)
	require.Equal(t, 3, f.Emitted)
	require.Equal(t, []string{"source open", "source run", "source close"}, f.Log)

	f.Emitted = 0
	plan = &physical.Limit{Input: &physical.Limit{Input: scan, Fetch: 50}, Fetch: 5}
	got, err = collectRows(t, plan, env)
	require.NoError(t, err)
	require.Equal(t, rows[:5], got)
	require.Equal(t, 1, f.Emitted)
}

func TestRunErrors(t *testing.T) {
	sv := &physical.HashAggregate{Input: values(kvRows), Aggs: []logical.AggCall{{Name: "SINGLE_VALUE", Args: []int{1}, Filter: -1, T: types.StringT}},
		Out: types.Schema{{Name: "v", Type: types.StringT}}}
	_, err := collectRows(t, &physical.Limit{Input: sv, Fetch: 1}, nil)
	require.EqualError(t, err, "HashAggregate: SingleValueAggFunction received more than one element.")
	require.ErrorIs(t, err, ops.ErrSingleValue)

	f := &fakeFactory{Schema: kvSchema, Rows: kvRows, FailOn: "source run"}
	env, tab := fakeEnv(f)
	scan := &physical.TableSourceScan{Table: tab, Out: kvSchema}
	err = Run(context.Background(), &physical.Sink{Input: scan, Table: tab}, env, nil)
	require.EqualError(t, err, "TableSourceScan: source run failed")
	require.Equal(t, []string{"sink open", "source open", "source run", "source close", "sink close"}, f.Log)

	f.Log, f.FailOn = nil, "sink write"
	err = Run(context.Background(), &physical.Sink{Input: scan, Table: tab}, env, nil)
	require.EqualError(t, err, "Sink: sink write failed")
	require.Equal(t, []string{"sink open", "source open", "source run", "sink write", "source close", "sink close"}, f.Log)

	f.Log, f.FailOn = nil, "sink close"
	err = Run(context.Background(), &physical.Sink{Input: scan, Table: tab}, env, nil)
	require.EqualError(t, err, "Sink: sink close failed")

	f.Log, f.FailOn = nil, "source open"
	_, err = collectRows(t, scan, env)
	require.EqualError(t, err, "TableSourceScan: source open failed")
	require.Equal(t, []string{"source open", "source close"}, f.Log)

	// The caller's error comes back unchanged.
	mine := errors.New("mine")
	f.Log, f.FailOn = nil, ""
	err = Run(context.Background(), &physical.Sort{Input: scan}, env, func(vectorized.Batch) error { return mine })
	require.Same(t, mine, err)

	// Unknown connector: Flink's message.
	tab.Table.Options["connector"] = "nope"
	_, err = collectRows(t, scan, env)
	require.ErrorContains(t, err, "Could not find any factory for identifier 'nope'")
	tab.Table.Options["connector"] = "fake"

	_, err = collectRows(t, &physical.HashJoin{Left: values(nil), Right: values(nil), Kind: logical.InnerJoin,
		LeftKeys: []int{0}, RightKeys: []int{1}, Out: append(append(types.Schema{}, kvSchema...), kvSchema...)}, nil)
	require.ErrorContains(t, err, "HashJoin: not supported yet: join key of types")
}

func TestRunCancel(t *testing.T) {
	var rows [][]any
	for i := 0; i < 100; i++ {
		rows = append(rows, []any{int64(i), "x"})
	}
	f := &fakeFactory{Schema: kvSchema, Rows: rows, BatchSize: 1}
	env, tab := fakeEnv(f)
	scan := &physical.TableSourceScan{Table: tab, Out: kvSchema}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := Run(ctx, scan, env, func(vectorized.Batch) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 3, n)
	require.Equal(t, "source close", f.Log[len(f.Log)-1])

	_, err = Collect(ctx, scan, env)
	require.ErrorIs(t, err, context.Canceled)
}

func TestStream(t *testing.T) {
	var rows [][]any
	for i := 0; i < 50; i++ {
		rows = append(rows, []any{int64(i), "x"})
	}
	f := &fakeFactory{Schema: kvSchema, Rows: rows, BatchSize: 10}
	env, tab := fakeEnv(f)
	scan := &physical.TableSourceScan{Table: tab, Out: kvSchema}

	s := Start(context.Background(), scan, env)
	n := 0
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		n += b.NumRows()
	}
	require.Equal(t, 50, n)
	require.NoError(t, s.Close())

	// Closing early stops the run and closes the source.
	f.Log = nil
	s = Start(context.Background(), scan, env)
	_, err := s.Next()
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.Equal(t, "source close", f.Log[len(f.Log)-1])

	f.FailOn = "source run"
	s = Start(context.Background(), scan, env)
	_, err = s.Next()
	require.EqualError(t, err, "TableSourceScan: source run failed")
	require.Error(t, s.Close())
}

func TestRunLimitOverUnionAndJoin(t *testing.T) {
	var rows [][]any
	for i := 0; i < 100; i++ {
		rows = append(rows, []any{int64(i % 10), "x"})
	}
	f := &fakeFactory{Schema: kvSchema, Rows: rows, BatchSize: 10}
	env, tab := fakeEnv(f)
	scan := &physical.TableSourceScan{Table: tab, Out: kvSchema}
	union := &physical.Union{Inputs: []physical.Node{scan, scan}, Out: kvSchema}
	got, err := collectRows(t, &physical.Limit{Input: union, Fetch: 15}, env)
	require.NoError(t, err)
	require.Len(t, got, 15)
	require.Equal(t, 2, f.Emitted)
	require.Equal(t, []string{"source open", "source run", "source close"}, f.Log)

	f.Emitted, f.Log = 0, nil
	join := &physical.HashJoin{Left: scan, Right: &physical.Limit{Input: scan, Fetch: 3}, Kind: logical.SemiJoin,
		LeftKeys: []int{0}, RightKeys: []int{0}, Out: kvSchema}
	got, err = collectRows(t, &physical.Limit{Input: join, Offset: 1, Fetch: 4}, env)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(1), "x"}, {int64(2), "x"}, {int64(0), "x"}, {int64(1), "x"}}, got)
	require.Equal(t, 3, f.Emitted) // one batch for the build side, two for the probe side
	require.Equal(t, []string{"source open", "source run", "source close", "source open", "source run", "source close"}, f.Log)
}

func TestOperatorError(t *testing.T) {
	sv := &physical.HashAggregate{Input: values(kvRows), Aggs: []logical.AggCall{{Name: "SINGLE_VALUE", Args: []int{1}, Filter: -1, T: types.StringT}},
		Out: types.Schema{{Name: "v", Type: types.StringT}}}
	_, err := collectRows(t, sv, nil)
	var oe *OperatorError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "HashAggregate", oe.Node)
	require.Same(t, ops.ErrSingleValue, oe.Err)
}

func TestRunRecoversPanics(t *testing.T) {
	f := &fakeFactory{Schema: kvSchema, Rows: kvRows}
	env, tab := fakeEnv(f)
	scan := &physical.TableSourceScan{Table: tab, Out: kvSchema}
	err := Run(context.Background(), scan, env, func(vectorized.Batch) error { panic("boom") })
	require.EqualError(t, err, "internal error while running the plan: boom")
	require.Equal(t, "source close", f.Log[len(f.Log)-1])
}

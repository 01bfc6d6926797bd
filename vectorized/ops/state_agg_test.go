package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// aggCheckpoint is an in-memory checkpoint of one operator: per writing
// subtask, per part, the batches written, serialised as Arrow IPC streams
// (so that every state column goes through the real format).
type aggCheckpoint struct {
	subtasks []map[string][][]byte
}

// aggStateWriter writes one subtask's parts into an aggCheckpoint.
type aggStateWriter struct{ parts map[string][][]byte }

func (w *aggStateWriter) Write(part string, rec arrow.RecordBatch) error {
	var buf bytes.Buffer
	iw := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := iw.Write(rec); err != nil {
		return err
	}
	if err := iw.Close(); err != nil {
		return err
	}
	w.parts[part] = append(w.parts[part], buf.Bytes())
	return nil
}

// writer returns the writer of the next subtask.
func (c *aggCheckpoint) writer() *aggStateWriter {
	w := &aggStateWriter{parts: map[string][][]byte{}}
	c.subtasks = append(c.subtasks, w.parts)
	return w
}

// aggStateReader reads an aggCheckpoint as subtask of parallelism.
type aggStateReader struct {
	cp                   *aggCheckpoint
	subtask, parallelism int
}

func (r *aggStateReader) Read(part string, fn func(rec arrow.RecordBatch) error) error {
	for _, parts := range r.cp.subtasks {
		for _, b := range parts[part] {
			rd, err := ipc.NewReader(bytes.NewReader(b))
			if err != nil {
				return err
			}
			for rd.Next() {
				if err := fn(rd.RecordBatch()); err != nil {
					rd.Release()
					return err
				}
			}
			err = rd.Err()
			rd.Release()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *aggStateReader) Owns(kg int) bool {
	return vectorized.SubtaskOf(kg, vectorized.DefaultMaxParallelism, r.parallelism) == r.subtask
}

func (r *aggStateReader) Subtask() int     { return r.subtask }
func (r *aggStateReader) Parallelism() int { return r.parallelism }

// aggRun drives one operator instance.
type aggRun struct {
	t       *testing.T
	op      vectorized.Operator
	in, out types.Schema
	c       collector
}

func newAggRun(t *testing.T, op vectorized.Operator, in, out types.Schema) *aggRun {
	t.Helper()
	require.NoError(t, op.Open(context.Background()))
	return &aggRun{t: t, op: op, in: in, out: out}
}

// feed processes input in batches of bs rows, closing a mini-batch bundle
// after every bundle batches (0: never).
func (r *aggRun) feed(input []change, bs, bundle int) {
	ctx := context.Background()
	for k, lo := 0, 0; lo < len(input); k, lo = k+1, lo+bs {
		hi := min(lo+bs, len(input))
		rows := make([][]any, 0, hi-lo)
		kinds := make([]changelog.RowKind, 0, hi-lo)
		for _, ch := range input[lo:hi] {
			rows = append(rows, ch.row)
			kinds = append(kinds, ch.kind)
		}
		rec, err := types.BuildRecord(vectorized.Mem, r.in, rows)
		require.NoError(r.t, err)
		require.NoError(r.t, r.op.Process(ctx, vectorized.Batch{Rec: rec, Kinds: kinds}, &r.c))
		if bundle > 0 && k%bundle == bundle-1 {
			require.NoError(r.t, r.op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfBundle}, &r.c))
		}
	}
}

func (r *aggRun) marker(k vectorized.MarkerKind) {
	require.NoError(r.t, r.op.OnMarker(context.Background(), vectorized.Marker{Kind: k}, &r.c))
}

// snapshot passes a checkpoint barrier and writes the state of st.
func (r *aggRun) snapshot(st vectorized.Stateful, cp *aggCheckpoint) {
	r.marker(vectorized.CheckpointBarrier)
	require.NoError(r.t, st.SnapshotState(context.Background(), cp.writer()))
}

// changes returns the output so far and closes the operator when done.
func (r *aggRun) changes(done bool) []change {
	var res []change
	for _, b := range r.c.batches {
		for i, row := range types.RecordRows(b.Rec, r.out) {
			res = append(res, change{kind: b.Kind(i), row: row})
		}
	}
	if done {
		require.NoError(r.t, r.op.Close())
	}
	return res
}

// aggMaterialize applies a changelog (keys: the first nk columns) and
// returns the final rows, sorted.
func aggMaterialize(t *testing.T, nk int, cs []change) []string {
	t.Helper()
	m := map[string]string{}
	for _, c := range cs {
		k := fmt.Sprint(c.row[:nk])
		switch c.kind {
		case changelog.Insert, changelog.UpdateAfter:
			m[k] = fmt.Sprint(c.row)
		default:
			require.Equal(t, fmt.Sprint(c.row), m[k], "retraction of a row that is not there")
			delete(m, k)
		}
	}
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// aggSubtasks splits input by the subtask of its key (columns keys) at
// parallelism p.
func aggSubtasks(t *testing.T, in types.Schema, keys []int, input []change, p int) [][]change {
	t.Helper()
	out := make([][]change, p)
	if len(input) == 0 {
		return out
	}
	rows := make([][]any, len(input))
	for i, c := range input {
		rows[i] = c.row
	}
	rec, err := types.BuildRecord(vectorized.Mem, in, rows)
	require.NoError(t, err)
	hashes := make([]uint64, len(rows))
	vectorized.HashColumns(rec, keys, hashes)
	for i, h := range hashes {
		s := vectorized.SubtaskOf(vectorized.KeyGroup(h, vectorized.DefaultMaxParallelism), vectorized.DefaultMaxParallelism, p)
		out[s] = append(out[s], input[i])
	}
	return out
}

var aggStateIn = types.Schema{
	{Name: "k", Type: types.StringT}, {Name: "v", Type: types.IntT},
	{Name: "s", Type: types.StringT}, {Name: "n", Type: types.BigIntT},
}

// aggStateInput is a random changelog over aggStateIn: inserts, and with
// retract also -D and -U/+U of earlier rows.
func aggStateInput(seed uint64, n, keys int, retract bool) []change {
	r := rand.New(rand.NewPCG(seed, 7))
	var live [][]any
	var out []change
	row := func() []any {
		var k, v, s any
		if r.IntN(20) > 0 {
			k = fmt.Sprintf("k%d", r.IntN(keys))
		}
		if r.IntN(8) > 0 {
			v = int32(r.IntN(50) - 10)
		}
		if r.IntN(8) > 0 {
			s = fmt.Sprintf("s%d", r.IntN(12))
		}
		return []any{k, v, s, int64(r.IntN(7))}
	}
	for len(out) < n {
		if retract && len(live) > 0 && r.IntN(3) == 0 {
			j := r.IntN(len(live))
			old := live[j]
			live = append(live[:j], live[j+1:]...)
			if r.IntN(2) == 0 {
				out = append(out, change{changelog.Delete, old})
				continue
			}
			nw := append([]any{old[0]}, row()[1:]...)
			live = append(live, nw)
			out = append(out, change{changelog.UpdateBefore, old}, change{changelog.UpdateAfter, nw})
			continue
		}
		x := row()
		live = append(live, x)
		out = append(out, change{changelog.Insert, x})
	}
	return out
}

// aggStateCalls are the aggregate calls the state tests run, with their
// result types.
func aggStateCalls(retract bool) ([]logical.AggCall, types.Schema) {
	call := func(name string, distinct bool, args ...int) logical.AggCall {
		return logical.AggCall{Name: name, Args: args, Distinct: distinct, Filter: -1, Alias: name}
	}
	cnt := types.BigIntT.WithNullable(false)
	calls := []logical.AggCall{
		call("COUNT", false), call("COUNT", false, 1), call("SUM", false, 1), call("AVG", false, 1),
		call("MIN", false, 1), call("MAX", false, 2), call("COUNT", true, 1), call("COUNT", true, 2),
		call("SUM", true, 3), call("LISTAGG", false, 2), call("FIRST_VALUE", false, 1),
		call("LAST_VALUE", false, 2), call("STDDEV_POP", false, 1), call("VAR_SAMP", false, 3),
	}
	ts := []types.Type{cnt, cnt, types.IntT, types.IntT, types.IntT, types.StringT, cnt, cnt,
		types.BigIntT, types.StringT, types.IntT, types.StringT, types.IntT, types.BigIntT}
	// a FILTER clause on one call
	calls = append(calls, logical.AggCall{Name: "SUM", Args: []int{3}, Filter: 4, Alias: "f"})
	ts = append(ts, types.BigIntT)
	out := types.Schema{{Name: "k", Type: types.StringT}}
	for i, c := range calls {
		out = append(out, types.Field{Name: fmt.Sprintf("%s%d", c.Name, i), Type: ts[i]})
	}
	return calls, out
}

// aggStateInWithFilter is aggStateIn plus a BOOLEAN filter column.
var aggStateInWithFilter = append(append(types.Schema{}, aggStateIn...), types.Field{Name: "p", Type: types.BooleanT})

func withFilter(cs []change) []change {
	out := make([]change, len(cs))
	for i, c := range cs {
		var p any
		if n := c.row[3].(int64); n%3 != 0 {
			p = n%3 == 1
		}
		out[i] = change{c.kind, append(append([]any{}, c.row...), p)}
	}
	return out
}

// aggOpCase makes fresh instances of one stateful operator.
type aggOpCase struct {
	name    string
	in, out types.Schema
	keys    []int
	bundle  int // close a mini-batch bundle every bundle batches
	retract bool
	mk      func(t *testing.T) (vectorized.Operator, vectorized.Stateful)
}

func aggOpCases(t *testing.T) []aggOpCase {
	var cases []aggOpCase
	for _, retract := range []bool{false, true} {
		calls, out := aggStateCalls(retract)
		in := aggStateInWithFilter
		opts := GroupAggregateOptions{Retract: retract}
		cases = append(cases,
			aggOpCase{name: fmt.Sprintf("GroupAggregate retract=%v", retract), in: in, out: out, keys: []int{0}, retract: retract,
				mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
					op := onTestDisk(t, NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), opts))
					return op, op
				}},
			aggOpCase{name: fmt.Sprintf("MiniBatchGroupAggregate retract=%v", retract), in: in, out: out, keys: []int{0}, bundle: 3, retract: retract,
				mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
					op := NewMiniBatchGroupAggregate([]int{0}, calls, in, mustArrow(t, out), opts, 0)
					onTestDisk(t, op.GroupAggregate)
					return op, op
				}},
		)
	}
	// the global aggregate (no GROUP BY)
	calls, out := aggStateCalls(true)
	out = out[1:]
	cases = append(cases, aggOpCase{name: "GroupAggregate without keys", in: aggStateInWithFilter, out: out, retract: true,
		mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
			op := onTestDisk(t, NewGroupAggregate(nil, calls, aggStateInWithFilter, mustArrow(t, out), GroupAggregateOptions{Retract: true}))
			return op, op
		}})
	// two phases
	tcalls := []logical.AggCall{
		{Name: "COUNT", Filter: -1}, {Name: "SUM", Args: []int{1}, Filter: -1}, {Name: "AVG", Args: []int{3}, Filter: -1},
		{Name: "MIN", Args: []int{2}, Filter: -1}, {Name: "MAX", Args: []int{1}, Filter: -1}, {Name: "STDDEV_POP", Args: []int{3}, Filter: -1},
	}
	tout := types.Schema{{Name: "k", Type: types.StringT}, {Name: "c", Type: types.BigIntT.WithNullable(false)},
		{Name: "s", Type: types.IntT}, {Name: "a", Type: types.BigIntT}, {Name: "mi", Type: types.StringT},
		{Name: "ma", Type: types.IntT}, {Name: "sd", Type: types.BigIntT}}
	for _, keyed := range []bool{true, false} {
		keys, out := []int{0}, tout
		if !keyed {
			keys, out = nil, tout[1:]
		}
		local, stateCols := twoPhaseLocalSchema(t, keys, tcalls, aggStateIn)
		cases = append(cases, aggOpCase{name: fmt.Sprintf("Local/GlobalGroupAggregate keyed=%v", keyed), in: aggStateIn, out: out, keys: keys, bundle: 2,
			mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
				lo := NewLocalGroupAggregate(keys, tcalls, aggStateIn, local, 0)
				gl := onTestDisk(t, NewGlobalGroupAggregate(keys, tcalls, stateCols, aggStateIn, local, mustArrow(t, out), GroupAggregateOptions{}, 0))
				return &testChain{lo, gl}, &aggChainState{lo, gl}
			}})
	}
	return cases
}

// aggChainState snapshots both phases of a two-phase aggregation.
type aggChainState struct {
	lo *LocalGroupAggregate
	gl *GlobalGroupAggregate
}

func (c *aggChainState) SnapshotState(ctx context.Context, w vectorized.StateWriter) error {
	if err := c.lo.SnapshotState(ctx, w); err != nil {
		return err
	}
	return c.gl.SnapshotState(ctx, w)
}

func (c *aggChainState) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	if err := c.lo.RestoreState(ctx, r); err != nil {
		return err
	}
	return c.gl.RestoreState(ctx, r)
}

// twoPhaseLocalSchema is the local phase's output: keys, then the state
// columns of every call.
func twoPhaseLocalSchema(t *testing.T, keys []int, calls []logical.AggCall, in types.Schema) (*arrow.Schema, [][]int) {
	t.Helper()
	var fields []arrow.Field
	for _, k := range keys {
		dt, err := types.ArrowType(in[k].Type)
		require.NoError(t, err)
		fields = append(fields, arrow.Field{Name: in[k].Name, Type: dt, Nullable: true})
	}
	var cols [][]int
	for i, c := range calls {
		var ats []arrow.DataType
		for _, a := range c.Args {
			dt, err := types.ArrowType(in[a].Type)
			require.NoError(t, err)
			ats = append(ats, dt)
		}
		acc, err := agg.NewAccumulator(accumulatorName(c), ats, nil, false)
		require.NoError(t, err)
		var cc []int
		for j, st := range acc.(agg.Merger).StateTypes() {
			cc = append(cc, len(fields))
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("st%d_%d", i, j), Type: st, Nullable: true})
		}
		cols = append(cols, cc)
	}
	return arrow.NewSchema(fields, nil), cols
}

func TestAggregateStateRestoreEqualsUninterrupted(t *testing.T) {
	defer func(c int) { aggStateChunk = c }(aggStateChunk)
	aggStateChunk = 7 // several record batches per snapshot
	for _, tc := range aggOpCases(t) {
		for seed := uint64(1); seed <= 3; seed++ {
			for _, bs := range []int{1, 7, 4096} {
				t.Run(fmt.Sprintf("%s/seed=%d/bs=%d", tc.name, seed, bs), func(t *testing.T) {
					input := aggStateInput(seed, 600, 25, tc.retract)
					if len(tc.in) == len(aggStateInWithFilter) {
						input = withFilter(input)
					}
					half := len(input) / 2
					for half < len(input) && input[half].kind == changelog.UpdateAfter {
						half++ // keep -U/+U pairs together, as a source would
					}
					// (a) straight through, with the same barrier
					op, _ := tc.mk(t)
					a := newAggRun(t, op, tc.in, tc.out)
					a.feed(input[:half], bs, tc.bundle)
					a.marker(vectorized.CheckpointBarrier)
					a.feed(input[half:], bs, tc.bundle)
					a.marker(vectorized.EndOfInput)
					want := a.changes(true)

					// (b) snapshot, new instance, restore
					cp := &aggCheckpoint{}
					op1, st1 := tc.mk(t)
					b1 := newAggRun(t, op1, tc.in, tc.out)
					b1.feed(input[:half], bs, tc.bundle)
					b1.snapshot(st1, cp)
					got := b1.changes(true)
					op2, st2 := tc.mk(t)
					b2 := newAggRun(t, op2, tc.in, tc.out)
					require.NoError(t, st2.RestoreState(context.Background(), &aggStateReader{cp: cp, parallelism: 1}))
					b2.feed(input[half:], bs, tc.bundle)
					b2.marker(vectorized.EndOfInput)
					got = append(got, b2.changes(true)...)
					require.Equal(t, changeStrings(want), changeStrings(got))
				})
			}
		}
	}
}

func TestAggregateStateRescale(t *testing.T) {
	for _, tc := range aggOpCases(t) {
		if len(tc.keys) == 0 {
			continue // a global aggregate runs at parallelism 1
		}
		t.Run(tc.name, func(t *testing.T) {
			input := aggStateInput(11, 800, 40, tc.retract)
			if len(tc.in) == len(aggStateInWithFilter) {
				input = withFilter(input)
			}
			half := len(input) / 2
			for half < len(input) && input[half].kind == changelog.UpdateAfter {
				half++
			}
			op, _ := tc.mk(t)
			a := newAggRun(t, op, tc.in, tc.out)
			a.feed(input, 5, tc.bundle)
			a.marker(vectorized.EndOfInput)
			want := aggMaterialize(t, len(tc.keys), a.changes(true))

			// run the first half at parallelism from, the second at to
			run := func(from, to int) []string {
				var all []change
				cp := &aggCheckpoint{}
				for i, part := range aggSubtasks(t, tc.in, tc.keys, input[:half], from) {
					op, st := tc.mk(t)
					r := newAggRun(t, op, tc.in, tc.out)
					r.feed(part, 5, tc.bundle)
					r.snapshot(st, cp)
					require.Len(t, cp.subtasks, i+1)
					all = append(all, r.changes(true)...)
				}
				for i, part := range aggSubtasks(t, tc.in, tc.keys, input[half:], to) {
					op, st := tc.mk(t)
					r := newAggRun(t, op, tc.in, tc.out)
					require.NoError(t, st.RestoreState(context.Background(), &aggStateReader{cp: cp, subtask: i, parallelism: to}))
					r.feed(part, 5, tc.bundle)
					r.marker(vectorized.EndOfInput)
					all = append(all, r.changes(true)...)
				}
				return aggMaterialize(t, len(tc.keys), all)
			}
			require.Equal(t, want, run(2, 1), "2 → 1")
			require.Equal(t, want, run(1, 2), "1 → 2")
			require.Equal(t, want, run(3, 2), "3 → 2")
		})
	}
}

func TestAggregateStateKeyGroupColumn(t *testing.T) {
	calls, out := aggStateCalls(false)
	op := NewGroupAggregate([]int{0}, calls, aggStateInWithFilter, mustArrow(t, out), GroupAggregateOptions{})
	r := newAggRun(t, op, aggStateInWithFilter, out)
	input := withFilter(aggStateInput(3, 100, 10, false))
	r.feed(input, 10, 0)
	cp := &aggCheckpoint{}
	r.snapshot(op, cp)
	r.changes(true)
	parts := cp.subtasks[0][StatePartGroups]
	require.NotEmpty(t, parts)
	rd := &aggStateReader{cp: cp, parallelism: 1}
	require.NoError(t, rd.Read(StatePartGroups, func(rec arrow.RecordBatch) error {
		require.Equal(t, "key_group", rec.Schema().Field(0).Name)
		require.Equal(t, arrow.PrimitiveTypes.Int32, rec.Schema().Field(0).Type)
		hashes := make([]uint64, rec.NumRows())
		vectorized.HashColumns(rec, []int{1}, hashes)
		kg := types.RecordRows(rec, types.Schema{{Name: "key_group", Type: types.IntT}})
		for i, h := range hashes {
			require.Equal(t, int32(vectorized.KeyGroup(h, vectorized.DefaultMaxParallelism)), kg[i][0])
		}
		return nil
	}))
}

// noExportAgg is a script aggregate whose accumulators cannot be exported.
type noExportAgg struct{ sumAgg }

func (noExportAgg) NewInstance(*function.EvalContext) (udf.AggInstance, error) {
	return &noExportInstance{}, nil
}

type noExportInstance struct{ sumInstance }

func (*noExportInstance) Export(udf.Acc) (any, error) {
	return nil, errors.New("the accumulator holds a file handle")
}

// scriptAggRegistry registers my_sum (exportable, retractable) and
// opaque_sum (not exportable).
func scriptAggRegistry(t *testing.T) *function.Registry {
	reg := function.NewRegistry()
	sum := &function.Definition{Name: "my_sum", Kind: function.Aggregate}
	opaque := &function.Definition{Name: "opaque_sum", Kind: function.Aggregate}
	reg.Register(sum)
	reg.Register(opaque)
	udf.Register(sum, retractSum{})
	udf.Register(opaque, noExportAgg{})
	t.Cleanup(func() { udf.Release(sum); udf.Release(opaque) })
	return reg
}

// userAggCall marks c a call of the user-defined aggregate of reg named
// c.Name, as the validator resolves it.
func userAggCall(t *testing.T, reg *function.Registry, c logical.AggCall) logical.AggCall {
	t.Helper()
	def, ok := reg.Lookup(c.Name)
	require.True(t, ok, c.Name)
	c.User, c.Def = true, def
	return c
}

func TestAggregateStateScriptAggregate(t *testing.T) {
	reg := scriptAggRegistry(t)
	in := types.Schema{{Name: "k", Type: types.StringT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.StringT}, {Name: "s", Type: types.BigIntT}}
	call := userAggCall(t, reg, logical.AggCall{Name: "my_sum", Args: []int{1}, Filter: -1, T: types.BigIntT})
	r := rand.New(rand.NewPCG(1, 2))
	var input []change
	var live [][]any
	for range 300 {
		if len(live) > 0 && r.IntN(3) == 0 {
			j := r.IntN(len(live))
			input = append(input, change{changelog.Delete, live[j]})
			live = append(live[:j], live[j+1:]...)
			continue
		}
		row := []any{fmt.Sprintf("k%d", r.IntN(9)), int64(r.IntN(100))}
		live = append(live, row)
		input = append(input, change{changelog.Insert, row})
	}
	for _, mini := range []bool{false, true} {
		mk := func() (vectorized.Operator, vectorized.Stateful) {
			opts := GroupAggregateOptions{Retract: true}
			if mini {
				op := NewMiniBatchGroupAggregate([]int{0}, []logical.AggCall{call}, in, mustArrow(t, out), opts, 0)
				op.SetFunctions(nil)
				return op, op
			}
			op := NewGroupAggregate([]int{0}, []logical.AggCall{call}, in, mustArrow(t, out), opts)
			op.SetFunctions(nil)
			return op, op
		}
		op, _ := mk()
		a := newAggRun(t, op, in, out)
		a.feed(input[:150], 4, 2)
		a.marker(vectorized.CheckpointBarrier)
		a.feed(input[150:], 4, 2)
		a.marker(vectorized.EndOfInput)
		want := changeStrings(a.changes(true))

		cp := &aggCheckpoint{}
		op1, st1 := mk()
		b1 := newAggRun(t, op1, in, out)
		b1.feed(input[:150], 4, 2)
		b1.snapshot(st1, cp)
		got := changeStrings(b1.changes(true))
		op2, st2 := mk()
		b2 := newAggRun(t, op2, in, out)
		require.NoError(t, st2.RestoreState(context.Background(), &aggStateReader{cp: cp, parallelism: 1}))
		b2.feed(input[150:], 4, 2)
		b2.marker(vectorized.EndOfInput)
		got = append(got, changeStrings(b2.changes(true))...)
		require.Equal(t, want, got, "mini-batch %v", mini)
	}
}

func TestAggregateStateScriptNotExportable(t *testing.T) {
	reg := scriptAggRegistry(t)
	in := types.Schema{{Name: "k", Type: types.StringT}, {Name: "v", Type: types.BigIntT}, {Name: "ts", Type: ts3}}
	out := types.Schema{{Name: "k", Type: types.StringT}, {Name: "s", Type: types.BigIntT}}
	call := userAggCall(t, reg, logical.AggCall{Name: "opaque_sum", Args: []int{1}, Filter: -1, T: types.BigIntT})
	ga := NewGroupAggregate([]int{0}, []logical.AggCall{call}, in, mustArrow(t, out), GroupAggregateOptions{})
	ga.SetFunctions(nil)
	wout := append(append(types.Schema{}, out...), winCols[0], winCols[1])
	wa, err := NewWindowAggregate([]int{0}, []logical.AggCall{call}, logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, Size: 10_000}, in, mustArrow(t, wout))
	require.NoError(t, err)
	wa.SetFunctions(nil)
	for _, tc := range []struct {
		op  vectorized.Operator
		st  vectorized.Stateful
		out types.Schema
	}{{ga, ga, out}, {wa, wa, wout}} {
		r := newAggRun(t, tc.op, in, tc.out)
		r.feed([]change{{changelog.Insert, []any{"a", int64(1), int64(1000)}}}, 1, 0)
		err := tc.st.SnapshotState(context.Background(), (&aggCheckpoint{}).writer())
		require.Error(t, err)
		require.True(t, strings.HasPrefix(err.Error(), "not supported yet: checkpointing script aggregate opaque_sum"), err.Error())
		r.changes(true)
	}
}

func TestScriptStateEncoding(t *testing.T) {
	for _, v := range []any{nil, true, false, int64(-5), 2.5, "x", []byte{1, 2},
		[]any{int64(1), "a", []any{nil}}, map[string]any{"b": int64(2), "a": []any{1.5, map[string]any{}}}} {
		b, err := appendScriptValue(nil, v)
		require.NoError(t, err)
		got, rest, err := readScriptValue(b)
		require.NoError(t, err)
		require.Empty(t, rest)
		require.Equal(t, v, got)
	}
	_, err := appendScriptValue(nil, struct{}{})
	require.Error(t, err)
	_, _, err = readScriptValue([]byte{svString, 10, 'a'})
	require.Error(t, err)
}

func TestGroupAggregateStateTTL(t *testing.T) {
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, {Name: "s", Type: types.BigIntT}}
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1}, {Name: "SUM", Args: []int{1}, Filter: -1}}
	ttl := 10 * time.Second
	type mk func(now func() time.Time) (vectorized.Operator, func() int)
	ops := []struct {
		name   string
		mk     mk
		bundle int
	}{
		{"GroupAggregate", func(now func() time.Time) (vectorized.Operator, func() int) {
			op := onTestDisk(t, NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{Retract: true, StateTTL: ttl}))
			op.SetClock(now)
			return op, op.LiveGroups
		}, 0},
		{"MiniBatchGroupAggregate", func(now func() time.Time) (vectorized.Operator, func() int) {
			op := NewMiniBatchGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{Retract: true, StateTTL: ttl}, 0)
			onTestDisk(t, op.GroupAggregate)
			op.SetClock(now)
			return op, op.LiveGroups
		}, 1},
		{"GlobalGroupAggregate", func(now func() time.Time) (vectorized.Operator, func() int) {
			local, cols := twoPhaseLocalSchema(t, []int{0}, calls, in)
			lo := NewLocalGroupAggregate([]int{0}, calls, in, local, 0)
			gl := onTestDisk(t, NewGlobalGroupAggregate([]int{0}, calls, cols, in, local, mustArrow(t, out), GroupAggregateOptions{StateTTL: ttl}, 0))
			gl.SetClock(now)
			return &testChain{lo, gl}, gl.LiveGroups
		}, 1},
	}
	for _, o := range ops {
		t.Run(o.name+"/bounded under endless new keys", func(t *testing.T) {
			now := time.Unix(1000, 0)
			op, live := o.mk(func() time.Time { return now })
			r := newAggRun(t, op, in, out)
			maxLive := 0
			for b := 0; b < 300; b++ {
				input := make([]change, 100)
				for i := range input {
					input[i] = change{changelog.Insert, []any{int64(b*100 + i), int64(1)}}
				}
				r.feed(input, 100, o.bundle)
				maxLive = max(maxLive, live())
				now = now.Add(time.Second) // 10 batches = 1000 keys per TTL
			}
			require.Less(t, maxLive, 4000, "30000 keys, about 1000 alive per TTL")
			require.Len(t, r.changes(true), 30000)
		})
		t.Run(o.name+"/expired key starts again with +I", func(t *testing.T) {
			now := time.Unix(1000, 0)
			op, _ := o.mk(func() time.Time { return now })
			r := newAggRun(t, op, in, out)
			r.feed([]change{{changelog.Insert, []any{int64(1), int64(5)}}}, 1, o.bundle)
			now = now.Add(5 * time.Second)
			r.feed([]change{{changelog.Insert, []any{int64(1), int64(1)}}, {changelog.Insert, []any{int64(2), int64(2)}}}, 2, o.bundle)
			now = now.Add(9 * time.Second) // key 1 was accessed 9 s ago: alive
			r.feed([]change{{changelog.Insert, []any{int64(1), int64(1)}}}, 1, o.bundle)
			now = now.Add(11 * time.Second) // both expired
			r.feed([]change{{changelog.Insert, []any{int64(1), int64(7)}}, {changelog.Insert, []any{int64(2), int64(3)}}}, 2, o.bundle)
			r.marker(vectorized.EndOfInput)
			require.Equal(t, []string{
				"+I[1 1 5]",
				"-U[1 1 5]", "+U[1 2 6]", "+I[2 1 2]",
				"-U[1 2 6]", "+U[1 3 7]",
				"+I[1 1 7]", "+I[2 1 3]",
			}, changeStrings(r.changes(true)))
		})
	}
}

func TestGroupAggregateStateTTLSnapshotDropsExpired(t *testing.T) {
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.BigIntT}}
	calls := []logical.AggCall{{Name: "SUM", Args: []int{1}, Filter: -1}}
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	op := NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{StateTTL: time.Minute})
	op.SetClock(clock)
	r := newAggRun(t, op, in, out)
	r.feed([]change{{changelog.Insert, []any{int64(1), int64(5)}}}, 1, 0)
	now = now.Add(50 * time.Second)
	r.feed([]change{{changelog.Insert, []any{int64(2), int64(6)}}}, 1, 0)
	now = now.Add(20 * time.Second) // key 1 expired, key 2 alive
	cp := &aggCheckpoint{}
	r.snapshot(op, cp)
	r.changes(true)

	op2 := NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{StateTTL: time.Minute})
	op2.SetClock(clock)
	r2 := newAggRun(t, op2, in, out)
	require.NoError(t, op2.RestoreState(context.Background(), &aggStateReader{cp: cp, parallelism: 1}))
	require.Equal(t, 1, op2.LiveGroups())
	r2.feed([]change{{changelog.Insert, []any{int64(1), int64(1)}}, {changelog.Insert, []any{int64(2), int64(1)}}}, 2, 0)
	require.Equal(t, []string{"+I[1 1]", "-U[2 6]", "+U[2 7]"}, changeStrings(r2.changes(true)))
}

// TestGroupAggregateStateTTLCompaction checks that rebuilding the group
// table (every kind of accumulator state, through export and import)
// changes nothing in the output: the same input with the same clock gives
// the same changelog with compaction at a tiny table size and without.
func TestGroupAggregateStateTTLCompaction(t *testing.T) {
	defer func(c int) { compactMinGroups = c }(compactMinGroups)
	for _, retract := range []bool{false, true} {
		calls, out := aggStateCalls(retract)
		in := aggStateInWithFilter
		input := withFilter(aggStateInput(5, 3000, 60, retract))
		run := func(minGroups int, mini bool) ([]string, int) {
			compactMinGroups = minGroups
			now := time.Unix(0, 0)
			opts := GroupAggregateOptions{Retract: retract, StateTTL: 30 * time.Second}
			var op vectorized.Operator
			var ga *GroupAggregate
			if mini {
				m := NewMiniBatchGroupAggregate([]int{0}, calls, in, mustArrow(t, out), opts, 0)
				op, ga = m, m.GroupAggregate
			} else {
				ga = NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), opts)
				op = ga
			}
			ga.SetClock(func() time.Time { return now })
			r := newAggRun(t, op, in, out)
			// the keys drift: k<i/50 .. i/50+10>, so old keys expire
			for lo := 0; lo < len(input); lo += 10 {
				batch := make([]change, 0, 10)
				for _, c := range input[lo:min(lo+10, len(input))] {
					row := append([]any{}, c.row...)
					if row[0] != nil {
						var k int
						_, err := fmt.Sscanf(row[0].(string), "k%d", &k)
						require.NoError(t, err)
						row[0] = fmt.Sprintf("k%d", lo/50+k%10)
					}
					batch = append(batch, change{c.kind, row})
				}
				r.feed(batch, 10, 1)
				now = now.Add(time.Second)
			}
			groups := ga.LiveGroups()
			r.marker(vectorized.EndOfInput)
			return changeStrings(r.changes(true)), groups
		}
		for _, mini := range []bool{false, true} {
			want, bigTable := run(1<<30, mini)
			got, smallTable := run(4, mini)
			require.Equal(t, want, got, "retract=%v mini-batch=%v", retract, mini)
			require.Less(t, smallTable, bigTable, "compaction dropped expired groups")
		}
	}
}

func TestAggregateStateSingleValue(t *testing.T) {
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.StringT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.StringT}}
	calls := []logical.AggCall{{Name: "SINGLE_VALUE", Args: []int{1}, Filter: -1}}
	I, D := changelog.Insert, changelog.Delete
	first := []change{{I, []any{int64(1), "a"}}, {I, []any{int64(2), nil}}, {I, []any{int64(3), "c"}}, {D, []any{int64(3), "c"}}}
	second := []change{{D, []any{int64(1), "a"}}, {I, []any{int64(1), "x"}}, {D, []any{int64(2), nil}}, {I, []any{int64(3), "y"}}}
	mk := func() *GroupAggregate {
		return NewGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{Retract: true})
	}
	a := newAggRun(t, mk(), in, out)
	a.feed(append(append([]change{}, first...), second...), 2, 0)
	want := changeStrings(a.changes(true))

	cp := &aggCheckpoint{}
	op1 := mk()
	b1 := newAggRun(t, op1, in, out)
	b1.feed(first, 2, 0)
	b1.snapshot(op1, cp)
	got := changeStrings(b1.changes(true))
	op2 := mk()
	b2 := newAggRun(t, op2, in, out)
	require.NoError(t, op2.RestoreState(context.Background(), &aggStateReader{cp: cp, parallelism: 1}))
	b2.feed(second, 2, 0)
	got = append(got, changeStrings(b2.changes(true))...)
	require.Equal(t, want, got)
	// a second row for a restored key is still an error
	op3 := mk()
	b3 := newAggRun(t, op3, in, out)
	require.NoError(t, op3.RestoreState(context.Background(), &aggStateReader{cp: cp, parallelism: 1}))
	rec, err := types.BuildRecord(vectorized.Mem, in, [][]any{{int64(1), "z"}})
	require.NoError(t, err)
	require.ErrorIs(t, op3.Process(context.Background(), vectorized.Batch{Rec: rec}, &b3.c), ErrSingleValue)
}

func TestWindowStateScriptAggregate(t *testing.T) {
	reg := scriptAggRegistry(t)
	in := types.Schema{{Name: "k", Type: types.StringT}, {Name: "v", Type: types.BigIntT}, {Name: "ts", Type: ts3}}
	out := types.Schema{{Name: "k", Type: types.StringT}, {Name: "s", Type: types.BigIntT}, winCols[0], winCols[1]}
	call := userAggCall(t, reg, logical.AggCall{Name: "my_sum", Args: []int{1}, Filter: -1, T: types.BigIntT})
	mk := func() *WindowAggregate {
		op, err := NewWindowAggregate([]int{0}, []logical.AggCall{call}, logical.WindowSpec{Kind: logical.Hop, TimeCol: 2, Size: 10_000, Slide: 5_000}, in, mustArrow(t, out))
		require.NoError(t, err)
		op.SetFunctions(nil)
		return op
	}
	var steps []windowStep
	for b := range 30 {
		rows := make([][]any, 3)
		for i := range rows {
			rows[i] = []any{fmt.Sprintf("k%d", (b+i)%4), int64(b*3 + i), int64(b*1500+i*100) * secMicro / 1000}
		}
		steps = append(steps, windowStep{rows: rows})
		if b%4 == 3 {
			steps = append(steps, windowStep{wm: float64(b*1500)/1000 - 2})
		}
	}
	a := newAggRun(t, mk(), in, out)
	a.feedWindow(steps)
	a.marker(vectorized.EndOfInput)
	want := changeStrings(a.changes(true))
	require.NotEmpty(t, want)

	cp := &aggCheckpoint{}
	op1 := mk()
	b1 := newAggRun(t, op1, in, out)
	b1.feedWindow(steps[:20])
	b1.snapshot(op1, cp)
	got := changeStrings(b1.changes(true))
	op2 := mk()
	b2 := newAggRun(t, op2, in, out)
	require.NoError(t, op2.RestoreState(context.Background(), &aggStateReader{cp: cp, parallelism: 1}))
	b2.feedWindow(steps[20:])
	b2.marker(vectorized.EndOfInput)
	got = append(got, changeStrings(b2.changes(true))...)
	require.Equal(t, want, got)
}

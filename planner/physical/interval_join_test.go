package physical

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

var tsT = types.TimestampOf(3)

// timedInput is a scan of (id, ts) with a watermark on ts (rowtime) or a
// Calc appending PROCTIME() as ts (proctime).
func timedInput(name string, rowtime bool) Node {
	if !rowtime {
		t := table(name, field("id", intT))
		scan := &TableSourceScan{Table: t, Out: t.PhysicalSchema()}
		pt := types.TimestampLTZOf(3)
		return &Calc{Input: scan, Projection: []logical.Expr{ref(0, "id", intT), call("PROCTIME", pt)},
			Out: types.Schema{field("id", intT), field("ts", pt)}}
	}
	t := table(name, field("id", intT), field("ts", tsT))
	scan := &TableSourceScan{Table: t, Out: t.PhysicalSchema()}
	return &WatermarkAssigner{Input: scan, Rowtime: 1, Expr: ref(1, "ts", tsT)}
}

func ival(ms int64) *logical.Literal {
	return lit(ms, types.Type{Kind: types.IntervalDayTime, Precision: 2, Scale: 3, Unit: "SECOND"})
}

func TestIntervalJoinPlan(t *testing.T) {
	b := types.BooleanT
	lts, rts := ref(1, "ts", tsT), ref(3, "ts0", tsT)
	plus := func(x logical.Expr, ms int64) logical.Expr { return call("+", tsT, x, ival(ms)) }
	minus := func(x logical.Expr, ms int64) logical.Expr { return call("-", tsT, x, ival(ms)) }
	and := func(xs ...logical.Expr) logical.Expr { return logical.And(xs...) }
	cases := []struct {
		name    string
		kind    logical.JoinKind
		cond    logical.Expr
		proc    bool
		noKeys  bool
		want    string // windowBounds, or "" for a regular Join
		wantDes string
	}{
		{name: "between", cond: and(call(">=", b, lts, minus(rts, 5000)), call("<=", b, lts, plus(rts, 5000))),
			want: "isRowTime=true, leftLowerBound=-5000, leftUpperBound=5000, leftTimeIndex=1, rightTimeIndex=1",
			wantDes: "IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, leftLowerBound=-5000, leftUpperBound=5000, leftTimeIndex=1, rightTimeIndex=1], " +
				"where=[AND(=(id, id0), >=(ts, -(ts0, 5000:INTERVAL SECOND)), <=(ts, +(ts0, 5000:INTERVAL SECOND)))], select=[id, ts, id0, ts0])"},
		{name: "strict bounds and the right time first", kind: logical.LeftJoin,
			cond: and(call(">", b, rts, lts), call("<", b, minus(rts, 600000), lts)),
			want: "isRowTime=true, leftLowerBound=-599999, leftUpperBound=-1, leftTimeIndex=1, rightTimeIndex=1"},
		{name: "plain column bound", kind: logical.FullJoin, cond: and(call(">=", b, lts, rts), call("<=", b, lts, plus(rts, 1000))),
			want: "isRowTime=true, leftLowerBound=0, leftUpperBound=1000, leftTimeIndex=1, rightTimeIndex=1"},
		{name: "without keys", noKeys: true, cond: and(call(">=", b, lts, rts), call("<=", b, lts, plus(rts, 1000))),
			want: "isRowTime=true, leftLowerBound=0, leftUpperBound=1000, leftTimeIndex=1, rightTimeIndex=1"},
		{name: "processing time", proc: true,
			cond: and(call(">=", b, ref(1, "ts", types.TimestampLTZOf(3)), ref(3, "ts0", types.TimestampLTZOf(3))),
				call("<=", b, ref(1, "ts", types.TimestampLTZOf(3)), call("+", types.TimestampLTZOf(3), ref(3, "ts0", types.TimestampLTZOf(3)), ival(2000)))),
			want: "isRowTime=false, leftLowerBound=0, leftUpperBound=2000, leftTimeIndex=1, rightTimeIndex=1"},
		{name: "one bound only is a regular join", cond: call(">=", b, lts, minus(rts, 5000))},
		{name: "semi joins stay regular", kind: logical.SemiJoin, cond: and(call(">=", b, lts, rts), call("<=", b, lts, plus(rts, 1000)))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, r := timedInput("l", !tc.proc), timedInput("r", !tc.proc)
			out := append(append(types.Schema{}, l.Schema()...), r.Schema()...)
			for i := range out[2:] {
				out[2+i].Name += "0"
			}
			var in Node
			if tc.noKeys {
				in = &NestedLoopJoin{Left: l, Right: r, Kind: tc.kind, Cond: tc.cond, Out: out}
			} else {
				if tc.kind == logical.SemiJoin {
					out = out[:2]
				}
				in = &HashJoin{Left: l, Right: r, Kind: tc.kind, LeftKeys: []int{0}, RightKeys: []int{0}, Extra: tc.cond, Out: out}
			}
			p, err := toStream(in, StreamOptions{})
			require.NoError(t, err)
			if tc.want == "" {
				require.IsType(t, &StreamJoin{}, p)
				return
			}
			require.IsType(t, &IntervalJoin{}, p)
			first := strings.SplitN(ExplainStream(p, ExplainOptions{}), "\n", 2)[0]
			require.Contains(t, first, "windowBounds=["+tc.want+"]")
			require.Contains(t, first, "joinType=["+tc.kind.String()+"]")
			require.True(t, p.Mode().IsInsertOnly())
			want := RowtimeAttr
			if tc.proc {
				want = ProctimeAttr
			}
			require.Equal(t, want, timeAttrOf(p, 1), "the output keeps the left time attribute")
			require.Equal(t, want, timeAttrOf(p, 3), "the output keeps the right time attribute")
			require.Equal(t, NoTime, timeAttrOf(p, 0))
			if tc.wantDes != "" {
				require.Equal(t, tc.wantDes, first)
			}
		})
	}
}

func TestLookupJoinPlan(t *testing.T) {
	orders := timedInput("orders", false)
	dim := table("dim", field("id", intT), field("v", strT))
	cases := []struct {
		name      string
		options   map[string]string
		abilities catalog.Abilities // what the connector declares for the options
		keys      bool
		want      string
		err       string
	}{
		{name: "bounded filesystem table", options: map[string]string{"connector": "filesystem", "path": "/x", "format": "csv"},
			abilities: catalog.Abilities{Bounded: true, Lookup: true, ProjectionPushDown: true}, keys: true,
			want: "LookupJoin(table=[default_catalog.default_database.dim], joinType=[InnerJoin], lookup=[id=id], select=[id, ts, id0, v])"},
		{name: "bounded datagen", options: map[string]string{"connector": "datagen", "number-of-rows": "10"},
			abilities: catalog.Abilities{Bounded: true, Lookup: true}, keys: true,
			want: "LookupJoin(table=[default_catalog.default_database.dim], joinType=[InnerJoin], lookup=[id=id], select=[id, ts, id0, v])"},
		{name: "unbounded datagen", options: map[string]string{"connector": "datagen"}, keys: true,
			err: "Processing-time temporal join is not supported yet."},
		{name: "no equality", options: map[string]string{"connector": "filesystem"},
			err: "Temporal table join requires an equality condition on fields of table [default_catalog.default_database.dim]."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := *dim
			tab := *dim.Table
			tab.Options = tc.options
			d.Table = &tab
			d.Abilities = &tc.abilities
			right := &TableSourceScan{Table: &d, Out: d.PhysicalSchema()}
			out := append(append(types.Schema{}, orders.Schema()...), field("id0", intT), field("v", strT))
			var in Node
			if tc.keys {
				in = &HashJoin{Left: orders, Right: right, Kind: logical.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Temporal: true, Out: out}
			} else {
				in = &NestedLoopJoin{Left: orders, Right: right, Kind: logical.InnerJoin, Temporal: true, Out: out,
					Cond: call(">", types.BooleanT, ref(0, "id", intT), ref(2, "id0", intT))}
			}
			p, err := toStream(in, StreamOptions{})
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			plan := ExplainStream(p, ExplainOptions{})
			require.Equal(t, tc.want, strings.SplitN(plan, "\n", 2)[0])
			require.Len(t, p.Children(), 1, "the temporal table is no child")
			require.True(t, p.Mode().IsInsertOnly())
		})
	}
}

func TestWindowJoinPlan(t *testing.T) {
	windowed := func(name string, w logical.WindowSpec) Node {
		in := timedInput(name, true)
		out := append(append(types.Schema{}, in.Schema()...), field("window_start", tsT), field("window_end", tsT), field("window_time", tsT))
		return &WindowTableFunction{Input: in, Window: w, Out: out}
	}
	tumble := logical.WindowSpec{Kind: logical.Tumble, TimeCol: 1, TimeName: "ts", Size: 5000}
	hop := logical.WindowSpec{Kind: logical.Hop, TimeCol: 1, TimeName: "ts", Size: 6000, Slide: 2000}
	proc := tumble
	proc.Proctime = true
	cases := []struct {
		name        string
		left, right logical.WindowSpec
		keys        []int
		want, err   string
	}{
		{name: "tumbling windows", left: tumble, right: tumble, keys: []int{0, 2, 3},
			want: "WindowJoin(leftWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 s])], " +
				"rightWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 s])], joinType=[InnerJoin], where=[=(id, id0)], " +
				"select=[id, ts, window_start, window_end, window_time, id0, ts0, window_start0, window_end0, window_time0])"},
		{name: "hopping windows without other keys", left: hop, right: hop, keys: []int{3, 2},
			want: "WindowJoin(leftWindow=[HOP(win_start=[window_start], win_end=[window_end], size=[6 s], slide=[2 s])], " +
				"rightWindow=[HOP(win_start=[window_start], win_end=[window_end], size=[6 s], slide=[2 s])], joinType=[InnerJoin], where=[true], " +
				"select=[id, ts, window_start, window_end, window_time, id0, ts0, window_start0, window_end0, window_time0])"},
		{name: "different windows make a regular join", left: tumble, right: hop, keys: []int{0, 2, 3}, want: "Join("},
		{name: "the window start alone is no window join", left: tumble, right: tumble, keys: []int{0, 2}, want: "Join("},
		{name: "processing-time windows", left: proc, right: proc, keys: []int{2, 3}, err: "Processing time Window Join is not supported yet."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, r := windowed("l", tc.left), windowed("r", tc.right)
			out := append(append(types.Schema{}, l.Schema()...), r.Schema()...)
			for i := 5; i < len(out); i++ {
				out[i].Name += "0"
			}
			p, err := toStream(&HashJoin{Left: l, Right: r, Kind: logical.InnerJoin, LeftKeys: tc.keys, RightKeys: tc.keys, Out: out}, StreamOptions{})
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			first := strings.SplitN(ExplainStream(p, ExplainOptions{}), "\n", 2)[0]
			if tc.want == "Join(" {
				require.IsType(t, &StreamJoin{}, p)
				return
			}
			require.Equal(t, tc.want, first)
			require.True(t, p.Mode().IsInsertOnly())
		})
	}
}

func TestTemporalJoinPlan(t *testing.T) {
	orders := timedInput("orders", true)
	rt := table("rates", field("id", intT), field("ts", tsT), field("v", strT))
	rt.Table.PrimaryKey = &catalog.PrimaryKey{Columns: []string{"id"}}
	rates := &WatermarkAssigner{Input: &TableSourceScan{Table: rt, Out: rt.PhysicalSchema()}, Rowtime: 1, Expr: ref(1, "ts", tsT)}
	out := append(append(types.Schema{}, orders.Schema()...), field("id0", intT), field("ts0", tsT), field("v", strT))
	marker := call(logical.TemporalJoinCondition, types.BooleanT, ref(1, "ts", tsT), ref(3, "ts0", tsT))
	cases := []struct {
		name      string
		keys      []int
		rightKeys []int
		extra     logical.Expr
		want, err string
	}{
		{name: "keyed by the primary key", keys: []int{0}, rightKeys: []int{0}, extra: marker,
			want: "TemporalJoin(joinType=[InnerJoin], where=[AND(=(id, id0), __TEMPORAL_JOIN_CONDITION(ts, ts0, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(id0), " +
				"__TEMPORAL_JOIN_LEFT_KEY(id), __TEMPORAL_JOIN_RIGHT_KEY(id0)))], select=[id, ts, id0, ts0, v])"},
		{name: "with an extra condition", keys: []int{0}, rightKeys: []int{0},
			extra: logical.And(call("<>", types.BooleanT, ref(4, "v", strT), lit("x", strT)), marker),
			want: "TemporalJoin(joinType=[InnerJoin], where=[AND(=(id, id0), <>(v, _UTF-16LE'x':VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\"), __TEMPORAL_JOIN_CONDITION(ts, ts0, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(id0), " +
				"__TEMPORAL_JOIN_LEFT_KEY(id), __TEMPORAL_JOIN_RIGHT_KEY(id0)))], select=[id, ts, id0, ts0, v])"},
		{name: "keys without the primary key", keys: []int{0}, rightKeys: []int{2}, extra: marker,
			err: "Temporal table's primary key [id] must be included in the equivalence condition of temporal join, but current temporal join condition is [AND(=(id, v), __TEMPORAL_JOIN_CONDITION(ts, ts0))]."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := toStream(&HashJoin{Left: orders, Right: rates, Kind: logical.InnerJoin, LeftKeys: tc.keys, RightKeys: tc.rightKeys,
				Extra: tc.extra, Temporal: true, Out: out}, StreamOptions{})
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, strings.SplitN(ExplainStream(p, ExplainOptions{}), "\n", 2)[0])
			require.True(t, p.Mode().IsInsertOnly())
			if extra := p.(*TemporalJoin).Extra; extra != nil {
				require.NotContains(t, extra.String(), logical.TemporalJoinCondition, "the marker is removed")
			}
		})
	}
}

package physical

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func sinkTable(name, connector string, fields ...types.Field) *catalog.ResolvedTable {
	t := table(name, fields...)
	t.Table.Options = map[string]string{"connector": connector}
	// what the connector's factory declares: print takes any changelog,
	// the others insert only
	t.Abilities = &catalog.Abilities{}
	if connector == "print" {
		t.Abilities.SinkMode = changelog.All
	}
	return t
}

func TestTranslateStream(t *testing.T) {
	a, b := ref(0, "a", intT), ref(1, "b", intT)
	eq := func(x, y logical.Expr) logical.Expr { return call("=", types.BooleanT, x, y) }
	sum := logical.AggCall{Name: "SUM", Args: []int{1}, Filter: -1, T: intT, Alias: "s"}
	cnt := logical.AggCall{Name: "COUNT", Filter: -1, T: types.BigIntT.WithNullable(false), Alias: "n"}
	byA := &logical.Aggregate{Input: orders, GroupKeys: []int{0}, Aggs: []logical.AggCall{sum},
		Out: types.Schema{field("a", intT), field("s", intT)}}
	global := &logical.Aggregate{Input: byA, Aggs: []logical.AggCall{cnt}, Out: types.Schema{field("n", cnt.T)}}
	cases := []struct {
		name string
		in   logical.Node
		want string
		mode changelog.Mode
	}{
		{
			name: "group aggregate over a scan",
			in:   byA,
			want: "GroupAggregate(groupBy=[a], select=[a, SUM(b) AS s], changelogMode=[I,UB,UA])\n" +
				"+- Exchange(distribution=[hash[a]], changelogMode=[I])\n" +
				"   +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c], changelogMode=[I])\n",
			mode: changelog.ModeInsert | changelog.ModeUpdateBefore | changelog.ModeUpdateAfter,
		},
		{
			name: "global aggregate over updates retracts",
			in:   global,
			want: "GroupAggregate(select=[COUNT_RETRACT(*) AS n], changelogMode=[I,UB,UA,D])\n" +
				"+- Exchange(distribution=[single], changelogMode=[I,UB,UA])\n" +
				"   +- GroupAggregate(groupBy=[a], select=[a, SUM(b) AS s], changelogMode=[I,UB,UA])\n" +
				"      +- Exchange(distribution=[hash[a]], changelogMode=[I])\n" +
				"         +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c], changelogMode=[I])\n",
			mode: changelog.All,
		},
		{
			name: "inner join of insert-only inputs",
			in:   join(orders, items, logical.InnerJoin, eq(a, ref(4, "a", intT))),
			want: "Join(joinType=[InnerJoin], where=[=(a, a0)], select=[a, b, c, d, a0], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey], changelogMode=[I])\n" +
				":- Exchange(distribution=[hash[a]], changelogMode=[I])\n" +
				":  +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c], changelogMode=[I])\n" +
				"+- Exchange(distribution=[hash[a]], changelogMode=[I])\n" +
				"   +- TableSourceScan(table=[[default_catalog, default_database, items]], fields=[d, a], changelogMode=[I])\n",
			mode: changelog.InsertOnly,
		},
		{
			name: "outer join without keys",
			in:   join(orders, items, logical.LeftJoin, call(">", types.BooleanT, b, ref(3, "d", intT))),
			want: "Join(joinType=[LeftOuterJoin], where=[>(b, d)], select=[a, b, c, d, a0], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey], changelogMode=[I,UB,UA,D])\n" +
				":- Exchange(distribution=[single], changelogMode=[I])\n" +
				":  +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c], changelogMode=[I])\n" +
				"+- Exchange(distribution=[single], changelogMode=[I])\n" +
				"   +- TableSourceScan(table=[[default_catalog, default_database, items]], fields=[d, a], changelogMode=[I])\n",
			mode: changelog.All,
		},
		{
			name: "union of a changelog and inserts",
			in:   &logical.Union{Inputs: []logical.Node{project(byA, []string{"a"}, a), project(orders, []string{"a"}, a)}, Out: types.Schema{field("a", intT)}},
			want: "Union(all=[true], union=[a], changelogMode=[I,UB,UA])\n" +
				":- Calc(select=[a], changelogMode=[I,UB,UA])\n" +
				":  +- GroupAggregate(groupBy=[a], select=[a, SUM(b) AS s], changelogMode=[I,UB,UA])\n" +
				":     +- Exchange(distribution=[hash[a]], changelogMode=[I])\n" +
				":        +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c], changelogMode=[I])\n" +
				"+- Calc(select=[a], changelogMode=[I])\n" +
				"   +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c], changelogMode=[I])\n",
			mode: changelog.ModeInsert | changelog.ModeUpdateBefore | changelog.ModeUpdateAfter,
		},
		{
			name: "print sink takes updates",
			in:   &logical.Sink{Input: byA, Table: sinkTable("p", "print", field("a", intT), field("s", intT))},
			want: "Sink(table=[default_catalog.default_database.p], fields=[a, s], changelogMode=[NONE])\n" +
				"+- GroupAggregate(groupBy=[a], select=[a, SUM(b) AS s], changelogMode=[I,UB,UA])\n" +
				"   +- Exchange(distribution=[hash[a]], changelogMode=[I])\n" +
				"      +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c], changelogMode=[I])\n",
			mode: 0,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := TranslateStream(tc.in, testEnv(), StreamOptions{})
			require.NoError(t, err)
			require.Equal(t, tc.want, ExplainStream(p, ExplainOptions{ChangelogMode: true}))
			require.Equal(t, tc.mode, p.Mode())
			require.True(t, IsStream(p) || tc.mode == changelog.InsertOnly)
			if _, ok := tc.in.(*logical.Sink); !ok {
				require.Equal(t, tc.in.Schema(), p.Schema())
			}
		})
	}
}

func TestTranslateStreamErrors(t *testing.T) {
	sum := logical.AggCall{Name: "SUM", Args: []int{1}, Filter: -1, T: intT, Alias: "s"}
	byA := &logical.Aggregate{Input: orders, GroupKeys: []int{0}, Aggs: []logical.AggCall{sum},
		Out: types.Schema{field("a", intT), field("s", intT)}}
	retracting := &logical.Aggregate{Input: byA, GroupKeys: []int{1}, Aggs: []logical.AggCall{sum},
		Out: types.Schema{field("s", intT), field("s2", intT)}}
	fsSink := func(in logical.Node) logical.Node {
		return &logical.Sink{Input: in, Table: sinkTable("t", "filesystem", field("a", intT), field("s", intT))}
	}
	cases := []struct {
		name string
		in   logical.Node
		want string
	}{
		{"insert-only sink", fsSink(byA), "Table sink 'default_catalog.default_database.t' doesn't support consuming update changes which is produced by node GroupAggregate(groupBy=[a], select=[a, SUM(b) AS s])"},
		{"deletes too", fsSink(project(retracting, []string{"a", "s"}, ref(0, "s", intT), ref(1, "s2", intT))),
			"Table sink 'default_catalog.default_database.t' doesn't support consuming update and delete changes which is produced by node GroupAggregate(groupBy=[s], select=[s, SUM_RETRACT(s) AS s])"},
		{"sort", &logical.Sort{Input: orders, Keys: []logical.SortKey{{Index: 0}}}, "Sort on a non-time-attribute field is not supported."},
		{"top-n", &logical.Limit{Input: &logical.Sort{Input: orders, Keys: []logical.SortKey{{Index: 0}}}, Fetch: 3}, "not supported yet: ORDER BY with LIMIT"},
		{"limit over updates", &logical.Limit{Input: byA, Fetch: 3}, "not supported yet: LIMIT over an updating input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TranslateStream(tc.in, testEnv(), StreamOptions{})
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	// NOT IN: an anti join on the null-aware condition (stream_not_in.go)
	notIn := &logical.Join{Left: orders, Right: items, Kind: logical.AntiJoin, NullAwareAnti: true,
		Cond: call("=", types.BooleanT, ref(0, "a", intT), ref(4, "a", intT)), Out: orders.Out}
	p, err := TranslateStream(notIn, testEnv(), StreamOptions{})
	require.NoError(t, err)
	require.Contains(t, ExplainStream(p, ExplainOptions{}), "Join(joinType=[LeftAntiJoin], where=[OR(=(a, a0), IS NULL(=(a, a0)))]")
	// A sink that takes upserts: updates are fine, the mode decides.
	_, err = TranslateStream(fsSink(byA), testEnv(), StreamOptions{SinkMode: func(*catalog.ResolvedTable) changelog.Mode { return changelog.Upsert }})
	require.NoError(t, err)
	var te *TableError
	_, err = TranslateStream(fsSink(byA), testEnv(), StreamOptions{})
	require.ErrorAs(t, err, &te)
	require.Equal(t, "org.apache.flink.table.api.TableException", te.JavaClass())
}

package validate

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/parser"
)

// newWindowValidator returns a validator in the given mode with the table
// ev (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - 5 s).
func newWindowValidator(t *testing.T, streaming bool) *Validator {
	t.Helper()
	v := newTestValidator(t)
	v.opts.Streaming = streaming
	st, err := parser.ParseStatement("CREATE TABLE ev (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'values')")
	require.NoError(t, err)
	id, tbl, err := v.CreateTable(st.(*ast.CreateTable))
	require.NoError(t, err)
	require.NoError(t, v.cat.CreateObject(id, tbl, false, false))
	return v
}

func TestWindowTVFPlans(t *testing.T) {
	tests := []struct {
		sql    string
		window logical.WindowSpec
		schema string
	}{
		{"SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))",
			logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, TimeName: "ts", Size: 10_000},
			"k STRING, v INT, ts TIMESTAMP(3), window_start TIMESTAMP(3) NOT NULL, window_end TIMESTAMP(3) NOT NULL, window_time TIMESTAMP(3) NOT NULL"},
		{"SELECT * FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '1' MINUTE))",
			logical.WindowSpec{Kind: logical.Hop, TimeCol: 2, TimeName: "ts", Size: 60_000, Slide: 1000}, ""},
		{"SELECT * FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR, INTERVAL '5' SECOND))",
			logical.WindowSpec{Kind: logical.Cumulate, TimeCol: 2, TimeName: "ts", Size: 3_600_000, Step: 60_000, Offset: 5000}, ""},
		{"SELECT * FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' SECOND))",
			logical.WindowSpec{Kind: logical.Session, TimeCol: 2, TimeName: "ts", Size: 10_000, PartitionKeys: []int{0}, PartitionNames: []string{"k"}}, ""},
		{"SELECT * FROM TABLE(TUMBLE(TIMECOL => DESCRIPTOR(ts), DATA => TABLE ev, SIZE => INTERVAL '10' SECOND))",
			logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, TimeName: "ts", Size: 10_000}, ""},
	}
	for _, streaming := range []bool{true, false} {
		v := newWindowValidator(t, streaming)
		for _, tc := range tests {
			n, err := plan(t, v, tc.sql)
			require.NoError(t, err, tc.sql)
			var wtf *logical.WindowTableFunction
			var wa *logical.WatermarkAssigner
			var walk func(logical.Node)
			walk = func(n logical.Node) {
				switch x := n.(type) {
				case *logical.WindowTableFunction:
					wtf = x
				case *logical.WatermarkAssigner:
					wa = x
				}
				for _, c := range n.Children() {
					walk(c)
				}
			}
			walk(n)
			require.NotNil(t, wtf, tc.sql)
			require.Equal(t, tc.window, wtf.Window, tc.sql)
			if tc.schema != "" {
				require.Equal(t, tc.schema, schemaString(n.Schema()))
			}
			// the watermark is declared in streaming mode only
			require.Equal(t, streaming, wa != nil, tc.sql)
			if wa != nil {
				name, attrs := wa.Describe()
				require.Equal(t, "LogicalWatermarkAssigner", name)
				require.Contains(t, attrs, "rowtime=[ts]")
			}
		}
	}
}

func TestWindowErrors(t *testing.T) {
	v := newWindowValidator(t, true)
	tests := []struct{ sql, err string }{
		{"SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(k), INTERVAL '10' SECOND))", "requires the timecol to be TIMESTAMP or TIMESTAMP_LTZ"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts)))", "Invalid number of arguments to function 'TUMBLE'"},
		{"SELECT * FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))", "Invalid number of arguments to function 'HOP'"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), 10))", "INTERVAL DAY TO SECOND"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE nope, DESCRIPTOR(ts), INTERVAL '10' SECOND))", "Object 'nope' not found"},
		{"SELECT * FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '7' SECOND, INTERVAL '10' SECOND))", "integral multiple of step"},
		{"SELECT * FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(ts), INTERVAL '7' SECOND, INTERVAL '1' SECOND))", "Was expecting 3 arguments"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' SECOND))", "not supported yet: PARTITION BY"},
		{"SELECT * FROM TABLE(TUMBLE(DATA => TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))", "must be named"},
		{"SELECT * FROM TABLE(TUMBLE(DATA => TABLE ev, TIMECOL => DESCRIPTOR(ts), WIDTH => INTERVAL '10' SECOND))", "No parameter named 'WIDTH'"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '-10' SECOND))", "must be positive"},
		{"SELECT k, HOP_START(ts, INTERVAL '10' SECOND) FROM ev GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND)", "must have matching call to group function 'HOP' in GROUP BY clause"},
		{"SELECT COUNT(*) FROM ev GROUP BY TUMBLE(ts, INTERVAL '10' SECOND), HOP(ts, INTERVAL '1' SECOND, INTERVAL '10' SECOND)", "Only a single window group function"},
		{"SELECT COUNT(*) FROM ev JOIN s ON TRUE GROUP BY TUMBLE(ts, INTERVAL '10' SECOND)", "not supported yet: legacy group windows over a join"},
		{"SELECT * FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '3' SECOND, INTERVAL '10' SECOND))", "integral multiple of slide, but got size 10000 ms and slide 3000 ms"},
		{"SELECT CURRENT_WATERMARK(k) FROM ev", "must be a rowtime attribute"},
		{"SELECT CURRENT_WATERMARK(ts, ts) FROM ev", "Invalid number of arguments to function 'CURRENT_WATERMARK'"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := plan(t, v, tc.sql)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestLegacyGroupWindowRewrite(t *testing.T) {
	v := newWindowValidator(t, true)
	n, err := plan(t, v, "SELECT k, TUMBLE_START(ts, INTERVAL '10' SECOND), TUMBLE_END(ts, INTERVAL '10' SECOND) AS we, COUNT(*) FROM ev WHERE v > 0 GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND)")
	require.NoError(t, err)
	require.Equal(t, "k STRING, EXPR$1 TIMESTAMP(3) NOT NULL, we TIMESTAMP(3) NOT NULL, EXPR$3 BIGINT NOT NULL", schemaString(n.Schema()))
	// HOP_ROWTIME reads window_time, which is grouped too
	n, err = plan(t, v, "SELECT HOP_ROWTIME(x.ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS rt, COUNT(*) FROM (SELECT * FROM ev) x GROUP BY HOP(x.ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) HAVING COUNT(*) > 2")
	require.NoError(t, err)
	require.Equal(t, "rt TIMESTAMP(3) NOT NULL, EXPR$1 BIGINT NOT NULL", schemaString(n.Schema()))
}

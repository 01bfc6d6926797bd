package kernel

import (
	"context"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

func TestParseChartLine(t *testing.T) {
	cases := []struct {
		name string
		code string
		want *ChartSpec
		rest string
		err  string
	}{
		{name: "no option", code: "SELECT 1", rest: "SELECT 1"},
		{name: "bar", code: "%chart bar x=k y=v\nSELECT 1", want: &ChartSpec{Kind: "bar", X: "k", Y: []string{"v"}}, rest: "\nSELECT 1"},
		{name: "series and title", code: "%chart LINE x=day y=a,b title=\"Daily totals\"\nSELECT 1",
			want: &ChartSpec{Kind: "line", X: "day", Y: []string{"a", "b"}, Title: "Daily totals"}, rest: "\nSELECT 1"},
		{name: "unknown kind", code: "%chart pie x=a y=b\nSELECT 1", err: `not supported yet: chart kind "pie"`},
		{name: "missing y", code: "%chart bar x=a\nSELECT 1", err: "needs x=<column> and y="},
		{name: "bad option", code: "%chart bar x=a y=b color=red\nSELECT 1", err: `unknown %chart option "color"`},
		{name: "unterminated quote", code: "%chart bar x=a y=b title=\"oops\nSELECT 1", err: "unterminated quote"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec, rest, err := parseChartLine(c.code)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, spec)
			require.Equal(t, c.rest, rest)
		})
	}
}

func TestRenderChart(t *testing.T) {
	env := core.NewTableEnvironment(core.InBatchMode())
	res, err := env.ExecuteSQL(context.Background(),
		"SELECT * FROM (VALUES ('a<b', 1.5, 3), ('b', -2.0, 4), ('c', CAST(NULL AS DECIMAL(2, 1)), 5)) AS t(k, v, w)")
	require.NoError(t, err)
	cases := []struct {
		spec *ChartSpec
		want []string
		err  string
	}{
		{spec: &ChartSpec{Kind: "bar", X: "k", Y: []string{"v", "w"}, Title: "T&T"}, want: []string{"<rect x=", "a&lt;b", "T&amp;T", ">w</text>"}},
		{spec: &ChartSpec{Kind: "line", X: "k", Y: []string{"w"}}, want: []string{"<polyline"}},
		{spec: &ChartSpec{Kind: "scatter", X: "w", Y: []string{"v"}}, want: []string{"<circle"}},
		{spec: &ChartSpec{Kind: "bar", X: "k", Y: []string{"nope"}}, err: "column 'nope' is not in the result (columns: k, v, w)"},
		{spec: &ChartSpec{Kind: "bar", X: "v", Y: []string{"k"}}, err: "cannot be charted on a numeric axis"},
	}
	for _, c := range cases {
		t.Run(c.spec.Kind+" "+strings.Join(c.spec.Y, ","), func(t *testing.T) {
			svg, err := RenderChart(c.spec, res, res.Rows())
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			for _, w := range c.want {
				require.Contains(t, svg, w)
			}
			// The SVG is well-formed XML.
			d := xml.NewDecoder(strings.NewReader(svg))
			for {
				_, err := d.Token()
				if err != nil {
					require.ErrorContains(t, err, "EOF")
					break
				}
			}
		})
	}
}

// Long x labels are shortened only where they stay distinct: a common
// prefix keeps both ends, and labels that cannot be told apart shortened
// stay whole (the chart grows taller for them).
func TestShortLabels(t *testing.T) {
	require.Equal(t, []string{"a", "b"}, shortLabels([]string{"a", "b"}, 14))
	require.Equal(t, []string{"Mechanical Ke…", "USB-C Cable"},
		shortLabels([]string{"Mechanical Keyboard", "USB-C Cable"}, 14))
	require.Equal(t, []string{"mini-b…ze=1000", "mini-b…ze=5000"},
		shortLabels([]string{"mini-batch=true, size=1000", "mini-batch=true, size=5000"}, 14))
	same := []string{"table.exec.a=1 table.exec.b=1", "table.exec.a=1 and table.exec.b=1"}
	require.Equal(t, same, shortLabels(same, 14))

	env := core.NewTableEnvironment(core.InBatchMode())
	res, err := env.ExecuteSQL(context.Background(),
		"SELECT * FROM (VALUES ('mini-batch=true, size=1000', 3), ('mini-batch=true, size=5000', 4)) AS t(k, v)")
	require.NoError(t, err)
	svg, err := RenderChart(&ChartSpec{Kind: "bar", X: "k", Y: []string{"v"}}, res, res.Rows())
	require.NoError(t, err)
	require.Contains(t, svg, ">mini-b…ze=1000</text>")
	require.Contains(t, svg, ">mini-b…ze=5000</text>")
	require.NotContains(t, svg, ">mini-batch=tr…</text>")

	res, err = env.ExecuteSQL(context.Background(),
		"SELECT * FROM (VALUES ('table.exec.a=1 table.exec.b=1', 3), ('table.exec.a=1 and table.exec.b=1', 4)) AS t(k, v)")
	require.NoError(t, err)
	svg, err = RenderChart(&ChartSpec{Kind: "bar", X: "k", Y: []string{"v"}}, res, res.Rows())
	require.NoError(t, err)
	require.Contains(t, svg, ">table.exec.a=1 and table.exec.b=1</text>")
	require.NotContains(t, svg, `height="360"`) // taller than the default for the whole labels
}

// A streaming %chart cell: the live display keeps the table, and the
// chart drawn when the job ends is an output of its own.
func TestKernelStreamingChart(t *testing.T) {
	c, _ := startKernel(t)
	r, _ := c.request(c.shell, "execute_request", map[string]any{"code": "SET 'execution.runtime-mode' = 'streaming'"})
	require.Equal(t, "ok", r["status"])
	r, pub := c.request(c.shell, "execute_request", map[string]any{
		"code": "%chart bar x=k y=c\nSELECT k, COUNT(*) AS c FROM (VALUES ('a'), ('b'), ('a')) AS t(k) GROUP BY k",
	})
	require.Equal(t, "ok", r["status"], r["evalue"])
	var charts int
	for _, m := range pub {
		mc := content(t, m)
		data, _ := mc["data"].(map[string]any)
		if data == nil {
			continue
		}
		if _, ok := data["image/svg+xml"]; ok {
			charts++
			require.Equal(t, "display_data", m.Header.MsgType)
			require.NotContains(t, data, "text/html")
			require.Nil(t, mc["transient"].(map[string]any)["display_id"])
		} else if tr, ok := mc["transient"].(map[string]any); ok && tr["display_id"] != nil {
			require.Contains(t, data, "text/html") // the live table
		}
	}
	require.Equal(t, 1, charts)
}

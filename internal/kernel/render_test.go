package kernel

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

func TestHTMLTable(t *testing.T) {
	env := core.NewTableEnvironment(core.InBatchMode())
	cases := []struct {
		name string
		sql  string
		want []string
	}{
		{
			name: "escaping and NULL",
			sql:  "SELECT * FROM (VALUES ('<b>&', CAST(NULL AS INT))) AS t(s, n)",
			want: []string{`<th title="CHAR(4) NOT NULL">s</th>`, `<td>&lt;b&gt;&amp;</td>`, `<td style="text-align: right">&lt;NULL&gt;</td>`, "<p>1 row in set</p>"},
		},
		{
			name: "empty",
			sql:  "SELECT 1 AS a FROM (VALUES (1)) AS t(x) WHERE x > 1",
			want: []string{"<th", "<p>Empty set</p>"},
		},
		{
			name: "multi-line values keep their lines",
			sql:  "EXPLAIN SELECT 1",
			want: []string{"<pre>== Abstract Syntax Tree ==\n"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := env.ExecuteSQL(context.Background(), c.sql)
			require.NoError(t, err)
			html := HTMLTable(res)
			for _, w := range c.want {
				require.Contains(t, html, w)
			}
		})
	}
}

func TestHistory(t *testing.T) {
	var h history
	h.add(1, "SELECT 1", "one")
	h.add(2, "SELECT 2", "")
	h.add(3, "SELECT 1", "one")
	cases := []struct {
		name string
		req  string
		want string
	}{
		{"tail", `{"hist_access_type":"tail","n":2}`, `[[1,2,"SELECT 2"],[1,3,"SELECT 1"]]`},
		{"tail with output", `{"hist_access_type":"tail","n":1,"output":true}`, `[[1,3,["SELECT 1","one"]]]`},
		{"range", `{"hist_access_type":"range","session":1,"start":2,"stop":3}`, `[[1,2,"SELECT 2"]]`},
		{"other session", `{"hist_access_type":"range","session":7,"start":1,"stop":3}`, `[]`},
		{"search", `{"hist_access_type":"search","pattern":"SELECT 1*"}`, `[[1,1,"SELECT 1"],[1,3,"SELECT 1"]]`},
		{"search unique", `{"hist_access_type":"search","pattern":"SELECT ?","unique":true}`, `[[1,2,"SELECT 2"],[1,3,"SELECT 1"]]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := json.Marshal(h.reply(json.RawMessage(c.req))["history"])
			require.NoError(t, err)
			require.JSONEq(t, c.want, string(got))
		})
	}
}

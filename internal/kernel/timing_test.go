package kernel

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseTimeLine(t *testing.T) {
	cases := []struct {
		code      string
		label     string
		timed     bool
		rest      string
		errSubstr string
	}{
		{code: "SELECT 1", rest: "SELECT 1"},
		{code: "%time\nSELECT 1", timed: true, rest: "\nSELECT 1"},
		{code: "%time default\nSELECT 1", label: "default", timed: true, rest: "\nSELECT 1"},
		{code: "  %time \"mini batch\"  \n%chart bar x=a y=b\nSELECT 1", label: "mini batch", timed: true, rest: "\n%chart bar x=a y=b\nSELECT 1"},
		{code: "%time a b\nSELECT 1", errSubstr: "one label"},
		{code: "%time \"a\nSELECT 1", errSubstr: "unterminated quote"},
		{code: "%timeit\nSELECT 1", errSubstr: "not supported yet: line magic \"%timeit\""},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			label, timed, rest, err := parseTimeLine(c.code)
			if c.errSubstr != "" {
				require.ErrorContains(t, err, c.errSubstr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.label, label)
			require.Equal(t, c.timed, timed)
			require.Equal(t, c.rest, rest)
		})
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		require.Equal(t, want, groupDigits(n))
	}
}

// TestKernelTimedCells runs %time cells: each prints its figures, the
// cell_timings table lists one row per label (timing a label again
// replaces its row) and a %chart cell draws them.
func TestKernelTimedCells(t *testing.T) {
	c, _ := startKernel(t)
	run := func(code string) (map[string]any, []map[string]any) {
		r, pub := c.request(c.shell, "execute_request", map[string]any{"code": code})
		var contents []map[string]any
		for _, m := range pub {
			mc := content(t, m)
			mc["msg_type"] = m.Header.MsgType
			contents = append(contents, mc)
		}
		return r, contents
	}
	r, _ := run("CREATE TABLE g (x BIGINT) WITH ('connector' = 'datagen', 'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '5000')")
	require.Equal(t, "ok", r["status"])
	for _, label := range []string{"first", "second", "first"} {
		r, pub := run("%time " + label + "\nSELECT COUNT(*) AS n FROM g")
		require.Equal(t, "ok", r["status"], "%v", r)
		last := pub[len(pub)-1]
		require.Equal(t, "stream", last["msg_type"])
		require.Regexp(t, `^`+label+`: [0-9.]+ s wall time, 5,000 rows read \([0-9,]+ rows/s\)\n$`, last["text"])
	}
	r, pub := run("%time\nSELECT 1")
	require.Equal(t, "ok", r["status"])
	require.True(t, strings.HasPrefix(pub[len(pub)-1]["text"].(string), "cell "), "%v", pub)

	r, pub = run("%chart bar x=label y=rows_read\nSELECT label, rows_read FROM cell_timings")
	require.Equal(t, "ok", r["status"], "%v", r)
	var result, chart map[string]any
	for _, m := range pub {
		switch m["msg_type"] {
		case "execute_result":
			result = m["data"].(map[string]any)
		case "display_data":
			chart = m["data"].(map[string]any)
		}
	}
	require.NotNil(t, result)
	text := result["text/plain"].(string)
	require.Contains(t, text, "|  first |      5000 |")
	require.Contains(t, text, "| second |      5000 |")
	require.Contains(t, text, "3 rows in set")
	require.Contains(t, chart["image/svg+xml"], "<svg") // a separate output
	require.NotContains(t, result, "image/svg+xml")

	r, _ = run("%time a b\nSELECT 1")
	require.Equal(t, "error", r["status"])
	require.Equal(t, "TimeError", r["ename"])
}

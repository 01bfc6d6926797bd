package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/types"
)

// ParseGateway splits a SQL-gateway dialect .q script into records: the
// statement runs up to a line whose trimmed text is "!output" (its
// trailing ';' is stripped), the expected output up to the next line
// starting with '!', which holds the tag.
func ParseGateway(text string) ([]Record, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []Record
	i := 0
	for i < len(lines) {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			i++
			continue
		}
		rec := Record{Line: i + 1}
		var sql []string
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != "!output"; i++ {
			sql = append(sql, lines[i])
		}
		if i >= len(lines) {
			return out, fmt.Errorf("line %d: statement without an !output line", rec.Line)
		}
		i++
		rec.SQL = strings.TrimSuffix(strings.TrimRight(strings.Join(sql, "\n"), " \t\n"), ";")
		var outLines []string
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "!"); i++ {
			outLines = append(outLines, lines[i])
		}
		if i >= len(lines) {
			return out, fmt.Errorf("line %d: output without a '!' tag line", rec.Line)
		}
		rec.Tag = strings.TrimSpace(strings.TrimPrefix(lines[i], "!"))
		rec.Output = strings.Join(outLines, "\n")
		i++
		out = append(out, rec)
	}
	return out, nil
}

// GatewayVariables replaces the $VAR_… tokens of the gateway scripts; dir
// is a fresh temporary directory.
func GatewayVariables(text, dir string) string {
	return strings.NewReplacer(
		"$VAR_STREAMING_PATH2", filepath.Join(dir, "streaming2"),
		"$VAR_STREAMING_PATH3", filepath.Join(dir, "streaming3"),
		"$VAR_STREAMING_PLAN_RELATIVE_PATH", "plan.json",
		"$VAR_STREAMING_PLAN_PATH", filepath.Join(dir, "plan.json"),
		"$VAR_STREAMING_PATH", filepath.Join(dir, "streaming"),
		"$VAR_BATCH_CTAS_PATH", filepath.Join(dir, "batch_ctas"),
		"$VAR_BATCH_PATH2", filepath.Join(dir, "batch2"),
		"$VAR_BATCH_PATH", filepath.Join(dir, "batch"),
		"$VAR_REST_PORT", "18081",
	).Replace(text)
}

// NewGatewaySession starts a session as Flink's gateway test does: the
// MiniCluster's options as the initial configuration, nothing else.
func NewGatewaySession() *core.TableEnvironment {
	settings := core.InStreamingMode()
	for _, kv := range clusterOptions {
		settings = settings.WithOption(kv[0], kv[1])
	}
	return core.NewTableEnvironment(settings)
}

// RenderGateway prints the outcome of one statement as the gateway test
// harness does and returns it with its tag.
func RenderGateway(sql string, res *core.TableResult, err error) (string, string) {
	if err != nil {
		return core.Reason(err) + "\n", "error"
	}
	words := strings.Fields(strings.ToUpper(sql))
	switch {
	case len(words) >= 2 && words[0] == "SHOW" && words[1] == "CREATE", len(words) >= 1 && words[0] == "EXPLAIN":
		var b strings.Builder
		for _, row := range res.Rows() {
			if len(row) > 0 {
				if s, ok := row[0].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return strings.TrimSpace(b.String()) + "\n", "ok"
	case res.IsDML():
		return "Job ID:\n", "info"
	}
	rows := res.Rows()
	if err := res.Err(); err != nil {
		return core.Reason(err) + "\n", "error"
	}
	schema := res.Schema()
	header := schema.Names()
	withOp := res.IsStreaming() && len(words) > 0 && words[0] == "SELECT"
	if withOp {
		header = append([]string{"op"}, header...)
	}
	kinds := res.RowKinds()
	cells := make([][]string, len(rows))
	for i, row := range rows {
		for j, f := range schema {
			var v any
			if j < len(row) {
				v = row[j]
			}
			cells[i] = append(cells[i], gatewayValue(res, v, f.Type))
		}
		if withOp {
			op := ""
			if i < len(kinds) {
				op = kinds[i].String()
			}
			cells[i] = append([]string{op}, cells[i]...)
		}
	}
	return tableau(header, cells), "ok"
}

func gatewayValue(res *core.TableResult, v any, t types.Type) string {
	if v == nil {
		return ""
	}
	return res.Format(v, t)
}

// tableau draws rows with data-derived, unlimited widths: border, header,
// border, rows, border and the "N rows in set" footer, or "Empty set".
func tableau(header []string, rows [][]string) string {
	if len(rows) == 0 {
		return "Empty set\n"
	}
	widths := make([]int, len(header))
	for j, h := range header {
		widths[j] = width(h)
	}
	for _, r := range rows {
		for j, c := range r {
			if w := width(c); w > widths[j] {
				widths[j] = w
			}
		}
	}
	var b strings.Builder
	border := func() {
		b.WriteByte('+')
		for _, w := range widths {
			b.WriteString(strings.Repeat("-", w+2) + "+")
		}
		b.WriteByte('\n')
	}
	line := func(vals []string) {
		b.WriteByte('|')
		for j, v := range vals {
			b.WriteString(" " + strings.Repeat(" ", widths[j]-width(v)) + v + " |")
		}
		b.WriteByte('\n')
	}
	border()
	line(header)
	border()
	for _, r := range rows {
		line(r)
	}
	border()
	if len(rows) == 1 {
		b.WriteString("1 row in set\n")
	} else {
		fmt.Fprintf(&b, "%d rows in set\n", len(rows))
	}
	return b.String()
}

// width is the display width of s: East Asian wide characters count 2.
func width(s string) int {
	w := 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hangul, r) || unicode.Is(unicode.Hiragana, r) ||
			unicode.Is(unicode.Katakana, r) || (r >= 0xFF01 && r <= 0xFF60) || (r >= 0xFFE0 && r <= 0xFFE6) {
			w += 2
		} else {
			w++
		}
	}
	return w
}

// RunGatewayFile runs every record of a gateway-dialect .q script in one
// fresh session (see NewGatewaySession). Output is compared exactly
// (the gateway harness strips no trailing spaces).
func RunGatewayFile(ctx context.Context, text string) ([]Outcome, error) {
	dir, err := os.MkdirTemp("", "tablerun-gw-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := makeDataDirs(dir); err != nil {
		return nil, err
	}
	recs, err := ParseGateway(GatewayVariables(text, dir))
	if err != nil {
		return nil, err
	}
	env := NewGatewaySession()
	defer env.Close()
	var devNull strings.Builder
	env.SetOutput(&devNull, &devNull)
	out := make([]Outcome, 0, len(recs))
	for _, r := range recs {
		res, err := env.ExecuteSQL(ctx, r.SQL)
		actual, tag := RenderGateway(r.SQL, res, err)
		if res != nil {
			_ = res.Close()
		}
		o := Outcome{Record: r, Actual: BlankPlanIDs(strings.TrimSuffix(actual, "\n")), Tag: tag}
		if errors.Is(err, core.ErrInternal) {
			o.Internal = err
		}
		o.Pass = o.Tag == r.Tag && o.Actual == r.Output
		if !o.Pass {
			o.Skip = SkipReason(r, o.Actual)
		}
		out = append(out, o)
	}
	return out, nil
}

// makeDataDirs creates the data directories the $VAR_…_PATH variables
// name: the harness hands the scripts fresh (existing, empty) temporary
// directories (README, "Variables").
func makeDataDirs(dir string) error {
	for _, d := range []string{"streaming", "streaming2", "streaming3", "batch", "batch2"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	return nil
}

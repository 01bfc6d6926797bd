// Package conformance runs Flink's own SQL-client and SQL-gateway .q test
// scripts (../shared/conformance/flink-q/{sql-client,sql-gateway}, format
// described in that directory's README) against tablerun and counts, per
// file, the records that pass byte for byte, fail, or are legitimately
// skipped (SkipReason: Java jars, Java UDF classes, the CLI's HELP text).
// Each file runs in one fresh session set up as Flink's harness does
// (NewSession, NewGatewaySession).
//
//	go test ./internal/conformance -v -run TestConformance        # counts
//	CONFORMANCE_FILE=view.q go test ./internal/conformance -v -run TestConformance
//	                                                               # + diffs and skips of one file
//
// TestConformance fails on panics and when a file in scope of the session
// issue passes fewer records than before (minPass, a ratchet).
package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tablerun/tablerun/core"
)

// Record is one statement of a .q file with Flink's expected output.
type Record struct {
	// Line is the 1-based line of the statement's first line.
	Line int
	// SQL is the statement text as written (with its ';').
	SQL string
	// Output is the expected output (lines joined with '\n', no tag line).
	Output string
	// Tag is "ok", "info", "error" or "warning".
	Tag string
}

// Parse splits a SQL-client dialect .q script into records. Comment lines
// (starting with '#' or blank) before a statement are skipped.
func Parse(text string) ([]Record, error) {
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
		var st lexState
		for ; i < len(lines); i++ {
			sql = append(sql, lines[i])
			st = st.scan(lines[i])
			if strings.HasSuffix(strings.TrimSpace(lines[i]), ";") && st.isDefault() {
				i++
				break
			}
		}
		rec.SQL = strings.Join(sql, "\n")
		var outLines []string
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "!"); i++ {
			outLines = append(outLines, lines[i])
		}
		if i >= len(lines) {
			return out, fmt.Errorf("line %d: statement without a '!' tag line", rec.Line)
		}
		rec.Tag = strings.TrimSpace(strings.TrimPrefix(lines[i], "!"))
		rec.Output = strings.Join(outLines, "\n")
		i++
		out = append(out, rec)
	}
	return out, nil
}

// lexState is the SQL client's lexer state at the end of a line.
type lexState struct {
	inString, inBlock, inLine bool
}

func (s lexState) isDefault() bool { return !s.inString && !s.inBlock && !s.inLine }

// scan advances the state over one line (the line comment state holds at
// the end of the line; it ends with the newline).
func (s lexState) scan(line string) lexState {
	s.inLine = false
	for i := 0; i < len(line); i++ {
		c := line[i]
		next := byte(0)
		if i+1 < len(line) {
			next = line[i+1]
		}
		switch {
		case s.inLine:
		case s.inBlock:
			if c == '*' && next == '/' {
				s.inBlock = false
				i++
			}
		case s.inString:
			if c == '\'' {
				s.inString = false
			}
		case c == '\'':
			s.inString = true
		case c == '-' && next == '-':
			s.inLine = true
		case c == '/' && next == '*':
			s.inBlock = true
			i++
		}
	}
	return s
}

// Variables replaces the $VAR_… tokens of the scripts with values for this
// run; dir is a fresh temporary directory.
func Variables(text, dir string) string {
	repl := []string{
		"$VAR_STREAMING_PATH2", filepath.Join(dir, "streaming2"),
		"$VAR_STREAMING_PATH", filepath.Join(dir, "streaming"),
		"$VAR_BATCH_PATH2", filepath.Join(dir, "batch2"),
		"$VAR_BATCH_PATH", filepath.Join(dir, "batch"),
		"$VAR_UDF_JAR_PATH_DASH", "",
		"$VAR_UDF_JAR_PATH_SPACE", "",
		"$VAR_UDF_JAR_PATH", filepath.Join(dir, "udf.jar"),
		"$VAR_REST_PORT", "18081",
		"$VAR_JOBMANAGER_RPC_ADDRESS", "localhost",
		"$VAR_PIPELINE_JARS_URL", "",
	}
	return strings.NewReplacer(repl...).Replace(text)
}

// Outcome is the result of one record.
type Outcome struct {
	Record Record
	// Actual is tablerun's normalised output and Tag its tag.
	Actual string
	Tag    string
	Pass   bool
	// Internal is set when the statement panicked inside tablerun (the
	// session recovered; see core.ErrInternal).
	Internal error
	// Skip is the reason a record that did not pass is a legitimate skip
	// (see SkipReason); "" when it counts as a failure.
	Skip string
}

// SkipReason returns why a record that does not pass is legitimately
// skipped, or "". The legitimate skips are the ones the scripts' README
// lists as impossible without a JVM or Flink's Java CLI: Java jars (ADD
// JAR, REMOVE JAR, SHOW JARS, USING JAR), calls of Java UDF classes, and the
// CLI's HELP text. actual is tablerun's output for the record.
func SkipReason(r Record, actual string) string {
	sql := strings.ToUpper(strings.Join(strings.Fields(r.SQL), " "))
	switch {
	case strings.HasPrefix(sql, "ADD JAR"), strings.HasPrefix(sql, "REMOVE JAR"), strings.HasPrefix(sql, "SHOW JARS"),
		strings.Contains(sql, "USING JAR"):
		return "Java jars (ADD JAR / REMOVE JAR / SHOW JARS / USING JAR) need a JVM"
	case strings.Contains(actual, "tablerun has no JVM"):
		return "calls a Java UDF class (LowerUDF, UpperUDF, …), which needs a JVM"
	case sql == "HELP;":
		return "HELP prints the help text of Flink's Java CLI"
	}
	return ""
}

var (
	trailingSpace = regexp.MustCompile(`(?m)[ \t]+$`)
	jobID         = regexp.MustCompile(`(?m)^Job ID:.*$`)
	planNodeID    = regexp.MustCompile(`("id" : )\d+`)
	planOpID      = regexp.MustCompile(`(?m)^(\s*"(?:type|contents)" : ".*?)\[\d+\]`)
)

// BlankPlanIDs blanks the ids of a JSON execution plan as the harness
// does: `"id" : 7` becomes `"id" : ` and the operator ids `[7]` of the
// "type" and "contents" fields become `[]`.
func BlankPlanIDs(s string) string {
	s = planNodeID.ReplaceAllString(s, "${1}")
	return planOpID.ReplaceAllString(s, "${1}[]")
}

// Normalize applies the harness's normalisation: trailing spaces removed,
// "Job ID:" lines cut to "Job ID:".
func Normalize(s string) string {
	s = trailingSpace.ReplaceAllString(s, "")
	s = BlankPlanIDs(s)
	s = jobID.ReplaceAllString(s, "Job ID:")
	return strings.TrimSuffix(s, "\n")
}

// clusterOptions are the options the test MiniCluster of Flink's harness
// puts into every session's configuration; `SET;` lists them and RESET
// keeps them. The values match the $VAR_ substitutions above.
var clusterOptions = [][2]string{
	{"execution.attached", "true"},
	{"execution.shutdown-on-attached-exit", "false"},
	{"execution.state-recovery.claim-mode", "NO_CLAIM"},
	{"execution.state-recovery.ignore-unclaimed-state", "false"},
	{"execution.target", "remote"},
	{"jobmanager.rpc.address", "localhost"},
	{"rest.port", "18081"},
}

// harnessOptions are set by the harness after the session starts (RESET
// removes them).
var harnessOptions = [][2]string{
	{"table.exec.legacy-cast-behaviour", "DISABLED"},
	{"sql-client.display.print-time-cost", "false"},
}

// NewSession starts a session the way Flink's harness does: the
// MiniCluster's options as the initial configuration, then
// table.exec.legacy-cast-behaviour = DISABLED and
// sql-client.display.print-time-cost = false set in the session; otherwise
// Flink's defaults (streaming mode, result mode 'table').
func NewSession() (*core.TableEnvironment, error) {
	settings := core.InStreamingMode()
	for _, kv := range clusterOptions {
		settings = settings.WithOption(kv[0], kv[1])
	}
	env := core.NewTableEnvironment(settings)
	for _, kv := range harnessOptions {
		if err := env.Config().Set(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// RunFile runs every record of a .q script in one fresh session (see
// NewSession).
func RunFile(ctx context.Context, text string) ([]Outcome, error) {
	dir, err := os.MkdirTemp("", "tablerun-q-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := makeDataDirs(dir); err != nil {
		return nil, err
	}
	recs, err := Parse(Variables(text, dir))
	if err != nil {
		return nil, err
	}
	env, err := NewSession()
	if err != nil {
		return nil, err
	}
	defer env.Close()
	var devNull strings.Builder
	env.SetOutput(&devNull, &devNull)
	out := make([]Outcome, 0, len(recs))
	for _, r := range recs {
		res, err := env.ExecuteSQL(ctx, r.SQL)
		res = blankExplainIDs(res, err)
		var b strings.Builder
		if perr := core.PrintClientResult(&b, env.Config(), res, err); perr != nil {
			return out, perr
		}
		o := Outcome{Record: r, Actual: Normalize(b.String()), Tag: core.OutputTag(res, err)}
		if res != nil {
			_ = res.Close()
		}
		if errors.Is(err, core.ErrInternal) {
			o.Internal = err
		}
		o.Pass = o.Tag == r.Tag && o.Actual == Normalize(r.Output)
		if !o.Pass {
			o.Skip = SkipReason(r, o.Actual)
		}
		out = append(out, o)
	}
	return out, nil
}

// blankExplainIDs blanks the ids of a JSON execution plan in an EXPLAIN
// result before it is printed: Flink's SQL-client harness does so before
// the tableau is drawn (its expected borders are as wide as the plan
// without ids).
func blankExplainIDs(res *core.TableResult, err error) *core.TableResult {
	if err != nil || res == nil || len(res.Schema()) != 1 || res.Schema()[0].Name != "result" || res.IsQuery() {
		return res
	}
	rows := res.Rows()
	vals := make([]string, len(rows))
	for i, row := range rows {
		s, ok := row[0].(string)
		if len(row) != 1 || !ok || !strings.Contains(s, "== Physical Execution Plan ==") {
			return res
		}
		vals[i] = BlankPlanIDs(s)
	}
	return core.StringsResult("result", vals)
}

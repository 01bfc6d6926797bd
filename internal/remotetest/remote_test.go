// Package remotetest runs tablerun as a client of a real Apache Flink
// cluster (internal/flinkenv): the same scripts through `tablerun -f` and
// `tablerun --endpoint <gateway> -f` must print the same, statement by
// statement, and the Go API's remote TableEnvironment must return the
// cluster's rows. Without a Flink installation the tests skip (and fail
// when CI=true).
package remotetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/internal/flinkcheck"
	"github.com/tablerun/tablerun/internal/flinkenv"
	"github.com/tablerun/tablerun/planner/parser"
)

// bin is the tablerun command built for the tests; root the repository.
var bin, root string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	root = filepath.Clean(filepath.Join(wd, "..", ".."))
	dir, err := os.MkdirTemp("", "remotetest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "tablerun")
	build := exec.Command("go", "build", "-o", bin, "./cmd/tablerun")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building tablerun: %v\n%s", err, out)
		return 1
	}
	return flinkenv.Run(m)
}

// result is one run of the command.
type result struct {
	stdout, stderr string
	code           int
}

// tablerun runs the command from the repository root.
func tablerun(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "TABLERUN_CONF_DIR=")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("tablerun %v: %v", args, err)
	}
	return result{out.String(), errOut.String(), code}
}

var pathRE = regexp.MustCompile(`('path'\s*=\s*')([^']+)(')`)

// absPaths makes the 'path' options of a script absolute (the gateway
// resolves a relative path against its own working directory).
func absPaths(script string) string {
	return pathRE.ReplaceAllStringFunc(script, func(m string) string {
		p := pathRE.FindStringSubmatch(m)
		if filepath.IsAbs(p[2]) || strings.Contains(p[2], "://") {
			return m
		}
		return p[1] + filepath.Join(root, p[2]) + p[3]
	})
}

var (
	timeCostRE = regexp.MustCompile(`\([0-9]+\.[0-9]+ seconds\)`)
	printRE    = regexp.MustCompile(`(?m)^[+-][IUD]\[.*\]$`)
	orderByRE  = regexp.MustCompile(`(?is)\border\s+by\b`)
	setListRE  = regexp.MustCompile(`(?is)^\s*SET\s*;?\s*$`)
)

// chunks splits a tableau run's output into the output of each statement
// (each is followed by a blank line).
func chunks(out string) []string {
	parts := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
	for i := range parts {
		parts[i] = timeCostRE.ReplaceAllString(parts[i], "(T seconds)")
	}
	return parts
}

// finalTable applies a tableau changelog (the op column first) and
// returns the rows it ends with, sorted.
func finalTable(out string) []string {
	count := map[string]int{}
	for _, row := range tableRows(out) {
		if len(row) < 2 {
			continue
		}
		key := strings.Join(row[1:], "|")
		switch row[0] {
		case "+I", "+U":
			count[key]++
		case "-U", "-D":
			count[key]--
		}
	}
	var rows []string
	for k, n := range count {
		for ; n > 0; n-- {
			rows = append(rows, k)
		}
	}
	sort.Strings(rows)
	return rows
}

// tableRows returns the trimmed cells of a tableau table's rows (not the
// header).
func tableRows(out string) [][]string {
	var rows [][]string
	header := true
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		if header {
			header = false
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows
}

// taskManagerOut returns the stdout file of the cluster's TaskManager,
// where Flink's print connector writes.
func taskManagerOut(t *testing.T, c *flinkenv.Cluster) string {
	m, _ := filepath.Glob(filepath.Join(c.LogDir, "*taskexecutor*.out"))
	require.Len(t, m, 1, "the TaskManager's .out file in %s", c.LogDir)
	return m[0]
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

func readFrom(t *testing.T, path string, off int64) string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Seek(off, io.SeekStart)
	require.NoError(t, err)
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	return string(b)
}

func sortedLines(s string) []string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return lines
}

// compareRuns runs script locally and through the cluster's gateway and
// checks that every statement printed the same. Where Flink's behaviour
// itself differs, the check is the one that holds on both:
//   - a query without ORDER BY: the same lines in any order;
//   - SET; lists the whole session configuration of the cluster: every
//     option the local run lists is in the remote list with its value;
//   - the print connector writes to the TaskManager's stdout on the
//     cluster: its lines there are the local run's lines (in any order).
func compareRuns(t *testing.T, c *flinkenv.Cluster, script string, extra ...string) {
	t.Helper()
	compareRunsFinal(t, c, script, false, extra...)
}

// compareRunsFinal is compareRuns; with final, a streaming result may
// also match as the table its changelog ends in (Flink's Python group
// aggregation emits once per bundle of input, not per row).
func compareRunsFinal(t *testing.T, c *flinkenv.Cluster, script string, final bool, extra ...string) {
	t.Helper()
	script = absPaths(script)
	file := filepath.Join(t.TempDir(), "script.sql")
	require.NoError(t, os.WriteFile(file, []byte(script), 0o644))
	stmts, err := parser.ParseScript(script)
	require.NoError(t, err)

	local := tablerun(t, "", append(append([]string{}, extra...), "-f", file)...)
	tmOut := taskManagerOut(t, c)
	off := fileSize(tmOut)
	remote := tablerun(t, "", append(append([]string{"--endpoint", c.GatewayURL}, extra...), "-f", file)...)
	require.Equal(t, local.code, remote.code, "exit codes\nlocal:\n%s%s\nremote:\n%s%s", local.stdout, local.stderr, remote.stdout, remote.stderr)
	lc, rc := chunks(local.stdout), chunks(remote.stdout)
	require.Len(t, lc, len(stmts), "local output:\n%s", local.stdout)
	require.Len(t, rc, len(stmts), "remote output:\n%s", remote.stdout)
	var printed []string
	for i, st := range stmts {
		l, r := lc[i], rc[i]
		if prints := printRE.FindAllString(l, -1); len(prints) > 0 {
			printed = append(printed, prints...)
			l = strings.TrimLeft(printRE.ReplaceAllString(l, ""), "\n")
		}
		if l == r {
			continue
		}
		switch {
		case setListRE.MatchString(st.Text):
			have := map[string]bool{}
			for _, row := range tableRows(r) {
				have[strings.Join(row, "|")] = true
			}
			for _, row := range tableRows(l) {
				require.True(t, have[strings.Join(row, "|")], "SET; on the cluster lacks the local option %v", row)
			}
			continue
		case !orderByRE.MatchString(st.Text) && strings.HasPrefix(l, "+-"):
			if strings.Join(sortedLines(l), "\n") == strings.Join(sortedLines(r), "\n") {
				continue
			}
			if final && strings.Contains(l, "| op |") {
				lm, rm := finalTable(l), finalTable(r)
				require.NotEmpty(t, lm, "local result:\n%s", l)
				if strings.Join(lm, "\n") == strings.Join(rm, "\n") {
					continue
				}
			}
		}
		t.Errorf("statement at line %d prints differently:\n%s\n--- local:\n%s\n--- remote:\n%s", st.Line, st.Text, l, r)
	}
	if len(printed) > 0 {
		// the TaskManager flushes its stdout as it writes
		var got string
		deadline := time.Now().Add(10 * time.Second)
		for {
			got = strings.TrimSpace(readFrom(t, tmOut, off))
			if len(strings.Split(got, "\n")) >= len(printed) || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		sort.Strings(printed)
		require.Equal(t, strings.Join(printed, "\n"), strings.Join(sortedLines(got), "\n"), "the print connector's rows on the TaskManager")
	}
}

// TestExamplesThroughEndpoint runs every example through --endpoint and
// locally. `tablerun check --flink` decides which ones Flink can run:
// those print the same on both, and each of the others fails on the
// cluster (the check's findings are real).
func TestExamplesThroughEndpoint(t *testing.T) {
	c := flinkenv.Require(t)
	scripts, err := filepath.Glob(filepath.Join(root, "examples", "*.sql"))
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	compatible := 0
	for _, path := range scripts {
		t.Run(filepath.Base(path), func(t *testing.T) {
			text, err := os.ReadFile(path)
			require.NoError(t, err)
			findings, err := flinkcheck.Check(string(text), flinkcheck.Options{})
			require.NoError(t, err)
			if len(findings) == 0 {
				compatible++
				compareRuns(t, c, string(text))
				return
			}
			r := tablerun(t, "", "--endpoint", c.GatewayURL, "-f", path)
			require.Equal(t, 1, r.code, "check --flink found %v, yet the script ran on Flink:\n%s", findings, r.stdout)
			require.Contains(t, r.stdout, "[ERROR] Could not execute SQL statement. Reason:")
		})
	}
	require.GreaterOrEqual(t, compatible, 3, "examples that run on Flink")
}

// TestStreamingChangelog compares a streaming GROUP BY's changelog: one
// change per input row on both (parallelism 1, no mini-batch).
func TestStreamingChangelog(t *testing.T) {
	c := flinkenv.Require(t)
	compareRuns(t, c, `
CREATE TABLE seq (id BIGINT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '10',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');
SELECT id % 3 AS k, COUNT(*) AS n, SUM(id) AS s FROM seq GROUP BY id % 3;
SELECT id, id * 2 AS twice FROM seq WHERE id > 7;
`)
}

// TestErrorsAndOptions: Flink's root cause in the client's error form,
// the exit codes, --keep-going, and -D / SET reaching the cluster's
// session (the time zone changes what the cluster computes).
func TestErrorsAndOptions(t *testing.T) {
	c := flinkenv.Require(t)
	ep := []string{"--endpoint", c.GatewayURL}

	r := tablerun(t, "", append(ep, "-e", "SELECT * FROM nope; SELECT 1")...)
	require.Equal(t, 1, r.code)
	require.Equal(t, "[ERROR] Could not execute SQL statement. Reason:\norg.apache.calcite.sql.validate.SqlValidatorException: Object 'nope' not found\n\n", r.stdout)

	r = tablerun(t, "", append(ep, "--keep-going", "-D", "execution.runtime-mode=batch", "-e", "SELECT CAST('x' AS INT) AS bad; SELECT 1 AS uno")...)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stdout, "[ERROR] Could not execute SQL statement. Reason:\njava.lang.NumberFormatException")
	require.Contains(t, r.stdout, "| uno |")

	const q = "SELECT CAST(TO_TIMESTAMP_LTZ(0, 3) AS STRING) AS s, TO_TIMESTAMP_LTZ(0, 3) AS ltz;"
	r = tablerun(t, "", append(ep, "-D", "execution.runtime-mode=batch", "-D", "table.local-time-zone=Asia/Tokyo", "-D", "sql-client.display.print-time-cost=false",
		"-e", q+"SET 'table.local-time-zone' = 'America/New_York';"+q+"RESET 'table.local-time-zone';"+q)...)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	tokyo := "| 1970-01-01 09:00:00.000 | 1970-01-01 09:00:00.000 |"
	ny := "| 1969-12-31 19:00:00.000 | 1969-12-31 19:00:00.000 |"
	// the gateway's RESET returns to the cluster's default (UTC here),
	// not to the session's opening options
	utc := "| 1970-01-01 00:00:00.000 | 1970-01-01 00:00:00.000 |"
	require.Equal(t, 1, strings.Count(r.stdout, tokyo), r.stdout)
	require.Equal(t, 1, strings.Count(r.stdout, ny), r.stdout)
	require.Equal(t, 1, strings.Count(r.stdout, utc), r.stdout)
	require.NotContains(t, r.stdout, "| op |", "-D execution.runtime-mode=batch reached the cluster's session")

	r = tablerun(t, "", "--endpoint", "http://127.0.0.1:1", "-e", "SELECT 1")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "could not open a session on the SQL Gateway at http://127.0.0.1:1")
}

// TestPipedShell: the interactive client reads a piped script as Flink's
// does and runs it on the cluster.
func TestPipedShell(t *testing.T) {
	c := flinkenv.Require(t)
	r := tablerun(t, "SET 'execution.runtime-mode' = 'batch';\nSELECT 40 + 2 AS answer;\n", "--endpoint", c.GatewayURL)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "| answer |")
	require.Contains(t, r.stdout, "|     42 |")
}

// TestStreamingLiveThenCanceled watches an unbounded query's changelog as
// the cluster produces it, then interrupts the client as Ctrl-C does: the
// client prints Flink's "Query terminated" and "[INFO] Query canceled.",
// exits with 130, and the job on the cluster is canceled.
func TestStreamingLiveThenCanceled(t *testing.T) {
	c := flinkenv.Require(t)
	cmd := exec.Command(bin, "--endpoint", c.GatewayURL, "-e", `
CREATE TABLE ticks (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '4',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000');
SELECT id FROM ticks;`)
	cmd.Dir = root
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }()
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// the rows arrive while the job runs: the first ones are printed long
	// before the last ones
	var changes []time.Time
	var all []string
	timeout := time.After(90 * time.Second)
	for len(changes) < 6 {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "output ended early:\n%s", strings.Join(all, "\n"))
			all = append(all, l)
			if strings.HasPrefix(l, "| +I |") {
				changes = append(changes, time.Now())
			}
		case <-timeout:
			t.Fatalf("no live rows:\n%s", strings.Join(all, "\n"))
		}
	}
	require.Greater(t, changes[5].Sub(changes[0]), 500*time.Millisecond, "rows at 4 per second arrive over time")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	for l := range lines {
		all = append(all, l)
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	require.True(t, ok, "exit: %v", err)
	require.Equal(t, 130, ee.ExitCode())
	out := strings.Join(all, "\n")
	require.Regexp(t, `Query terminated, received a total of [0-9]+ rows`, out)
	require.Contains(t, out, "[INFO] Query canceled.")
	// the job is canceled on the cluster
	deadline := time.Now().Add(30 * time.Second)
	for {
		running := runningJobs(t, c)
		if running == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "%d jobs still running on the cluster", running)
		time.Sleep(300 * time.Millisecond)
	}
}

// runningJobs counts the cluster's jobs that are not in a final state.
func runningJobs(t *testing.T, c *flinkenv.Cluster) int {
	resp, err := http.Get(c.RESTURL + "/jobs/overview")
	require.NoError(t, err)
	defer resp.Body.Close()
	var o struct {
		Jobs []struct {
			State string `json:"state"`
		} `json:"jobs"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&o))
	n := 0
	for _, j := range o.Jobs {
		switch j.State {
		case "FINISHED", "CANCELED", "FAILED":
		default:
			n++
		}
	}
	return n
}

// TestGoAPI: a TableEnvironment whose executor is the cluster's gateway
// returns the cluster's rows through the same TableResult methods as a
// local one, streams a changelog, and refuses the local-only API.
func TestGoAPI(t *testing.T) {
	c := flinkenv.Require(t)
	ctx := context.Background()
	env, err := core.NewRemoteTableEnvironment(ctx, c.GatewayURL, core.InBatchMode())
	require.NoError(t, err)
	defer env.Close()
	require.Equal(t, c.GatewayURL, env.Endpoint())

	res, err := env.ExecuteSQL(ctx, "SELECT x, CAST(x AS DECIMAL(5, 2)) AS q, DATE '2026-12-02' AS d FROM (VALUES (1), (2), (3)) AS t(x) ORDER BY x DESC")
	require.NoError(t, err)
	require.Equal(t, []string{"x", "q", "d"}, res.Schema().Names())
	require.Equal(t, "DECIMAL(5, 2) NOT NULL", res.Schema()[1].Type.String())
	var got []string
	for row := range res.Collect() {
		got = append(got, fmt.Sprint(row[0], " ", row[1], " ", row[2].(time.Time).Format("2006-01-02")))
	}
	require.Equal(t, []string{"3 3.00 2026-12-02", "2 2.00 2026-12-02", "1 1.00 2026-12-02"}, got)

	_, err = env.ExecuteSQL(ctx, "SELECT * FROM missing")
	var ce *core.Error
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "org.apache.calcite.sql.validate.SqlValidatorException: Object 'missing' not found", core.Reason(err))

	res, err = env.ExecuteSQL(ctx, "SET 'execution.runtime-mode' = 'streaming'")
	require.NoError(t, err)
	require.Equal(t, core.Success, res.Kind())
	res, err = env.ExecuteSQL(ctx, "SELECT k, COUNT(*) AS n FROM (VALUES ('a'), ('b'), ('a')) AS t(k) GROUP BY k")
	require.NoError(t, err)
	require.True(t, res.IsStreaming())
	var changes []string
	for kind, row := range res.Changes() {
		changes = append(changes, kind.String()+fmt.Sprint(row))
	}
	require.NoError(t, res.Err())
	require.Equal(t, []string{"+I[a 1]", "+I[b 1]", "-U[a 1]", "+U[a 2]"}, changes)

	_, err = env.SQLQuery("SELECT 1")
	require.ErrorIs(t, err, core.ErrNotSupported)

	require.NoError(t, env.Close())
	_, err = env.ExecuteSQL(ctx, "SELECT 1")
	require.Error(t, err, "a closed session runs nothing")
}

// nexmarkQueries run in batch mode on both engines over the same events
// (q11's legacy SESSION window and q12's processing-time window are not
// supported in Flink's batch mode; q13 reads a side file; q14 calls a
// Java UDF).
var nexmarkQueries = []string{"q2", "q3", "q4", "q5", "q7", "q8", "q9", "q15", "q20"}

// TestNexmarkThroughEndpoint: Nexmark events generated by tablerun into a
// JSON file, then the Nexmark queries (the benchmark's own files, their
// blackhole INSERT turned into a query) over it through --endpoint and
// locally.
func TestNexmarkThroughEndpoint(t *testing.T) {
	c := flinkenv.Require(t)
	dir := t.TempDir()
	events := filepath.Join(dir, "events")
	nx := filepath.Join(root, "internal", "bench", "nexmark")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(nx, name))
		require.NoError(t, err)
		return string(b)
	}
	gen := read("ddl_gen.sql")
	cols := gen[strings.Index(gen, "(")+1 : strings.Index(gen, "`dateTime` AS")]
	cols = strings.TrimSuffix(strings.TrimSpace(cols), ",")
	genScript := strings.NewReplacer("${TPS}", "100", "${EVENTS_NUM}", "3000", "${PERSON_PROPORTION}", "1",
		"${AUCTION_PROPORTION}", "3", "${BID_PROPORTION}", "46").Replace(gen) + ";\n" +
		"SET 'execution.runtime-mode' = 'batch';\n" +
		"CREATE TABLE events (" + cols + ") WITH ('connector' = 'filesystem', 'path' = '" + events + "', 'format' = 'json');\n" +
		"INSERT INTO events SELECT event_type, person, auction, bid FROM datagen;\n"
	r := tablerun(t, genScript, "-f", "-")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	// the same table over the file on both engines, and the views
	ddl := "SET 'execution.runtime-mode' = 'batch';\n" +
		gen[:strings.Index(gen, ") WITH (")] + ") WITH ('connector' = 'filesystem', 'path' = '" + events + "', 'format' = 'json');\n" +
		strings.ReplaceAll(read("ddl_views.sql"), "${NEXMARK_TABLE}", "datagen") + ";\n"
	sinkRE := regexp.MustCompile(`(?s)CREATE TABLE nexmark_q\d+.*?\);`)
	insertRE := regexp.MustCompile(`INSERT INTO nexmark_q\d+\s*`)
	script := ddl
	for _, q := range nexmarkQueries {
		text := insertRE.ReplaceAllString(sinkRE.ReplaceAllString(read(q+".sql"), ""), "")
		script += strings.TrimSuffix(strings.TrimSpace(text), ";") + ";\n"
	}
	compareRuns(t, c, script)
}

// TestPyFlinkUDFFile: one Python file written for PyFlink
// (examples/pyflink/udfs.py: udf, udtf and udaf, a ScalarFunction with
// open, a TableFunction yielding Rows, an AggregateFunction with a Row
// accumulator) gives the same results in tablerun (gpython) and on the
// Flink cluster (CPython workers), registered the same way.
func TestPyFlinkUDFFile(t *testing.T) {
	c := flinkenv.Require(t)
	text, err := os.ReadFile(filepath.Join(root, "examples", "pyflink", "udfs.sql"))
	require.NoError(t, err)
	findings, err := flinkcheck.Check(string(text), flinkcheck.Options{})
	require.NoError(t, err)
	require.Empty(t, findings, "check --flink")
	// streaming: Flink rejects non-pandas Python aggregates in batch mode
	// (tablerun runs them there too)
	compareRunsFinal(t, c, string(text), true)
}

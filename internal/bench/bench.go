// Package bench implements `tablerun bench nexmark`: it runs one Nexmark
// query over a bounded generator in streaming mode, INSERTing into the
// query's blackhole sink, and reports throughput (events/s wall and per
// core of process CPU time), latency p50/p99, peak RSS, Go heap in use,
// operator state size and the statement's elapsed time, the median over
// several runs. The matrix form runs a grid of SET options, prints a
// comparison table and can write an SVG bar chart.
//
// Latency is the processing-time delay from a source batch's ingestion to
// the next result batch reaching the sink, sampled every
// --latency-every-th source batch (see build.RunProbe); event time is not
// used (a bounded run at full speed makes event-time latency
// meaningless). State size is the bytes of the Arrow state every stateful
// operator would checkpoint at the end of the input, summed.
//
// The query files (ddl_gen.sql, ddl_views.sql, qN.sql) are embedded in the
// binary (internal/bench/nexmark, copies of the upstream Nexmark files);
// --queries-dir reads them from another directory instead.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/planner/parser"
	"github.com/tablerun/tablerun/vectorized/build"
)

// Result is the measurement of one configuration: medians over the runs.
type Result struct {
	// Query is the Nexmark query name, such as "q17".
	Query string
	// Options are the SET options of the configuration (key=value, in the
	// order applied).
	Options []string
	// Label names the configuration in tables and charts: the matrix values
	// (last segment of each key), or "" to show Options.
	Label string
	// Events is the number of generated events.
	Events int64
	// Runs is the number of measured runs.
	Runs int
	// Elapsed is the median wall time of the INSERT statement.
	Elapsed time.Duration
	// CPU is the median process CPU time (user + system) of the statement.
	CPU time.Duration
	// EventsPerSec is the median events per wall-clock second.
	EventsPerSec float64
	// EventsPerCoreSec is the median events per second of process CPU time.
	EventsPerCoreSec float64
	// PeakRSSBytes is the process's peak resident set size after the runs.
	PeakRSSBytes int64
	// HeapInUseBytes is the largest Go heap in use (live and unswept heap
	// objects) sampled every 10 ms during the runs.
	HeapInUseBytes uint64
	// LatencyP50 and LatencyP99 are the medians over the runs of each
	// run's 50th and 99th percentile latency (see the package comment).
	LatencyP50, LatencyP99 time.Duration
	// LatencySamples is the number of latency samples of all runs; 0
	// means the latency was not measured.
	LatencySamples int
	// StateBytes is the median over the runs of the summed state size of
	// the operators at the end of the input; -1 when not measured (the
	// runtime did not report it).
	StateBytes int64
	// DiskBytes is the median over the runs of the bytes the disk state
	// backend's stores took at the end of the input (state.backend.type =
	// 'rocksdb'; 0 otherwise).
	DiskBytes int64
}

// Config describes one benchmark invocation.
type Config struct {
	// QueriesDir holds ddl_gen.sql, ddl_views.sql and the qN.sql files;
	// "" means the copy embedded in the binary.
	QueriesDir string
	// Query is the query name ("q17").
	Query string
	// Events is the number of generated events (events.num).
	Events int64
	// Runs is the number of measured runs (the median is reported).
	Runs int
	// Options are SET options applied before the query, in order.
	Options [][2]string
	// LatencyEvery samples the latency of every LatencyEvery-th source
	// batch (<= 0: every batch).
	LatencyEvery int
	// EventsFile, when set, is a file of Events events written by
	// WriteEvents that the query reads (FileScript) instead of the
	// generator.
	EventsFile string
}

// Main runs `tablerun bench <args>` and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "live" {
		return liveMain(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 1 && args[0] == "nexmark" && hasFlag(args[1:], "--vs") {
		return vsFlinkMain(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "tpch" {
		return tpchMain(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "nexmark" {
		fmt.Fprintln(stderr, "usage: tablerun bench nexmark --query qN [--events N] [--runs N] [-D key=value ...] [--matrix 'k=v1,v2;k2=a,b'] [--chart out.svg] [--queries-dir DIR] [--latency-every N] [--cpuprofile FILE]")
		fmt.Fprintln(stderr, "       tablerun bench tpch [--sf 1] [--query qN] [--dir DIR] [--runs N] [--generate-only]")
		fmt.Fprintln(stderr, "       tablerun bench live [--clients "+strings.Join(LiveClients, ",")+"] [--keys 1000,1000000] [--rate 200000] [--duration 10m] [--sample 10s]")
		return 2
	}
	flags := flag.NewFlagSet("tablerun bench nexmark", flag.ContinueOnError)
	flags.SetOutput(stderr)
	query := flags.String("query", "", "Nexmark query name, e.g. q17")
	events := flags.Int64("events", 1_000_000, "number of generated events")
	runs := flags.Int("runs", 3, "measured runs per configuration (median reported)")
	dir := flags.String("queries-dir", "", "directory of the Nexmark SQL files (default: the copy embedded in the binary)")
	matrix := flags.String("matrix", "", "grid of options: 'key=v1,v2;key2=a,b'")
	chart := flags.String("chart", "", "write an SVG bar chart of events/s per core to this file (matrix form)")
	every := flags.Int("latency-every", 1, "sample the latency of every Nth source batch")
	cpuprofile := flags.String("cpuprofile", "", "write a Go CPU profile of the measured runs to this file (go tool pprof)")
	eventsFile := flags.String("events-file", "", "read the events from this file (written by WriteEvents; --events must be its count) instead of the generator")
	asJSON := flags.Bool("json", false, "print each result as one JSON object")
	var defs multiFlag
	flags.Var(&defs, "D", "session option key=value (repeatable)")
	if err := flags.Parse(args[1:]); err != nil {
		return 2
	}
	if *query == "" || *events <= 0 || *runs <= 0 {
		fmt.Fprintln(stderr, "bench nexmark: --query is required; --events and --runs must be positive")
		return 2
	}
	base, err := parseDefs(defs)
	if err != nil {
		fmt.Fprintf(stderr, "bench nexmark: %v\n", err)
		return 2
	}
	grid, err := ParseMatrix(*matrix)
	if err != nil {
		fmt.Fprintf(stderr, "bench nexmark: %v\n", err)
		return 2
	}
	header := stdout
	if *asJSON {
		header = io.Discard
	}
	fmt.Fprintf(header, "nexmark %s: %d events, %d runs, median; GOMAXPROCS=%d; peak RSS is the process's so far; "+
		"latency: source batch ingestion to the next sink batch (processing time, every %d. batch); state: bytes of the operators' checkpointable state at end of input\n",
		*query, *events, *runs, runtime.GOMAXPROCS(0), max(*every, 1))
	if len(grid) > 1 {
		varied := map[string]bool{}
		for _, o := range grid[0] {
			varied[o[0]] = true
		}
		var common [][2]string
		for _, o := range impliedOptions(append(append([][2]string{}, base...), grid[0]...)) {
			if !varied[o[0]] {
				common = append(common, o)
			}
		}
		fmt.Fprintf(stdout, "common options: %s\n", strings.Join(optionStrings(common), " "))
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "bench nexmark: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "bench nexmark: cpu profile: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	var results []Result
	for _, combo := range grid {
		opts := append(append([][2]string{}, base...), combo...)
		opts = impliedOptions(opts)
		res, err := Run(ctx, Config{QueriesDir: *dir, Query: *query, Events: *events, Runs: *runs, Options: opts, LatencyEvery: *every, EventsFile: *eventsFile})
		if err != nil {
			fmt.Fprintf(stderr, "bench nexmark %s %s: %v\n", *query, strings.Join(optionStrings(opts), " "), err)
			return 1
		}
		res.Label = comboLabel(combo)
		results = append(results, res)
		if *asJSON {
			b, _ := json.Marshal(res)
			fmt.Fprintln(stdout, string(b))
			continue
		}
		if len(grid) == 1 {
			fmt.Fprintln(stdout, FormatLine(res))
		}
	}
	if len(grid) > 1 && !*asJSON {
		WriteTable(stdout, results)
	}
	if *chart != "" {
		if err := os.WriteFile(*chart, []byte(RenderSVG(*query, results)), 0o644); err != nil {
			fmt.Fprintf(stderr, "bench nexmark: write chart: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "chart written to %s\n", *chart)
	}
	return 0
}

// multiFlag collects repeated -D flags.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func parseDefs(defs []string) ([][2]string, error) {
	var out [][2]string
	for _, d := range defs {
		k, v, ok := strings.Cut(d, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("-D %q is not key=value", d)
		}
		out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return out, nil
}

// ParseMatrix parses 'key=v1,v2;key2=a,b' into the cartesian product of the
// values, the first key varying slowest. An empty spec gives one empty
// combination.
func ParseMatrix(spec string) ([][][2]string, error) {
	grid := [][][2]string{nil}
	if strings.TrimSpace(spec) == "" {
		return grid, nil
	}
	for _, axis := range strings.Split(spec, ";") {
		axis = strings.TrimSpace(axis)
		if axis == "" {
			continue
		}
		k, vs, ok := strings.Cut(axis, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("matrix axis %q is not key=v1,v2", axis)
		}
		var next [][][2]string
		for _, combo := range grid {
			for _, v := range strings.Split(vs, ",") {
				v = strings.TrimSpace(v)
				if v == "" {
					return nil, fmt.Errorf("matrix axis %q has an empty value", axis)
				}
				c := append(append([][2]string{}, combo...), [2]string{k, v})
				next = append(next, c)
			}
		}
		grid = next
	}
	return grid, nil
}

// comboLabel names a matrix combination by the last segment of each key.
func comboLabel(combo [][2]string) string {
	parts := make([]string, len(combo))
	for i, o := range combo {
		k := o[0]
		if j := strings.LastIndex(k, "."); j >= 0 {
			k = k[j+1:]
		}
		parts[i] = k + "=" + o[1]
	}
	return strings.Join(parts, ", ")
}

// label is the name of r in tables and charts.
func label(r Result) string {
	if r.Label != "" {
		return r.Label
	}
	if len(r.Options) == 0 {
		return "(defaults)"
	}
	return strings.Join(r.Options, " ")
}

// impliedOptions enables mini-batch when a mini-batch key is given without
// table.exec.mini-batch.enabled, and then gives allow-latency a default
// (Flink requires it when mini-batch is on).
func impliedOptions(opts [][2]string) [][2]string {
	has := map[string]bool{}
	mini := false
	for _, o := range opts {
		has[o[0]] = true
		if strings.HasPrefix(o[0], "table.exec.mini-batch.") {
			mini = true
		}
	}
	if mini && !has["table.exec.mini-batch.enabled"] {
		opts = append([][2]string{{"table.exec.mini-batch.enabled", "true"}}, opts...)
		if !has["table.exec.mini-batch.allow-latency"] {
			opts = append(opts, [2]string{"table.exec.mini-batch.allow-latency", "1 s"})
		}
	}
	return opts
}

func optionStrings(opts [][2]string) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o[0] + "=" + o[1]
	}
	return out
}

// Script returns the statements of query q over events generated events
// (dir "" reads the embedded query files):
// the generator DDL, the views and the query file, with the upstream
// runner's placeholders substituted as the repository's Nexmark tests do.
func Script(dir, q string, events int64) ([]string, error) {
	parts, err := readQueryFiles(dir, "ddl_gen.sql", "ddl_views.sql", q+".sql")
	if err != nil {
		return nil, err
	}
	home, err := flinkHome()
	if err != nil {
		return nil, err
	}
	text := strings.NewReplacer(
		"${TPS}", "10000000", "${EVENTS_NUM}", fmt.Sprint(events),
		"${PERSON_PROPORTION}", "1", "${AUCTION_PROPORTION}", "3", "${BID_PROPORTION}", "46",
		"${NEXMARK_TABLE}", "datagen", "${NEXMARK_DIR}", os.TempDir(), "${FLINK_HOME}", home,
	).Replace(strings.Join(parts, ";\n"))
	stmts, err := parser.ParseScript(text)
	if err != nil {
		return nil, fmt.Errorf("parse nexmark script %s: %w", q, err)
	}
	out := make([]string, 0, len(stmts))
	for _, s := range stmts {
		if strings.Contains(s.Text, "'com.github.nexmark.flink.udf.CountChar'") {
			// q14's Java UDF, written in Python (tablerun has no JVM).
			out = append(out, countCharPython)
			continue
		}
		out = append(out, s.Text)
	}
	return out, nil
}

// countCharPython is Nexmark's CountChar UDF (the number of occurrences of
// a character in a string) as an inline Python function.
const countCharPython = `CREATE FUNCTION count_char(s STRING, c STRING) RETURNS INT LANGUAGE PYTHON AS $$
def count_char(s, c):
    if s is None or c is None:
        return None
    return s.count(c)
$$`

func isInsert(stmt string) bool {
	for _, line := range strings.Split(stmt, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		u := strings.ToUpper(t)
		return strings.HasPrefix(u, "INSERT ") || strings.HasPrefix(u, "EXECUTE ")
	}
	return false
}

// Run measures one configuration: cfg.Runs runs of a fresh streaming
// session each, reporting medians.
func Run(ctx context.Context, cfg Config) (Result, error) {
	var stmts []string
	var err error
	if cfg.EventsFile != "" {
		out, err := os.MkdirTemp("", "tablerun-bench-out-")
		if err != nil {
			return Result{}, err
		}
		defer os.RemoveAll(out)
		stmts, err = FileScript(cfg.QueriesDir, cfg.Query, cfg.EventsFile, out)
		if err != nil {
			return Result{}, err
		}
	} else if stmts, err = Script(cfg.QueriesDir, cfg.Query, cfg.Events); err != nil {
		return Result{}, err
	}
	res := Result{Query: cfg.Query, Options: optionStrings(cfg.Options), Events: cfg.Events, Runs: cfg.Runs, StateBytes: -1}
	var walls, cpus, p50s, p99s, states, disks []time.Duration
	for range cfg.Runs {
		probe := build.NewRunProbe(cfg.LatencyEvery)
		stop := sampleHeap()
		wall, cpu, err := runOnce(build.WithRunProbe(ctx, probe), stmts, cfg.Options)
		peak := stop()
		if err != nil {
			return Result{}, err
		}
		// Measuring the state (snapshots at the end) is not the query's
		// work; it runs on one goroutine, so it is CPU time too.
		wall -= min(probe.Overhead(), wall/2)
		cpu -= min(probe.Overhead(), cpu/2)
		walls = append(walls, wall)
		cpus = append(cpus, cpu)
		res.HeapInUseBytes = max(res.HeapInUseBytes, peak)
		if lat := probe.Latencies(); len(lat) > 0 {
			res.LatencySamples += len(lat)
			p50s = append(p50s, percentile(lat, 50))
			p99s = append(p99s, percentile(lat, 99))
		}
		if probe.Hooked() {
			// A byte count as a Duration, to reuse median.
			states = append(states, time.Duration(probe.StateBytes()))
			disks = append(disks, time.Duration(probe.DiskBytes()))
		}
	}
	res.Elapsed = median(walls)
	res.CPU = median(cpus)
	res.LatencyP50 = median(p50s)
	res.LatencyP99 = median(p99s)
	if len(states) > 0 {
		res.StateBytes = int64(median(states))
		res.DiskBytes = int64(median(disks))
	}
	if res.Elapsed > 0 {
		res.EventsPerSec = float64(cfg.Events) / res.Elapsed.Seconds()
	}
	if res.CPU > 0 {
		res.EventsPerCoreSec = float64(cfg.Events) / res.CPU.Seconds()
	}
	res.PeakRSSBytes = peakRSS()
	return res, nil
}

// runOnce sets up a streaming session, applies the options and the DDL,
// and times the INSERT statements.
func runOnce(ctx context.Context, stmts []string, opts [][2]string) (wall, cpu time.Duration, err error) {
	e := core.NewTableEnvironment(core.InStreamingMode())
	e.SetOutput(io.Discard, io.Discard)
	for _, o := range opts {
		stmt := fmt.Sprintf("SET '%s' = '%s'", strings.ReplaceAll(o[0], "'", "''"), strings.ReplaceAll(o[1], "'", "''"))
		if _, err := e.ExecuteSQL(ctx, stmt); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	inserts := 0
	for _, s := range stmts {
		if !isInsert(s) {
			if _, err := e.ExecuteSQL(ctx, s); err != nil {
				return 0, 0, fmt.Errorf("setup statement: %w", err)
			}
			continue
		}
		inserts++
		runtime.GC()
		c0 := cpuTime()
		t0 := time.Now()
		if _, err := e.ExecuteSQL(ctx, s); err != nil {
			return 0, 0, fmt.Errorf("query: %w", err)
		}
		wall += time.Since(t0)
		cpu += cpuTime() - c0
	}
	if inserts == 0 {
		return 0, 0, errors.New("the query file has no INSERT statement")
	}
	return wall, cpu, nil
}

// percentile returns the p-th percentile (nearest rank) of sorted
// durations; 0 for none.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// FormatLine prints one result on a line.
func FormatLine(r Result) string {
	opts := label(r)
	return fmt.Sprintf("%s %s: %.0f events/s, %.0f events/s/core, latency p50 %s p99 %s (%d samples), elapsed %s, cpu %s, peak RSS %s, heap in use %s, state %s",
		r.Query, opts, r.EventsPerSec, r.EventsPerCoreSec, latencyString(r, r.LatencyP50), latencyString(r, r.LatencyP99), r.LatencySamples,
		r.Elapsed.Round(time.Millisecond), r.CPU.Round(time.Millisecond), mib(int64(r.PeakRSSBytes)), mib(int64(r.HeapInUseBytes)), stateString(r))
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// latencyString prints a latency figure, "n/a" when not measured.
func latencyString(r Result, d time.Duration) string {
	if r.LatencySamples == 0 {
		return "n/a"
	}
	return formatLatency(d)
}

// formatLatency rounds a latency for display.
func formatLatency(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// stateString prints the state size, "n/a" when not measured.
func stateString(r Result) string {
	if r.StateBytes < 0 {
		return "n/a"
	}
	st := mib(r.StateBytes)
	if r.StateBytes < 1<<20 {
		st = fmt.Sprintf("%.1f KiB", float64(r.StateBytes)/(1<<10))
	}
	if r.DiskBytes > 0 {
		st += " (on disk " + mib(r.DiskBytes) + ")"
	}
	return st
}

// WriteTable prints a comparison table of results, with each
// configuration's events/s per core relative to the first.
func WriteTable(w io.Writer, rs []Result) {
	header := []string{"options", "events/s", "events/s/core", "vs first", "p50", "p99", "elapsed", "cpu", "peak RSS", "heap", "state"}
	rows := [][]string{header}
	for _, r := range rs {
		rel := "-"
		if rs[0].EventsPerCoreSec > 0 {
			rel = fmt.Sprintf("%.2fx", r.EventsPerCoreSec/rs[0].EventsPerCoreSec)
		}
		opts := label(r)
		rows = append(rows, []string{opts, fmt.Sprintf("%.0f", r.EventsPerSec), fmt.Sprintf("%.0f", r.EventsPerCoreSec), rel,
			latencyString(r, r.LatencyP50), latencyString(r, r.LatencyP99),
			r.Elapsed.Round(time.Millisecond).String(), r.CPU.Round(time.Millisecond).String(),
			mib(r.PeakRSSBytes), mib(int64(r.HeapInUseBytes)), stateString(r)})
	}
	widths := make([]int, len(header))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	sep := "+"
	for _, wd := range widths {
		sep += strings.Repeat("-", wd+2) + "+"
	}
	fmt.Fprintln(w, sep)
	for i, row := range rows {
		line := "|"
		for j, c := range row {
			if j == 0 {
				line += " " + c + strings.Repeat(" ", widths[j]-len(c)) + " |"
			} else {
				line += " " + strings.Repeat(" ", widths[j]-len(c)) + c + " |"
			}
		}
		fmt.Fprintln(w, line)
		if i == 0 {
			fmt.Fprintln(w, sep)
		}
	}
	fmt.Fprintln(w, sep)
}

// flinkHome returns the directory that stands for ${FLINK_HOME}: its
// data/side_input.txt is q13's side input, written as upstream's
// SideInputGenerator does (10,000 lines "i,i").
func flinkHome() (string, error) {
	home := filepath.Join(os.TempDir(), "tablerun-nexmark-home")
	file := filepath.Join(home, "data", "side_input.txt")
	if _, err := os.Stat(file); err == nil {
		return home, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", fmt.Errorf("nexmark side input: %w", err)
	}
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return "", fmt.Errorf("nexmark side input: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return "", fmt.Errorf("nexmark side input: %w", err)
	}
	return home, nil
}

// readQueryFiles reads Nexmark query files of dir (the embedded ones when
// dir is empty), in order.
func readQueryFiles(dir string, files ...string) ([]string, error) {
	parts := make([]string, 0, len(files))
	for _, f := range files {
		b, err := fs.ReadFile(queryFiles(dir), f)
		if err != nil {
			return nil, fmt.Errorf("read nexmark query file: %w", err)
		}
		parts = append(parts, string(b))
	}
	return parts, nil
}

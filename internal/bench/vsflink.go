package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tablerun/tablerun/flinkgw"
	"github.com/tablerun/tablerun/internal/flinkenv"
)

// `tablerun bench nexmark --vs flink`: the same Nexmark query over the
// same events (a JSON file written once by WriteEvents, read by both
// through the same filesystem table) on tablerun and on a real Apache
// Flink, each pinned to the same cores with taskset, both engines' CPU
// time measured:
//
//   - tablerun: this binary again (`bench nexmark --events-file … --json`)
//     under `taskset -c CPUS`, at table.exec.resource.default-parallelism
//     P; its CPU time is the process's (getrusage) around the INSERT,
//     planning included;
//   - Flink: a session cluster of its own (internal/flinkenv) whose one
//     TaskManager has P slots and is pinned (`taskset -a -p`) to the same
//     cores, the job at parallelism.default P; its CPU time is the
//     TaskManager process's (utime + stime of /proc/PID/stat) around the
//     INSERT (table.dml-sync: the statement ends with the job), so task
//     deployment and code generation count, the JobManager's and the SQL
//     Gateway's planning do not.
//
// Rounds interleave the engines query by query. Events per second of CPU
// time ("per core") is events / CPU seconds.

// vsResult is one engine's measurements of one query.
type vsResult struct {
	cpu, wall []time.Duration
	err       string
}

func (r *vsResult) perCore(events int64) []float64 {
	var out []float64
	for _, c := range r.cpu {
		if c > 0 {
			out = append(out, float64(events)/c.Seconds())
		}
	}
	sort.Float64s(out)
	return out
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

func vsFlinkMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tablerun bench nexmark --vs flink", flag.ContinueOnError)
	fs.SetOutput(stderr)
	vs := fs.String("vs", "", "the engine to compare with: flink")
	queries := fs.String("queries", "q0,q1,q2,q3,q4,q5,q7,q8,q9,q10,q11,q12,q13,q14,q15,q16,q17,q18,q19,q20,q21,q22", "Nexmark queries, comma-separated")
	events := fs.Int64("events", 200_000, "events in the file")
	rounds := fs.Int("rounds", 3, "interleaved rounds")
	pars := fs.String("parallelism", "1,2", "parallelisms to measure, comma-separated")
	cpus := fs.String("cpus", "1;0,1", "taskset CPU lists, one per parallelism, ';'-separated")
	dir := fs.String("dir", filepath.Join(os.TempDir(), "tablerun-vsflink"), "where the events file goes (reused when present)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *vs != "flink" {
		fmt.Fprintln(stderr, "bench nexmark: --vs takes flink")
		return 2
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		fmt.Fprintln(stderr, "bench nexmark --vs flink: taskset (util-linux) is needed")
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "bench nexmark --vs flink:", err)
		return 1
	}
	spec := EventsSpec{Events: *events, TPS: 10_000_000}
	path := filepath.Join(*dir, fmt.Sprintf("events-%d-%d.json", spec.Events, spec.TPS))
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "writing %d events to %s …\n", spec.Events, path)
		if path, err = WriteEvents(ctx, "", *dir, spec); err != nil {
			fmt.Fprintln(stderr, "bench nexmark --vs flink:", err)
			return 1
		}
	}
	qs := strings.Split(*queries, ",")
	cpuLists := strings.Split(*cpus, ";")
	for i, ps := range strings.Split(*pars, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(ps))
		if err != nil || p < 1 || i >= len(cpuLists) {
			fmt.Fprintln(stderr, "bench nexmark --vs flink: --parallelism and --cpus do not match")
			return 2
		}
		ours, theirs, load, err := vsRun(ctx, self, path, spec.Events, qs, p, cpuLists[i], *rounds, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "bench nexmark --vs flink:", err)
			return 1
		}
		fmt.Fprintf(stdout, "\nparallelism %d, taskset -c %s, %d events (%s), %d rounds; load average before/after: %s\n\n",
			p, cpuLists[i], spec.Events, filepath.Base(path), *rounds, load)
		fmt.Fprintln(stdout, "| query | tablerun events/s per core (median, range) | Flink events/s per core (median, range) | tablerun ÷ Flink | tablerun wall s | Flink wall s |")
		fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
		for _, q := range qs {
			o, f := ours[q], theirs[q]
			oc, fc := o.perCore(spec.Events), f.perCore(spec.Events)
			ratio := "–"
			if len(oc) > 0 && len(fc) > 0 {
				ratio = fmt.Sprintf("%.2f", medianF(oc)/medianF(fc))
			}
			fmt.Fprintf(stdout, "| %s | %s | %s | %s | %s | %s |\n", q, rangeCell(oc, o.err), rangeCell(fc, f.err), ratio, wallCell(o), wallCell(f))
		}
	}
	return 0
}

func medianF(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

func rangeCell(xs []float64, errText string) string {
	if len(xs) == 0 {
		if errText == "" {
			errText = "no run"
		}
		return "fails: " + errText
	}
	return fmt.Sprintf("%s (%s–%s)", kilo(medianF(xs)), kilo(xs[0]), kilo(xs[len(xs)-1]))
}

func wallCell(r *vsResult) string {
	if len(r.wall) == 0 {
		return "–"
	}
	ws := append([]time.Duration(nil), r.wall...)
	sort.Slice(ws, func(i, j int) bool { return ws[i] < ws[j] })
	return fmt.Sprintf("%.2f", ws[len(ws)/2].Seconds())
}

func kilo(x float64) string {
	if x >= 1e6 {
		return fmt.Sprintf("%.2f M", x/1e6)
	}
	return fmt.Sprintf("%.0f k", x/1e3)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// vsRun measures the queries at parallelism p on both engines.
func vsRun(ctx context.Context, self, path string, events int64, qs []string, p int, cpus string, rounds int, log io.Writer) (ours, theirs map[string]*vsResult, load string, err error) {
	load = loadAvg()
	fmt.Fprintf(log, "starting Flink %s (1 TaskManager, %d slot(s), pinned to CPUs %s) …\n", flinkenv.Version, p, cpus)
	c, err := flinkenv.Start(ctx, flinkenv.Options{Slots: p, TaskManagerMemory: "2048m",
		Extra: map[string]string{"parallelism.default": fmt.Sprint(p)}})
	if err != nil {
		return nil, nil, "", err
	}
	defer c.Stop()
	tm, err := c.TaskManagerPID()
	if err != nil {
		return nil, nil, "", err
	}
	if out, err := exec.CommandContext(ctx, "taskset", "-a", "-p", "-c", cpus, fmt.Sprint(tm)).CombinedOutput(); err != nil {
		return nil, nil, "", fmt.Errorf("taskset the TaskManager: %v: %s", err, out)
	}
	gw := flinkgw.New(c.GatewayURL)
	ours, theirs = map[string]*vsResult{}, map[string]*vsResult{}
	for _, q := range qs {
		ours[q], theirs[q] = &vsResult{}, &vsResult{}
	}
	out, err := os.MkdirTemp("", "tablerun-vsflink-out-")
	if err != nil {
		return nil, nil, "", err
	}
	defer os.RemoveAll(out)
	for r := 1; r <= rounds; r++ {
		for _, q := range qs {
			fmt.Fprintf(log, "round %d/%d %s p=%d: tablerun", r, rounds, q, p)
			if cpu, wall, err := runTablerunPinned(ctx, self, path, events, q, p, cpus); err != nil {
				ours[q].err = firstLineOf(err.Error())
				fmt.Fprintf(log, " fails (%s)", ours[q].err)
			} else {
				ours[q].cpu, ours[q].wall = append(ours[q].cpu, cpu), append(ours[q].wall, wall)
				fmt.Fprintf(log, " %.2fs cpu", cpu.Seconds())
			}
			if theirs[q].err != "" {
				fmt.Fprintln(log, ", Flink skipped (failed before)")
				continue
			}
			fmt.Fprint(log, ", Flink")
			if cpu, wall, err := runFlinkQuery(ctx, gw, tm, path, filepath.Join(out, q), q, p); err != nil {
				theirs[q].err = firstLineOf(err.Error())
				fmt.Fprintf(log, " fails (%s)\n", theirs[q].err)
			} else {
				theirs[q].cpu, theirs[q].wall = append(theirs[q].cpu, cpu), append(theirs[q].wall, wall)
				fmt.Fprintf(log, " %.2fs cpu\n", cpu.Seconds())
			}
		}
	}
	return ours, theirs, load + " / " + loadAvg(), nil
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// runTablerunPinned runs one measured run of q in a child process pinned
// to cpus and returns its CPU and wall time.
func runTablerunPinned(ctx context.Context, self, path string, events int64, q string, p int, cpus string) (cpu, wall time.Duration, err error) {
	cmd := exec.CommandContext(ctx, "taskset", "-c", cpus, self, "bench", "nexmark", "--query", q,
		"--events", fmt.Sprint(events), "--events-file", path, "--runs", "1", "--json",
		"-D", fmt.Sprintf("table.exec.resource.default-parallelism=%d", p))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var r Result
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Query == q {
			return r.CPU, r.Elapsed, nil
		}
	}
	return 0, 0, fmt.Errorf("no result from %s", strings.Join(cmd.Args, " "))
}

// runFlinkQuery runs q's statements in a new session of the gateway and
// measures the TaskManager's CPU time around the INSERT.
func runFlinkQuery(ctx context.Context, gw *flinkgw.Client, tm int, path, out, q string, p int) (cpu, wall time.Duration, err error) {
	stmts, err := FileScript("", q, path, out)
	if err != nil {
		return 0, 0, err
	}
	sess, err := gw.OpenSession(ctx, "tablerun-bench", map[string]string{
		"execution.runtime-mode": "streaming", "table.dml-sync": "true", "parallelism.default": fmt.Sprint(p),
	})
	if err != nil {
		return 0, 0, err
	}
	defer sess.Close(context.WithoutCancel(ctx))
	run := func(s string) error {
		op, err := sess.Execute(ctx, s, nil)
		if err != nil {
			return err
		}
		defer op.Close(context.WithoutCancel(ctx))
		_, err = op.FetchAll(ctx, 100)
		return err
	}
	inserts := 0
	for _, s := range stmts {
		if !isInsert(s) {
			if err := run(s); err != nil {
				return 0, 0, err
			}
			continue
		}
		inserts++
		c0, err := procCPU(tm)
		if err != nil {
			return 0, 0, err
		}
		t0 := time.Now()
		if err := run(s); err != nil {
			return 0, 0, err
		}
		wall += time.Since(t0)
		c1, err := procCPU(tm)
		if err != nil {
			return 0, 0, err
		}
		cpu += c1 - c0
	}
	if inserts == 0 {
		return 0, 0, fmt.Errorf("%s has no INSERT", q)
	}
	return cpu, wall, nil
}

// procCPU is the user + system CPU time of a process (all its threads),
// from /proc/PID/stat, in clock ticks of 10 ms (USER_HZ is 100 on
// Linux).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// the command name (field 2) is in parentheses and may hold spaces
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:])
	// after the name: state(3) … utime(14) stime(15)
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/internal/kernel"
	"github.com/tablerun/tablerun/internal/shell"
)

// LiveClients are the client paths `tablerun bench live` watches an
// unbounded query through: the tableau printer (tablerun -f/-e, the
// shell's tableau and changelog modes), the script formats, the Go API's
// iterator (Changes) and materializing view (Materialize), the shell's
// live table mode (WatchTable) and the kernel's live display
// (WatchStream). "blackhole" INSERTs the same query into a blackhole sink:
// the engine and its state without any client, the reference the others
// are compared with.
var LiveClients = []string{"blackhole", "tableau", "csv", "json", "arrow", "changes", "view", "table", "kernel"}

// LiveConfig is one run of the live benchmark.
type LiveConfig struct {
	Client   string
	Keys     int           // distinct GROUP BY keys
	Rate     int           // rows per second of the datagen source
	Duration time.Duration // how long the query is watched
	Sample   time.Duration // RSS sampling interval
}

// LiveResult is what one run measured.
type LiveResult struct {
	Config LiveConfig
	// FirstRow is the time from the statement's start to the first change
	// the client wrote (or published); 0 for blackhole.
	FirstRow time.Duration
	// RSS and Heap are samples every Config.Sample (resident set size of
	// the process, Go heap in use after the sample's GC), in bytes.
	RSS, Heap []int64
	Changes   int64 // changes the client received (rows read, for blackhole)
	Elapsed   time.Duration
	// CPU is the process's user + system time during the run: with
	// Elapsed, how much of the machine the path got (a loaded machine
	// starves it) and what it costs.
	CPU time.Duration
	// Gaps are the times between consecutive redraws of the live views
	// (table, kernel) after the first one, sorted: how long a change can
	// wait before it is shown. Empty for the other paths.
	Gaps []time.Duration
}

// liveMain runs `tablerun bench live`: every client of --clients for every
// key count of --keys, each in a child process of its own (so that one
// path's memory does not pollute the next one's RSS), printing one line
// per run.
func liveMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("tablerun bench live", flag.ContinueOnError)
	flags.SetOutput(stderr)
	clients := flags.String("clients", strings.Join(LiveClients, ","), "client paths to watch, comma-separated: "+strings.Join(LiveClients, ", "))
	keys := flags.String("keys", "1000,1000000", "distinct GROUP BY keys, comma-separated")
	rate := flags.Int("rate", 200000, "rows per second of the unbounded datagen source")
	duration := flags.Duration("duration", 10*time.Minute, "how long each path watches the query")
	sample := flags.Duration("sample", 10*time.Second, "RSS sampling interval")
	parallel := flags.Int("parallel", 1, "paths run at the same time, each in its own process (to fit the runs into less wall time)")
	child := flags.Bool("child", false, "run one path in this process (internal)")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *rate <= 0 || *duration <= 0 || *sample <= 0 || *parallel <= 0 {
		fmt.Fprintln(stderr, "bench live: --rate, --duration, --sample and --parallel must be positive")
		return 2
	}
	var keyCounts []int
	for _, k := range strings.Split(*keys, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(k))
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "bench live: bad --keys value %q\n", k)
			return 2
		}
		keyCounts = append(keyCounts, n)
	}
	names := strings.Split(*clients, ",")
	for _, c := range names {
		if !validClient(c) {
			fmt.Fprintf(stderr, "bench live: unknown client %q (expected %s)\n", c, strings.Join(LiveClients, ", "))
			return 2
		}
	}
	if *child {
		res, err := RunLive(ctx, LiveConfig{Client: names[0], Keys: keyCounts[0], Rate: *rate, Duration: *duration, Sample: *sample})
		if err != nil {
			fmt.Fprintf(stderr, "bench live: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, FormatLive(res))
		return 0
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "bench live: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "bench live: SELECT k, SUM(v) FROM g GROUP BY k over datagen at %d rows/s, each path %s in its own process, %d at a time; GOMAXPROCS=%d; "+
		"first row = statement start to the first change the client wrote; RSS (MB) every %s; heap = Go heap in use after GC (MB)\n",
		*rate, *duration, *parallel, runtime.GOMAXPROCS(0), *sample)
	var (
		mu   sync.Mutex // one child's line at a time
		code atomic.Int32
		wg   sync.WaitGroup
		sem  = make(chan struct{}, *parallel)
	)
	for _, k := range keyCounts {
		for _, c := range names {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				cmd := exec.CommandContext(ctx, exe, "bench", "live", "--child", "--clients", c, "--keys", strconv.Itoa(k),
					"--rate", strconv.Itoa(*rate), "--duration", duration.String(), "--sample", sample.String())
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				err := cmd.Run()
				mu.Lock()
				defer mu.Unlock()
				_, _ = stdout.Write(out.Bytes())
				_, _ = stderr.Write(errOut.Bytes())
				if err != nil {
					fmt.Fprintf(stderr, "bench live %s keys=%d: %v\n", c, k, err)
					code.Store(1)
				}
			}()
		}
	}
	wg.Wait()
	return int(code.Load())
}

func validClient(c string) bool {
	for _, x := range LiveClients {
		if c == x {
			return true
		}
	}
	return false
}

// firstWrite is a writer that discards what it gets and records when a
// write first contains a change (found by isRow).
type firstWrite struct {
	start time.Time
	first atomic.Int64 // nanoseconds after start; 0: none yet
	isRow func([]byte) bool
	each  func([]byte) // when set, called with every write
	// last and gaps time the redraws of a live view (see redraw).
	last time.Time
	gaps []time.Duration
}

func (w *firstWrite) Write(p []byte) (int, error) {
	if w.each != nil {
		w.each(p)
	}
	if w.first.Load() == 0 && w.isRow(p) {
		w.first.Store(int64(max(time.Since(w.start), 1)))
	}
	return len(p), nil
}

// redraw records a redraw of a live view that shows rows; called from
// one goroutine.
func (w *firstWrite) redraw() {
	now := time.Now()
	if !w.last.IsZero() {
		w.gaps = append(w.gaps, now.Sub(w.last))
	}
	w.last = now
}

func (w *firstWrite) mark() {
	if w.first.Load() == 0 {
		w.first.Store(int64(max(time.Since(w.start), 1)))
	}
}

// RunLive runs one path: it starts the unbounded query, watches it through
// the client for cfg.Duration, sampling RSS, then cancels it.
func RunLive(ctx context.Context, cfg LiveConfig) (LiveResult, error) {
	env := core.NewTableEnvironment(core.InStreamingMode())
	ddl := fmt.Sprintf("CREATE TABLE g (k INT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '%d', "+
		"'fields.k.min' = '1', 'fields.k.max' = '%d', 'fields.v.min' = '1', 'fields.v.max' = '1000')", cfg.Rate, cfg.Keys)
	if _, err := env.ExecuteSQL(ctx, ddl); err != nil {
		return LiveResult{}, err
	}
	const query = "SELECT k, SUM(v) AS s FROM g GROUP BY k"
	out := LiveResult{Config: cfg}
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	var wg sync.WaitGroup
	stopSampling := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(cfg.Sample)
		defer t.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-t.C:
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				out.RSS = append(out.RSS, currentRSS())
				out.Heap = append(out.Heap, int64(ms.HeapInuse))
			}
		}
	}()
	start, cpu0 := time.Now(), cpuTime()
	w := &firstWrite{start: start}
	var err error
	if cfg.Client == "blackhole" {
		if _, err = env.ExecuteSQL(ctx, "CREATE TABLE bh (k INT, s BIGINT) WITH ('connector' = 'blackhole')"); err == nil {
			_, err = env.ExecuteSQL(runCtx, "INSERT INTO bh "+query)
		}
	} else {
		var res *core.TableResult
		res, err = env.ExecuteSQL(runCtx, query)
		if err == nil {
			out.Changes, err = watch(runCtx, cfg, res, w)
			_ = res.Close()
		}
	}
	out.Elapsed, out.CPU = time.Since(start), cpuTime()-cpu0
	close(stopSampling)
	wg.Wait()
	if err != nil && !core.IsCanceled(err) && !errors.Is(err, context.DeadlineExceeded) {
		return out, err
	}
	out.FirstRow = time.Duration(w.first.Load())
	out.Gaps = w.gaps
	slices.Sort(out.Gaps)
	return out, nil
}

// watch reads res through the client cfg.Client until runCtx ends and
// returns the number of changes it received.
func watch(runCtx context.Context, cfg LiveConfig, res *core.TableResult, w *firstWrite) (int64, error) {
	var n atomic.Int64
	plus := []byte("+I")
	switch cfg.Client {
	case "tableau", "csv", "json", "arrow":
		w.isRow = func(p []byte) bool { return bytes.Contains(p, plus) }
		if cfg.Client == "arrow" {
			w.isRow = func([]byte) bool { return true } // the first flush carries the first batch
		}
		// count the changes on the way: a line per change for the text
		// formats; the arrow path counts nothing (see FormatLive)
		cw := &lineCounter{w: w, n: &n}
		var err error
		go func() { <-runCtx.Done(); _ = res.Close() }()
		if cfg.Client == "tableau" {
			err = core.PrintClientResult(cw, nil, res, nil)
		} else {
			err = shell.WriteResult(cw, res, cfg.Client)
		}
		return n.Load(), err
	case "changes":
		go func() { <-runCtx.Done(); _ = res.Close() }()
		for range res.Changes() {
			if n.Add(1) == 1 {
				w.mark()
			}
		}
		return n.Load(), res.Err()
	case "view":
		go func() { <-runCtx.Done(); _ = res.Close() }()
		var last int64
		for v := range res.Materialize(1_000_000) {
			if v.Len() > 0 {
				w.mark()
			}
			last = v.Changes()
		}
		return last, res.Err()
	case "table":
		empty := []byte("Running: 0 changes")
		w.isRow = func(p []byte) bool { return !bytes.Contains(p, empty) }
		w.each = func(p []byte) {
			if !bytes.Contains(p, empty) {
				w.redraw() // WatchTable draws with one write
			}
		}
		view, err := shell.WatchTable(runCtx, w, res, 1_000_000, 40, 30)
		return view.Changes(), err
	case "kernel":
		var updates atomic.Int64
		_, err := kernel.WatchStream(runCtx, res, 1_000_000, func(first bool, data map[string]string) {
			if strings.Contains(data["text/plain"], "Empty set") {
				return
			}
			w.mark()
			w.redraw()
			updates.Add(1)
		})
		return updates.Load(), err
	}
	return 0, fmt.Errorf("unknown client %q", cfg.Client)
}

// lineCounter counts the lines written through it (one per change in the
// tableau, csv and json outputs, less their header lines).
type lineCounter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n.Add(int64(bytes.Count(p, []byte{'\n'})))
	return c.w.Write(p)
}

// currentRSS is the process's resident set size now, in bytes (Linux:
// /proc/self/statm; 0 elsewhere).
func currentRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// FormatLive prints one run as a line.
func FormatLive(r LiveResult) string {
	mb := func(xs []int64) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = strconv.FormatInt(x>>20, 10)
		}
		return strings.Join(s, " ")
	}
	first := "-"
	if r.FirstRow > 0 {
		first = r.FirstRow.Round(time.Millisecond).String()
	}
	unit := "changes"
	switch r.Config.Client {
	case "kernel":
		unit = "display updates"
	case "arrow", "blackhole":
		unit = "(not counted)"
	case "tableau", "csv", "json":
		unit = "lines"
	}
	count := strconv.FormatInt(r.Changes, 10) + " " + unit
	if unit == "(not counted)" {
		count = unit
	}
	gap := ""
	if n := len(r.Gaps); n > 0 {
		at := func(q float64) string { return r.Gaps[min(n-1, int(q*float64(n)))].Round(time.Millisecond).String() }
		gap = fmt.Sprintf(" (between redraws: median %s, p99 %s, max %s)", at(0.5), at(0.99), r.Gaps[n-1].Round(time.Millisecond))
	}
	return fmt.Sprintf("%-9s keys=%-7d first row %-6s %s%s in %s, CPU %s | RSS MB: %s | heap MB: %s",
		r.Config.Client, r.Config.Keys, first, count, gap, r.Elapsed.Round(time.Second), r.CPU.Round(100*time.Millisecond), mb(r.RSS), mb(r.Heap))
}

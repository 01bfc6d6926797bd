// Package faulttest kills tablerun with SIGKILL while it runs a
// checkpointed streaming job and checks that restarting from the latest
// checkpoint yields exactly the committed output of a crash-free run.
package faulttest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const nexmarkDir = "../../../shared/nexmark/queries"

// events is the length of the bounded Nexmark run: about a second of work.
const events = 2_000_000

// buildBinary compiles cmd/tablerun once for the test.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tablerun")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "github.com/tablerun/tablerun/cmd/tablerun")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// jobScript returns a streaming job over the Nexmark generator: a
// TUMBLE window aggregation of the bids (Nexmark's upstream DDL and
// views) written by the exactly-once filesystem sink, checkpointed every
// 100 ms; restore names the checkpoint directory to start from ("" for a
// fresh start).
func jobScript(t *testing.T, out, chk, restore string) string {
	t.Helper()
	return jobScriptWith(t, out, chk, restore, "")
}

// jobScriptWith is jobScript with extra SET statements and, when insert is
// not "", another INSERT INTO out1.
func jobScriptWith(t *testing.T, out, chk, restore, insert string, sets ...string) string {
	t.Helper()
	var parts []string
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql"} {
		b, err := os.ReadFile(filepath.Join(nexmarkDir, f))
		if err != nil {
			t.Skipf("nexmark queries not available: %v", err)
		}
		parts = append(parts, string(b))
	}
	ddl := strings.NewReplacer("${TPS}", "10000", "${EVENTS_NUM}", fmt.Sprint(events),
		"${PERSON_PROPORTION}", "1", "${AUCTION_PROPORTION}", "3", "${BID_PROPORTION}", "46",
		"${NEXMARK_TABLE}", "datagen").Replace(strings.Join(parts, ";\n"))
	var b strings.Builder
	fmt.Fprintf(&b, "SET 'execution.checkpointing.interval' = '100 ms';\n")
	fmt.Fprintf(&b, "SET 'execution.checkpointing.dir' = '%s';\n", chk)
	fmt.Fprintf(&b, "SET 'execution.checkpointing.num-retained' = '3';\n")
	if restore != "" {
		fmt.Fprintf(&b, "SET 'execution.savepoint.path' = '%s';\n", restore)
	}
	for _, set := range sets {
		b.WriteString(set + ";\n")
	}
	b.WriteString(ddl + ";\n")
	fmt.Fprintf(&b, "CREATE TABLE out1 (auction BIGINT, wstart TIMESTAMP(3), cnt BIGINT, total BIGINT, maxprice BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');\n", out)
	if insert == "" {
		insert = jobInsert
	}
	b.WriteString(insert + ";\n")
	return b.String()
}

const jobInsert = "INSERT INTO out1 SELECT auction, window_start, COUNT(*), SUM(price), MAX(price) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end"

// latestID returns the highest id of a completed checkpoint under chk (0
// for none).
func latestID(chk string) int64 {
	var best int64
	for _, c := range checkpoints(chk) {
		var id int64
		if _, err := fmt.Sscanf(filepath.Base(c), "chk-%d", &id); err == nil && id > best {
			best = id
		}
	}
	return best
}

// runUntil waits for cmd to exit or, when after > 0, for after more
// checkpoints than the latest one at the start to complete, then kills it
// with SIGKILL (at a random moment within the next checkpoint interval).
// Kills follow the job's progress, not the clock, so a loaded machine
// slows the job and its kills alike.
func runUntil(cmd *exec.Cmd, done <-chan error, chk string, after int, rng *rand.Rand) (err error, killed bool) {
	if after <= 0 {
		return <-done, false
	}
	target := latestID(chk) + int64(after)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err, false
		case <-tick.C:
			if latestID(chk) < target {
				continue
			}
			time.Sleep(time.Duration(rng.Int64N(int64(100 * time.Millisecond))))
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
			return nil, true
		}
	}
}

// committed returns the sorted lines of the visible part files of dir.
func committed(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var lines []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	sort.Strings(lines)
	return lines
}

// start runs the script in a new process.
func start(t *testing.T, bin, script string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "job.sql")
	require.NoError(t, os.WriteFile(f, []byte(script), 0o644))
	cmd := exec.Command(bin, "-f", f)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	return cmd, &stderr
}

// checkpoints returns the completed checkpoint directories under chk,
// newest last.
func checkpoints(chk string) []string {
	ms, _ := filepath.Glob(filepath.Join(chk, "*", "chk-*", "_metadata"))
	// The running job removes old checkpoints meanwhile: stat each once
	// and leave out those already gone.
	type cp struct {
		dir string
		at  time.Time
	}
	var cps []cp
	for _, m := range ms {
		if fi, err := os.Stat(m); err == nil {
			cps = append(cps, cp{filepath.Dir(m), fi.ModTime()})
		}
	}
	sort.SliceStable(cps, func(i, j int) bool { return cps[i].at.Before(cps[j].at) })
	out := make([]string, len(cps))
	for i, c := range cps {
		out[i] = c.dir
	}
	return out
}

// corruptLatest flips a byte in the largest state file of the newest
// completed checkpoint, unless that would leave no valid checkpoint to
// fall back to, and returns the checkpoint the restarted job must skip
// ("" for none).
func corruptLatest(t *testing.T, chk string, corrupted map[string]bool) string {
	t.Helper()
	cps := checkpoints(chk)
	if len(cps) == 0 {
		return ""
	}
	latest := cps[len(cps)-1]
	if corrupted[latest] {
		return latest // still the newest: skipped again
	}
	valid := 0
	for _, c := range cps {
		if !corrupted[c] {
			valid++
		}
	}
	if valid < 2 {
		return ""
	}
	if len(corrupted)%2 == 1 {
		// Every other time, one flipped byte in an operator id of
		// _metadata: its checksum must catch it.
		name := filepath.Join(latest, "_metadata")
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		i := strings.Index(string(b), `"operator": "`)
		if i < 0 {
			return ""
		}
		b[i+len(`"operator": "`)] ^= 0x01
		require.NoError(t, os.WriteFile(name, b, 0o644))
		corrupted[latest] = true
		return latest
	}
	files, _ := filepath.Glob(filepath.Join(latest, "*.state"))
	var big string
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			big, size = f, st.Size()
		}
	}
	if big == "" {
		return ""
	}
	b, err := os.ReadFile(big)
	require.NoError(t, err)
	b[len(b)/2] ^= 0xff
	require.NoError(t, os.WriteFile(big, b, 0o644))
	corrupted[latest] = true
	return latest
}

// crashRound runs the job to completion, killing it with SIGKILL after
// random delays up to maxKills times and restarting it from its latest
// checkpoint; it returns the kills made. With corrupt, the newest
// checkpoint is corrupted before restarts, and the restarted job must
// report that it skipped it.
func crashRound(t *testing.T, bin string, rng *rand.Rand, maxKills int, corrupt bool, want []string, perRun int64, sets ...string) (kills, skips int) {
	dir := t.TempDir()
	out, chk := filepath.Join(dir, "out"), filepath.Join(dir, "chk")
	corrupted := map[string]bool{}
	restore, bad := "", ""
	for run := 0; ; run++ {
		require.Less(t, run, 200, "the job makes no progress")
		cmd, log := start(t, bin, jobScriptWith(t, out, chk, restore, "", sets...))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		after := 0
		if kills < maxKills {
			// kill after 1 to 60 % of the checkpoints a crash-free run
			// completes
			after = 1 + rng.IntN(int(max(1, perRun*6/10)))
		}
		err, killed := runUntil(cmd, done, chk, after, rng)
		exited := !killed
		if killed {
			kills++
		}
		if bad != "" {
			require.Regexp(t, "Skipping (corrupt )?checkpoint "+regexp.QuoteMeta(bad)+":", log.String(), "the restart must skip the corrupted checkpoint")
			skips++
		}
		if exited {
			require.NoError(t, err, "job failed:\n%s", log)
			break
		}
		restore, bad = "", ""
		if len(checkpoints(chk)) > 0 {
			restore = chk
			if corrupt {
				bad = corruptLatest(t, chk, corrupted)
			}
		}
	}
	require.Equal(t, want, committed(t, out), "committed output after %d kills", kills)
	return kills, skips
}

// referenceRun runs the job once without a crash (heap state) and returns
// its committed output and the checkpoints it completed: kills land after
// 1 to 60 % of them, so that most runs die before they finish however fast
// or loaded the machine is.
func referenceRun(t *testing.T, bin string) (want []string, perRun int64) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ref")
	cmd, log := start(t, bin, jobScript(t, out, filepath.Join(dir, "chk"), ""))
	require.NoError(t, cmd.Wait(), "%s", log)
	perRun = latestID(filepath.Join(dir, "chk"))
	require.Positive(t, perRun, "the crash-free run completed no checkpoint")
	want = committed(t, out)
	require.Greater(t, len(want), 10_000)
	return want, perRun
}

// TestKillNineExactlyOnce is the fault test of checkpointing: at least
// 20 SIGKILLs at random moments, each followed by a restart from the
// latest checkpoint, and the committed output is identical to a crash-free
// run: nothing lost, nothing duplicated. A second part corrupts the newest
// checkpoint before restarts: the job falls back to the previous one, and
// the output is still identical.
func TestKillNineExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: kills and restarts a process many times")
	}
	bin := buildBinary(t)
	want, perRun := referenceRun(t, bin)

	seed := time.Now().UnixNano()
	t.Logf("seed %d, %d result rows, crash-free run: %d checkpoints", seed, len(want), perRun)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	total := 0
	for round := 0; total < 20; round++ {
		require.Less(t, round, 40)
		k, _ := crashRound(t, bin, rng, 20-total, false, want, perRun)
		t.Logf("round %d: %d kills, output identical", round, k)
		total += k
	}
	skipped := 0
	for round := 0; skipped < 3; round++ {
		require.Less(t, round, 40)
		k, s := crashRound(t, bin, rng, 8, true, want, perRun)
		t.Logf("corrupting round %d: %d kills, %d restarts past a corrupted checkpoint, output identical", round, k, s)
		skipped += s
	}
}

// TestKillNineExactlyOnceRocksDB is the fault test with the window
// aggregation's state in the disk backend (state.backend.type 'rocksdb',
// incremental checkpoints of its SST files): 8 SIGKILLs and restarts, then
// restarts past a corrupted newest checkpoint, and the committed output is
// the crash-free output of the heap backend, row for row.
func TestKillNineExactlyOnceRocksDB(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: kills and restarts a process many times")
	}
	bin := buildBinary(t)
	want, perRun := referenceRun(t, bin)
	// a killed process leaves its stores' working directories behind:
	// they go with the test's own
	sets := []string{"SET 'state.backend.type' = 'rocksdb'", fmt.Sprintf("SET 'io.tmp.dirs' = '%s'", t.TempDir())}
	seed := time.Now().UnixNano()
	t.Logf("seed %d, %d result rows, crash-free run (hashmap): %d checkpoints", seed, len(want), perRun)
	rng := rand.New(rand.NewPCG(uint64(seed), 11))
	total := 0
	for round := 0; total < 8; round++ {
		require.Less(t, round, 20)
		k, _ := crashRound(t, bin, rng, 8-total, false, want, perRun, sets...)
		t.Logf("round %d: %d kills, output identical", round, k)
		total += k
	}
	skipped := 0
	for round := 0; skipped < 2; round++ {
		require.Less(t, round, 20)
		k, s := crashRound(t, bin, rng, 4, true, want, perRun, sets...)
		t.Logf("corrupting round %d: %d kills, %d restarts past a corrupted checkpoint, output identical", round, k, s)
		skipped += s
	}
}

// TestRestoreIntoChangedPlan kills the job after some checkpoints and
// restarts it with a changed INSERT: one without the window aggregation
// (its operator removed) and one with a filter before it (the operators
// after the new one get other ids: renamed). Both restarts must fail
// naming the unclaimed operators, and run when
// execution.savepoint.ignore-unclaimed-state is true.
func TestRestoreIntoChangedPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: kills and restarts a process")
	}
	bin := buildBinary(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	changed := map[string]string{
		"removed": "INSERT INTO out1 SELECT auction, dateTime, bidder, price, price FROM bid",
		"renamed": "INSERT INTO out1 SELECT auction, window_start, COUNT(*), SUM(price), MAX(price) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end UNION ALL SELECT auction, dateTime, bidder, price, price FROM bid WHERE price < 0",
	}
	for name, insert := range changed {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out, chk := filepath.Join(dir, "out"), filepath.Join(dir, "chk")
			cmd, log := start(t, bin, jobScript(t, out, chk, ""))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			err, killed := runUntil(cmd, done, chk, 2, rng)
			require.NoError(t, err, "%s", log)
			if !killed {
				t.Skip("the job finished before two checkpoints")
			}
			cmd, log = start(t, bin, jobScriptWith(t, out, chk, chk, insert))
			err = cmd.Wait()
			require.Error(t, err, "a restore that drops state must fail:\n%s", log)
			require.Contains(t, log.String(), "Cannot map checkpoint/savepoint state for operator ")
			require.Contains(t, log.String(), "WindowAggregate")
			cmd, log = start(t, bin, jobScriptWith(t, out, chk, chk, insert, "SET 'execution.savepoint.ignore-unclaimed-state' = 'true'"))
			require.NoError(t, cmd.Wait(), "%s", log)
		})
	}
}

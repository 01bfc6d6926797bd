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
	b.WriteString(ddl + ";\n")
	fmt.Fprintf(&b, "CREATE TABLE out1 (auction BIGINT, wstart TIMESTAMP(3), cnt BIGINT, total BIGINT, maxprice BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');\n", out)
	b.WriteString("INSERT INTO out1 SELECT auction, window_start, COUNT(*), SUM(price), MAX(price) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end;\n")
	return b.String()
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
	sort.Slice(ms, func(i, j int) bool {
		a, _ := os.Stat(ms[i])
		b, _ := os.Stat(ms[j])
		return a.ModTime().Before(b.ModTime())
	})
	for i, m := range ms {
		ms[i] = filepath.Dir(m)
	}
	return ms
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
func crashRound(t *testing.T, bin string, rng *rand.Rand, maxKills int, corrupt bool, want []string, span time.Duration) (kills, skips int) {
	dir := t.TempDir()
	out, chk := filepath.Join(dir, "out"), filepath.Join(dir, "chk")
	corrupted := map[string]bool{}
	restore, bad := "", ""
	for run := 0; ; run++ {
		require.Less(t, run, 200, "the job makes no progress")
		cmd, log := start(t, bin, jobScript(t, out, chk, restore))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		exited := true
		if kills < maxKills {
			select {
			case err = <-done:
			case <-time.After(span*15/100 + time.Duration(rng.Int64N(int64(span)*55/100))):
				_ = cmd.Process.Signal(syscall.SIGKILL)
				<-done
				kills++
				exited = false
			}
		} else {
			err = <-done
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
	dir := t.TempDir()
	out := filepath.Join(dir, "ref")
	began := time.Now()
	cmd, log := start(t, bin, jobScript(t, out, filepath.Join(dir, "chk"), ""))
	require.NoError(t, cmd.Wait(), "%s", log)
	// kills land at 15-70 % of a crash-free run's duration, so that most
	// runs die before they finish however fast the engine is
	span := max(time.Since(began), 200*time.Millisecond)
	want := committed(t, out)
	require.Greater(t, len(want), 10_000)

	seed := time.Now().UnixNano()
	t.Logf("seed %d, %d result rows, crash-free run %v", seed, len(want), span)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	total := 0
	for round := 0; total < 20; round++ {
		require.Less(t, round, 20)
		k, _ := crashRound(t, bin, rng, 20-total, false, want, span)
		t.Logf("round %d: %d kills, output identical", round, k)
		total += k
	}
	skipped := 0
	for round := 0; skipped < 3; round++ {
		require.Less(t, round, 20)
		k, s := crashRound(t, bin, rng, 8, true, want, span)
		t.Logf("corrupting round %d: %d kills, %d restarts past a corrupted checkpoint, output identical", round, k, s)
		skipped += s
	}
}

package core

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The tests that stop a running job (STOP JOB, with or without a
// savepoint) stop it on the job's progress, not after a fixed sleep: under
// load a sleep is too short (nothing checkpointed or committed yet) or too
// long (the job already ended). The stopped runs also read their sources
// more slowly than the reference runs (throttled), so that the job is
// still running when the condition holds.

// waitUntil polls cond every few milliseconds, failing after two minutes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited two minutes for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// jobProgressed reports whether the environment's only job is running,
// has completed at least n checkpoints and, when out is not "", has
// committed output there.
func jobProgressed(t *testing.T, env *TableEnvironment, n int, out string) func() bool {
	return func() bool {
		jobs := env.Jobs()
		require.Len(t, jobs, 1)
		require.Equal(t, JobRunning, jobs[0].Status, "the job ended before it made the progress waited for")
		if jobs[0].Checkpoints.Completed < n {
			return false
		}
		return out == "" || committedLines(out) > 0
	}
}

// committedLines counts the lines of the visible files in dir (0 when it
// does not exist yet).
func committedLines(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil {
			n += strings.Count(string(b), "\n")
		}
	}
	return n
}

// throttled returns stmts with a datagen rate changed from one value to
// another (the rate is not part of a source's checkpointed position).
func throttled(stmts []string, from, to string) []string {
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = strings.ReplaceAll(s, "'rows-per-second' = '"+from+"'", "'rows-per-second' = '"+to+"'")
	}
	return out
}

// requireSameLines compares CSV lines field by field; DOUBLE fields (with a
// '.' or an exponent) may differ in their last bits: a restore at another
// parallelism adds the same values in another order.
func requireSameLines(t *testing.T, want, got []string) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		if want[i] == got[i] {
			continue
		}
		wf, gf := strings.Split(want[i], ","), strings.Split(got[i], ",")
		require.Len(t, gf, len(wf), "line %d: %s vs %s", i, want[i], got[i])
		for j := range wf {
			if wf[j] == gf[j] {
				continue
			}
			w, err1 := strconv.ParseFloat(wf[j], 64)
			g, err2 := strconv.ParseFloat(gf[j], 64)
			isFloat := strings.ContainsAny(wf[j], ".eE")
			require.True(t, err1 == nil && err2 == nil && isFloat, "line %d: %s vs %s", i, want[i], got[i])
			require.InEpsilon(t, w, g, 1e-12, "line %d: %s vs %s", i, want[i], got[i])
		}
	}
}

package shell

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// progressRe matches the live progress line on the screen.
var progressRe = regexp.MustCompile(`\[RUNNING\] ([0-9,]+) rows read \| [0-9.]+[kMG]? rows/s \| [0-9.a-z]+ elapsed`)

// TestProgressLineUnderTmux runs a long statement in a real terminal: the
// progress line shows on a single screen line that updates in place with a
// growing row count, and it is gone once the statement ends (here:
// cancelled with Ctrl-C).
func TestProgressLineUnderTmux(t *testing.T) {
	needTmux(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	hist := filepath.Join(t.TempDir(), "history")
	s := &tmuxSession{t: t, socket: fmt.Sprintf("tablerun-progress-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := fmt.Sprintf("env %s=1 TABLERUN_SHELL_TEST_HISTORY=%s TERM=xterm %s -test.run=^$ ; echo SHELL-EXITED $? ; sleep 30", helperEnv, hist, exe)
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "sh", "-x", "120", "-y", "40", cmd)
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", s.socket, "kill-server").Run()
	})
	s.waitFor("Flink SQL>", 1)

	s.typeLine("SET 'sql-client.execution.result-mode' = 'tableau';")
	s.waitFor("[INFO] Execute statement succeeded.", 1)
	// A quick statement shows no progress line.
	s.typeLine("SELECT 'quick' AS q;")
	require.NotContains(t, s.waitFor("| quick |", 1), "[RUNNING]")

	s.typeLine("CREATE TABLE big (x BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000000000');")
	s.waitFor("[INFO] Execute statement succeeded.", 2)
	s.typeLine("SELECT COUNT(*) FROM big;")
	first := progressRe.FindStringSubmatch(s.waitFor("rows read", 1))
	require.NotNil(t, first, "no progress line:\n%s", s.screen())
	// The line updates in place: later captures show one line with a
	// larger count.
	deadline := time.Now().Add(10 * time.Second)
	for {
		scr := s.screen()
		require.Equal(t, 1, strings.Count(scr, "[RUNNING]"), "the progress line is not redrawn in place:\n%s", scr)
		if m := progressRe.FindStringSubmatch(scr); m != nil && m[1] != first[1] {
			require.Contains(t, scr, "Flink SQL> SELECT COUNT(*) FROM big;\n"+m[0])
			break
		}
		require.True(t, time.Now().Before(deadline), "the row count does not grow:\n%s", scr)
		time.Sleep(100 * time.Millisecond)
	}

	// Ctrl-C ends the statement; the progress line is erased.
	for !strings.Contains(s.screen(), "[INFO] Query canceled.") {
		require.True(t, time.Now().Before(deadline), "Ctrl-C did not cancel the statement:\n%s", s.screen())
		s.tmux("send-keys", "-t", "sh", "C-c")
		time.Sleep(200 * time.Millisecond)
	}
	scr := s.screen()
	require.NotContains(t, scr, "[RUNNING]")
	require.Contains(t, scr, "Flink SQL> SELECT COUNT(*) FROM big;\n[INFO] Query canceled.")

	s.typeLine("QUIT;")
	s.waitFor("SHELL-EXITED 0", 1)
}

package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

// helperEnv makes the test binary run the shell on its terminal instead of
// the tests (see TestMain): the tmux scenario drives the real line editor.
const helperEnv = "TABLERUN_SHELL_TEST_MAIN"

// TestMain runs the shell as a program when helperEnv is set, with the
// history file named by TABLERUN_SHELL_TEST_HISTORY.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		env := core.NewTableEnvironment(core.InBatchMode().WithOption("sql-client.display.print-time-cost", "false"))
		err := Run(context.Background(), env, os.Stdin, os.Stdout, Options{HistoryFile: os.Getenv("TABLERUN_SHELL_TEST_HISTORY")})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// tmuxSession is one shell running in a private tmux server.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	require.NoError(s.t, err, "tmux %v: %s", args, out)
	return string(out)
}

// typeLine types text and presses Enter.
func (s *tmuxSession) typeLine(text string) {
	s.t.Helper()
	// tmux takes an argument ending in ';' as a command separator.
	if strings.HasSuffix(text, ";") {
		text = strings.TrimSuffix(text, ";") + `\;`
	}
	s.tmux("send-keys", "-t", "sh", "-l", text)
	s.tmux("send-keys", "-t", "sh", "Enter")
}

// screen returns the visible pane.
func (s *tmuxSession) screen() string {
	return s.tmux("capture-pane", "-p", "-t", "sh")
}

// waitFor waits until the pane shows want (counted occurrences >= n).
func (s *tmuxSession) waitFor(want string, n int) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.screen()
		if strings.Count(scr, want) >= n {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen does not show %q (%d times):\n%s", want, n, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestShellUnderTmux drives the shell as a person does: it types a
// multi-line statement into a real terminal (tmux), cancels a long query
// with Ctrl-C, pages through a result in table mode, recalls history with
// the Up key and quits; the history file keeps the statements.
func TestShellUnderTmux(t *testing.T) {
	needTmux(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	hist := filepath.Join(dir, "history")
	s := &tmuxSession{t: t, socket: fmt.Sprintf("tablerun-shell-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := fmt.Sprintf("env %s=1 TABLERUN_SHELL_TEST_HISTORY=%s TERM=xterm %s -test.run=^$ ; echo SHELL-EXITED $? ; sleep 30", helperEnv, hist, exe)
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "sh", "-x", "120", "-y", "40", cmd)
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", s.socket, "kill-server").Run()
	})

	s.waitFor("Flink SQL>", 1)
	require.Contains(t, s.screen(), "Welcome! Enter 'HELP;'")

	// A statement over three lines: continuation prompts, then the table.
	s.typeLine("SELECT 1 + 1 AS two,")
	s.waitFor("\n>\n", 1)
	s.typeLine("  'a;b' AS s")
	s.typeLine(";")
	scr := s.waitFor("1 row in set", 1)
	require.Contains(t, scr, "| two |   s |")
	require.Contains(t, scr, "|   2 | a;b |")

	// Ctrl-C cancels a long query and the shell goes on.
	s.typeLine("SET 'sql-client.execution.result-mode' = 'tableau';")
	s.waitFor("[INFO] Execute statement succeeded.", 1)
	s.typeLine("CREATE TABLE big (x BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000000000');")
	s.waitFor("[INFO] Execute statement succeeded.", 2)
	s.typeLine("SELECT COUNT(*) FROM big;")
	s.waitFor("Flink SQL> SELECT COUNT(*) FROM big;", 1)
	// Ctrl-C until the statement is cancelled (one that arrives before the
	// statement starts is dropped).
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(s.screen(), "[INFO] Query canceled.") {
		require.True(t, time.Now().Before(deadline), "Ctrl-C did not cancel the statement:\n%s", s.screen())
		s.tmux("send-keys", "-t", "sh", "C-c")
		time.Sleep(200 * time.Millisecond)
	}
	s.typeLine("SELECT 'still here' AS msg;")
	s.waitFor("still here |", 1)

	// Table mode pages a long result; q closes the view.
	s.tmux("send-keys", "-t", "sh", "C-l")
	s.typeLine("SET 'sql-client.execution.result-mode' = 'table';")
	s.typeLine("CREATE TABLE seq (x BIGINT) WITH ('connector' = 'datagen', 'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '100');")
	s.waitFor("[INFO] Execute statement succeeded.", 2)
	s.typeLine("SELECT x, x * 10 AS y FROM seq;")
	scr = s.waitFor("Page 1/", 1)
	require.Contains(t, scr, "rows 1-34 of 100")
	s.tmux("send-keys", "-t", "sh", "Space")
	scr = s.waitFor("Page 2/", 1)
	require.Contains(t, scr, "|  35 |  350 |")
	s.tmux("send-keys", "-t", "sh", "q")
	s.waitFor("100 rows in set (table view closed)", 1)

	// A streaming query in table mode: the materialized view updates in
	// place, then pages when the job ends.
	s.tmux("send-keys", "-t", "sh", "C-l")
	s.typeLine("SET 'execution.runtime-mode' = 'streaming';")
	s.typeLine("SELECT x % 3 AS k, COUNT(*) AS c FROM seq GROUP BY x % 3;")
	scr = s.waitFor("Finished after", 1)
	require.Contains(t, scr, "| 0 | 33 |")
	require.Contains(t, scr, "| 1 | 34 |")
	s.tmux("send-keys", "-t", "sh", "q")
	s.waitFor("3 rows in set (", 1)
	s.typeLine("SET 'execution.runtime-mode' = 'batch';")

	// Up recalls the previous statement starting with what was typed.
	s.tmux("send-keys", "-t", "sh", "C-l")
	s.tmux("send-keys", "-t", "sh", "-l", "SELECT x,")
	s.tmux("send-keys", "-t", "sh", "Up")
	s.waitFor("Flink SQL> SELECT x, x * 10 AS y FROM seq;", 1)
	s.tmux("send-keys", "-t", "sh", "C-c")

	s.typeLine("QUIT;")
	s.waitFor("Shutting down the session...", 1)
	s.waitFor("SHELL-EXITED 0", 1)
	data, err := os.ReadFile(hist)
	require.NoError(t, err)
	require.Contains(t, string(data), "SELECT 1 + 1 AS two, 'a;b' AS s ;")
	require.Contains(t, string(data), "SELECT COUNT(*) FROM big;")
}

// TestUnboundedUnderTmux watches an unbounded streaming GROUP BY in each
// result mode in a real terminal: rows appear while the query still runs,
// the live table never shows a group missing (a -U drawn without its +U),
// and Ctrl-C ends the query with "[INFO] Query canceled." and the shell
// goes on.
func TestUnboundedUnderTmux(t *testing.T) {
	needTmux(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("tablerun-unbounded-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := fmt.Sprintf("env %s=1 TABLERUN_SHELL_TEST_HISTORY=- TERM=xterm %s -test.run=^$ ; echo SHELL-EXITED $? ; sleep 30", helperEnv, exe)
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "sh", "-x", "120", "-y", "40", cmd)
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", s.socket, "kill-server").Run()
	})
	s.waitFor("Flink SQL>", 1)
	s.typeLine("SET 'execution.runtime-mode' = 'streaming';")
	s.typeLine("CREATE TABLE g (k INT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000', 'fields.k.min' = '1', 'fields.k.max' = '10', 'fields.v.min' = '1', 'fields.v.max' = '9');")
	s.waitFor("[INFO] Execute statement succeeded.", 2)
	ctrlC := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(s.screen(), want) {
			require.True(t, time.Now().Before(deadline), "Ctrl-C did not cancel the query:\n%s", s.screen())
			s.tmux("send-keys", "-t", "sh", "C-c")
			time.Sleep(300 * time.Millisecond)
		}
	}
	// still reports whether the query is still running: its end leaves
	// these on the screen
	running := func(scr string) bool {
		return !strings.Contains(scr, "Query terminated") && !strings.Contains(scr, "[INFO] Query canceled.")
	}

	for _, mode := range []string{"tableau", "changelog"} {
		s.tmux("send-keys", "-t", "sh", "C-l")
		s.typeLine("SET 'sql-client.execution.result-mode' = '" + mode + "';")
		s.waitFor("[INFO] Execute statement succeeded.", 1)
		s.typeLine("SELECT k, SUM(v) AS s FROM g GROUP BY k;")
		// the changes scroll by while the query runs
		scr := s.waitFor("| +U |", 5)
		require.True(t, running(scr), "%s: the query ended by itself:\n%s", mode, scr)
		time.Sleep(300 * time.Millisecond)
		later := s.screen()
		require.True(t, running(later))
		require.NotEqual(t, scr, later, "%s: the screen does not move", mode)
		ctrlC("[INFO] Query canceled.")
		scr = s.screen()
		require.Contains(t, scr, "Query terminated, received a total of ")
		require.NotContains(t, scr, "java.")
		s.typeLine("SELECT 'still here' AS msg;")
		s.waitFor("still here", 2)
	}

	// table mode: the view updates in place and always holds the 10 groups
	s.tmux("send-keys", "-t", "sh", "C-l")
	s.typeLine("SET 'sql-client.execution.result-mode' = 'table';")
	s.waitFor("[INFO] Execute statement succeeded.", 1)
	s.typeLine("SELECT k, SUM(v) AS s FROM g GROUP BY k;")
	s.waitFor("10 rows in set", 1)
	changes := regexp.MustCompile(`Running: (\d+) changes, (\d+) rows? in set`)
	var counts []string
	for i := 0; i < 15; i++ {
		scr := s.screen()
		m := changes.FindStringSubmatch(scr)
		require.NotNil(t, m, "no live status line:\n%s", scr)
		require.Equal(t, "10", m[2], "a group is missing from the live view:\n%s", scr)
		counts = append(counts, m[1])
		time.Sleep(100 * time.Millisecond)
	}
	require.NotEqual(t, counts[0], counts[len(counts)-1], "the live view does not update: %v", counts)
	ctrlC("Canceled after")
	s.tmux("send-keys", "-t", "sh", "q")
	scr := s.waitFor("[INFO] Query canceled.", 1)
	require.Contains(t, scr, "10 rows in set (")
	s.typeLine("SET 'sql-client.execution.result-mode' = 'tableau';")
	s.typeLine("SELECT 'still here' AS msg;")
	s.waitFor("still here", 2)
	s.typeLine("QUIT;")
	s.waitFor("SHELL-EXITED 0", 1)
}

// needTmux skips a terminal scenario where tmux is missing, and fails it
// under CI=true (.ci/run installs tmux: a skip there would hide it).
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed under CI=true: .ci/run installs it (apt-get install tmux)")
		}
		t.Skip("tmux is not installed (apt-get install tmux): the terminal scenario is not tested")
	}
}

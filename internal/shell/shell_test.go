package shell

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

func TestComplete(t *testing.T) {
	cases := []struct {
		input string
		want  bool
	}{
		{"", true},
		{"  \n", true},
		{"SELECT 1;\n", true},
		{"SELECT 1\n", false},
		{"SELECT 1;  -- trailing comment\n", true},
		{"SELECT ';'\n", false},
		{"SELECT 'a;\nb';\n", true},
		{"SELECT 'a;\n", false},
		{"SELECT 1 /* ; */\n", false},
		{"SELECT 1 /* unterminated ;\n", false},
		{"SELECT `a;b` FROM t;\n", true},
		{"-- only a comment\n", true},
		{"SELECT 1; SELECT 2\n", false},
		{"SELECT 1; SELECT 2;\n", true},
		{"BEGIN STATEMENT SET;\n", true},
		{"EXECUTE STATEMENT SET BEGIN\nINSERT INTO t VALUES (1);\n", false},
		{"EXECUTE STATEMENT SET BEGIN\nINSERT INTO t VALUES (1);\nEND;\n", true},
	}
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			require.Equal(t, c.want, complete(c.input))
		})
	}
}

func TestClientCommand(t *testing.T) {
	cases := []struct {
		in   string
		want command
	}{
		{"help", cmdHelp}, {" HELP ", cmdHelp}, {"quit", cmdQuit}, {"Exit", cmdQuit},
		{"clear", cmdClear}, {"SELECT 1", cmdNone}, {"helpme", cmdNone},
	}
	for _, c := range cases {
		require.Equal(t, c.want, clientCommand(c.in), c.in)
	}
}

// newTestSession returns a session reading input, with a settable
// interrupt channel.
func newTestSession(input io.Reader, mode string) (*session, *bytes.Buffer, chan os.Signal) {
	settings := core.InBatchMode().WithOption("sql-client.display.print-time-cost", "false")
	if mode != "" {
		settings = settings.WithOption("sql-client.execution.result-mode", mode)
	}
	env := core.NewTableEnvironment(settings)
	var out bytes.Buffer
	env.SetOutput(&out, &out)
	sigs := make(chan os.Signal, 1)
	return &session{env: env, out: &out, rd: newPlainReader(input), interrupts: sigs}, &out, sigs
}

func TestSessionTranscripts(t *testing.T) {
	cases := []struct {
		name  string
		mode  string
		input string
		want  string
	}{
		{
			name:  "multi-line query",
			mode:  "tableau",
			input: "SELECT 1 +\n 1 AS two,\n 'a;b' AS s;\n",
			want: "+-----+-----+\n| two |   s |\n+-----+-----+\n|   2 | a;b |\n+-----+-----+\n" +
				"1 row in set\n\n",
		},
		{
			name:  "two statements on one line",
			mode:  "tableau",
			input: "CREATE TABLE t (a INT) WITH ('connector' = 'values'); SELECT * FROM t;\n",
			want:  "[INFO] Execute statement succeeded.\n\nEmpty set\n\n",
		},
		{
			name:  "error goes on",
			mode:  "tableau",
			input: "SELECT * FROM missing;\nSELECT 7 AS x;\n",
			want: "[ERROR] Could not execute SQL statement. Reason:\n" +
				"org.apache.calcite.sql.validate.SqlValidatorException: Object 'missing' not found within 'default_catalog.default_database'\n" +
				"From line 1, column 15 to line 1, column 21:\nSELECT * FROM missing;\n              ^^^^^^^\n\n" +
				"+---+\n| x |\n+---+\n| 7 |\n+---+\n1 row in set\n\n",
		},
		{
			name:  "caret and hint under the second statement of an input",
			mode:  "tableau",
			input: "CREATE TABLE t (amount INT) WITH ('connector' = 'values');\nSELECT 1,\n  amuont FROM t;\n",
			want: "[INFO] Execute statement succeeded.\n\n" +
				"[ERROR] Could not execute SQL statement. Reason:\n" +
				"org.apache.calcite.sql.validate.SqlValidatorException: Column 'amuont' not found in any table\n" +
				"From line 2, column 3 to line 2, column 8:\n  amuont FROM t;\n  ^^^^^^\nDid you mean 'amount'?\n\n",
		},
		{
			name:  "help",
			input: "HELP;\n",
			want:  HelpText + "\n",
		},
		{
			name:  "quit stops reading",
			mode:  "tableau",
			input: "QUIT;\nSELECT 1;\n",
			want:  "",
		},
		{
			name:  "changelog mode has an op column",
			mode:  "changelog",
			input: "SELECT * FROM (VALUES (1, 'x'), (2, CAST(NULL AS STRING))) AS v(a, b);\n",
			want: "+----+---+--------+\n| op | a |      b |\n+----+---+--------+\n| +I | 1 |      x |\n| +I | 2 | <NULL> |\n+----+---+--------+\n" +
				"2 rows in set\n\n",
		},
		{
			name:  "table mode without a terminal prints tableau",
			mode:  "table",
			input: "SELECT 3 AS c;\n",
			want:  "+---+\n| c |\n+---+\n| 3 |\n+---+\n1 row in set\n\n",
		},
		{
			name:  "set result mode in the session",
			mode:  "tableau",
			input: "SET 'sql-client.execution.result-mode' = 'changelog';\nSELECT 1 AS a;\n",
			want:  "[INFO] Execute statement succeeded.\n\n+----+---+\n| op | a |\n+----+---+\n| +I | 1 |\n+----+---+\n1 row in set\n\n",
		},
		{
			name:  "a piped script's last statement needs no semicolon",
			mode:  "tableau",
			input: "SELECT 1",
			want:  "+--------+\n| EXPR$0 |\n+--------+\n|      1 |\n+--------+\n1 row in set\n\n",
		},
		{
			name:  "parse error position in a multi-line statement",
			mode:  "tableau",
			input: "SELECT 1,\n  FROM;\n",
			want:  "[ERROR] Could not execute SQL statement. Reason:\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, out, _ := newTestSession(strings.NewReader(c.input), c.mode)
			require.NoError(t, s.loop(context.Background()))
			if strings.HasSuffix(c.want, "Reason:\n") {
				require.True(t, strings.HasPrefix(out.String(), c.want), out.String())
				return
			}
			require.Equal(t, c.want, out.String())
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestInterruptCancelsStatement(t *testing.T) {
	pr, pw := io.Pipe()
	s, _, sigs := newTestSession(pr, "tableau")
	out := &syncBuffer{}
	s.out = out
	running := make(chan struct{})
	s.started = func(text string) {
		if strings.HasPrefix(text, "SELECT COUNT(*)") {
			close(running)
		}
	}
	done := make(chan error, 1)
	go func() { done <- s.loop(context.Background()) }()
	_, err := io.WriteString(pw, "CREATE TABLE big (x BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000000000');\n"+
		"SELECT COUNT(*) FROM big;\n")
	require.NoError(t, err)
	<-running
	sigs <- os.Interrupt
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "[INFO] Query canceled.") {
		require.True(t, time.Now().Before(deadline), "the statement was not cancelled:\n%s", out.String())
		time.Sleep(20 * time.Millisecond)
	}
	// The shell goes on after the cancellation.
	_, err = io.WriteString(pw, "SELECT 5 AS five;\n")
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the shell did not end")
	}
	require.Contains(t, out.String(), "| five |")
}

func TestCompletions(t *testing.T) {
	env := core.NewTableEnvironment(core.InBatchMode())
	_, err := env.ExecuteSQL(context.Background(), "CREATE TABLE orders (order_id BIGINT, amount DOUBLE) WITH ('connector' = 'values')")
	require.NoError(t, err)
	cases := []struct {
		text    string
		cursor  int
		want    []string
		notWant []string
		start   int
	}{
		{text: "SEL", cursor: 3, want: []string{"SELECT"}, start: 0},
		{text: "sel", cursor: 3, want: []string{"select"}, start: 0},
		{text: "SELECT * FROM ord", cursor: 17, want: []string{"orders"}, start: 14},
		{text: "SELECT UPP", cursor: 10, want: []string{"UPPER"}, start: 7},
		{text: "SELECT orders.am", cursor: 16, want: []string{"amount"}, notWant: []string{"order_id"}, start: 14},
		{text: "SELECT ord FROM orders", cursor: 10, want: []string{"order_id", "orders"}, start: 7},
		{text: "SELECT ", cursor: 7, want: nil, start: 7},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			got, start, end := Completions(env, c.text, c.cursor)
			for _, w := range c.want {
				require.Contains(t, got, w)
			}
			for _, w := range c.notWant {
				require.NotContains(t, got, w)
			}
			if c.want == nil {
				require.Empty(t, got)
			}
			require.Equal(t, c.start, start)
			require.Equal(t, c.cursor, end)
		})
	}
}

func TestInspect(t *testing.T) {
	env := core.NewTableEnvironment(core.InBatchMode())
	_, err := env.ExecuteSQL(context.Background(), "CREATE TABLE orders (order_id BIGINT, amount DOUBLE) WITH ('connector' = 'values')")
	require.NoError(t, err)
	res, _, ok := Inspect(env, "SELECT * FROM orders", 16)
	require.True(t, ok)
	var b bytes.Buffer
	require.NoError(t, res.Print(&b))
	require.Contains(t, b.String(), "order_id")
	_, doc, ok := Inspect(env, "SELECT UPPER(x)", 9)
	require.True(t, ok)
	require.Contains(t, doc, "UPPER")
	_, _, ok = Inspect(env, "SELECT nothing_here", 10)
	require.False(t, ok)
}

func TestGridLines(t *testing.T) {
	g := Grid{Header: []string{"a", "long"}, Rows: [][]string{{"1", "x"}, {"22", "abcdefgh"}}}
	require.Equal(t, []string{
		"+----+-------+",
		"|  a |  long |",
		"+----+-------+",
		"| 22 | ab... |",
		"+----+-------+",
	}, g.Lines(1, 2, 5))
}

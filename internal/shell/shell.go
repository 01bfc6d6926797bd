// Package shell is tablerun's interactive SQL client, modelled on Flink's:
// the `Flink SQL> ` prompt, statements that span lines up to a ';' outside
// strings, quoted identifiers and comments (continuation prompt `> `; the
// splitting is parser.ParseScript's), line editing, tab completion and a
// persistent history (~/.tablerun_history, github.com/peterh/liner) when
// the input is a terminal, the client commands HELP, QUIT/EXIT and CLEAR,
// and the result modes of sql-client.execution.result-mode:
//
//   - tableau prints results as `tablerun -f` does;
//   - changelog prints the tableau layout with Flink's leading "op" column
//     (+I for every row of a batch result);
//   - table (Flink's default) pages through a result that does not fit on
//     the terminal (Space/Enter: next page, b: previous, q: quit the view);
//     on a non-terminal output it prints the tableau layout.
//
// A streaming query's changelog prints as it arrives, as Flink's tableau
// mode does; in the table mode on a terminal its materialized view updates
// in place instead, then pages when the job ends. While a statement runs on
// a terminal, a live progress line shows the rows its sources read so far,
// rows/s and the elapsed time; it is erased when the result prints.
// Ctrl-C while a statement runs (or while a streaming result prints)
// cancels it and the shell goes on; Ctrl-C at the prompt drops the pending
// input; Ctrl-D (end of input) or QUIT; ends the session.
//
// WriteResult writes a result as CSV, JSON lines or an Arrow IPC file for
// scripts; Completions and Inspect serve the shell's and the Jupyter
// kernel's completion and help.
package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/planner/parser"
)

// Prompts of Flink's SQL client.
const (
	Prompt             = "Flink SQL> "
	ContinuationPrompt = "> "
)

// Options configure a shell session.
type Options struct {
	// HistoryFile is where the line history persists between sessions.
	// "" means ~/.tablerun_history; "-" keeps no history. History is kept
	// only when the input is a terminal.
	HistoryFile string
	// Quiet suppresses the welcome banner and the goodbye message.
	Quiet bool
	// ForceProgress shows the live progress line of long statements even
	// when the output is not a terminal (tests); by default it shows only
	// on a terminal.
	ForceProgress bool
}

// historyPath resolves Options.HistoryFile.
func (o Options) historyPath() string {
	switch o.HistoryFile {
	case "-":
		return ""
	case "":
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		return filepath.Join(home, ".tablerun_history")
	}
	return o.HistoryFile
}

// banner is printed when an interactive session starts.
const banner = `tablerun — Flink SQL on a vectorized Arrow engine

    Welcome! Enter 'HELP;' to list all available commands. 'QUIT;' to exit.

Command history file path: %s

`

// ErrStatementFailed is what Run returns when its input is not a terminal
// (a script piped in) and a statement failed; the failure was printed.
var ErrStatementFailed = errors.New("a statement failed")

// Run runs an interactive session on env until QUIT;, EXIT; or the end of
// in. When in is not a terminal, a last statement without ';' runs at the
// end of in, and Run returns ErrStatementFailed if any statement failed. When in and out are the process's terminal (os.Stdin and os.Stdout)
// lines are edited with history and completion; otherwise lines are read
// as they come and no prompt is printed. Run handles SIGINT itself while it
// runs (a statement is cancelled, the session goes on), so ctx must not be
// one that SIGINT cancels (signal.NotifyContext). It returns ctx's error
// when ctx ends the session, nil otherwise.
func Run(ctx context.Context, env *core.TableEnvironment, in io.Reader, out io.Writer, opts Options) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	tty := isTerminal(in, out)
	var rd lineReader
	hist := ""
	if tty {
		hist = opts.historyPath()
		rd = newLinerReader(hist, wordCompleter(env))
	} else {
		rd = newPlainReader(in)
	}
	s := &session{env: env, out: out, rd: rd, tty: tty, interrupts: sigs, opts: opts}
	if opts.ForceProgress || isTerminalOutput(out) {
		s.enableProgress()
	}
	if tty {
		s.enableTerminalPager()
	}
	if tty && !opts.Quiet {
		h := hist
		if h == "" {
			h = "(none)"
		}
		fmt.Fprintf(out, banner, h)
	}
	err := s.loop(ctx)
	if cerr := rd.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err == nil && !tty && s.failed {
		err = ErrStatementFailed
	}
	return err
}

// session is one run of the shell.
type session struct {
	env        *core.TableEnvironment
	out        io.Writer
	rd         lineReader
	tty        bool
	interrupts <-chan os.Signal
	opts       Options
	// pageKeys reads the keys of the table-mode pager (nil: no pager).
	pageKeys io.Reader
	// pageHeight is the number of lines a pager page may use.
	pageHeight func() int
	// started, when set (tests), is called when a statement starts to run
	// (from then on an interrupt cancels it).
	started func(text string)
	// line, when set, shows the live progress line while a statement
	// runs; progressDelay and progressEvery override its timing (tests).
	line                         *progressLine
	progressDelay, progressEvery time.Duration
	// input is the input being run: the text error positions refer to
	// (the caret under a wrong token is drawn in it).
	input string
	// failed is set when a statement failed.
	failed bool
}

type readResult struct {
	line string
	err  error
}

// loop reads and runs statements until the session ends.
func (s *session) loop(ctx context.Context) error {
	var pending strings.Builder
	lines := make(chan readResult, 1)
	for {
		prompt := Prompt
		if pending.Len() > 0 {
			prompt = ContinuationPrompt
		}
		go func() {
			l, err := s.rd.ReadLine(prompt)
			lines <- readResult{l, err}
		}()
		var r readResult
		select {
		case r = <-lines:
		case <-s.interrupts:
			// Ctrl-C while waiting for non-terminal input (a terminal
			// prompt turns it into a key): end the session.
			s.goodbye()
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
		switch {
		case r.err == errAborted:
			pending.Reset()
			continue
		case r.err == io.EOF:
			if !s.tty && strings.TrimSpace(pending.String()) != "" {
				// a script piped in: its last statement needs no ';'
				if quit, err := s.runInput(ctx, pending.String()); err != nil || quit {
					return err
				}
			}
			s.goodbye()
			return nil
		case r.err != nil:
			return fmt.Errorf("read input: %w", r.err)
		}
		pending.WriteString(r.line)
		pending.WriteByte('\n')
		input := pending.String()
		if !complete(input) {
			continue
		}
		pending.Reset()
		if strings.TrimSpace(input) == "" {
			continue
		}
		s.rd.AddHistory(input)
		quit, err := s.runInput(ctx, input)
		if err != nil || quit {
			return err
		}
	}
}

// goodbye prints Flink's shutdown message.
func (s *session) goodbye() {
	if !s.opts.Quiet && s.tty {
		fmt.Fprint(s.out, "\nShutting down the session...\ndone.\n")
	}
}

// runInput runs the statements of one complete input. It reports whether
// the session should end.
func (s *session) runInput(ctx context.Context, input string) (bool, error) {
	s.input = input
	stmts, err := parser.ParseScript(input)
	if err != nil {
		s.printResult(nil, err)
		return false, nil
	}
	for _, st := range stmts {
		switch clientCommand(st.Text) {
		case cmdHelp:
			fmt.Fprint(s.out, HelpText+"\n")
			continue
		case cmdQuit:
			s.goodbye()
			return true, nil
		case cmdClear:
			if s.tty {
				fmt.Fprint(s.out, "\x1b[H\x1b[2J")
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return true, err
		}
		s.runStatement(ctx, st)
	}
	return false, nil
}

// runStatement runs one statement and prints its outcome. A SIGINT while
// it runs, or while its result prints (a streaming query's changes print
// as they arrive), cancels it.
func (s *session) runStatement(ctx context.Context, st parser.ScriptStatement) {
	// Drop a Ctrl-C that arrived while no statement was running.
	select {
	case <-s.interrupts:
	default:
	}
	stmtCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var canceled atomic.Bool
	done := make(chan struct{})
	exited := make(chan struct{})
	// Wait for the watcher to end: a stale one would take the Ctrl-C
	// meant for the next statement.
	defer func() { close(done); <-exited }()
	go func() {
		defer close(exited)
		select {
		case <-s.interrupts:
			canceled.Store(true)
			cancel()
		case <-done:
		}
	}()
	if s.started != nil {
		s.started(st.Text)
	}
	runCtx, stopProgress := s.startProgress(stmtCtx)
	res, err := s.env.ExecuteSQL(runCtx, st.Text)
	stopProgress()
	if err != nil {
		if canceled.Load() || core.IsCanceled(err) {
			fmt.Fprint(s.out, core.MsgQueryCanceled+"\n\n")
			return
		}
		s.printResult(nil, core.ShiftPosition(err, st.Line, st.Col))
		return
	}
	if res.IsStreaming() && s.pageKeys != nil && s.env.Config().ResultMode() == config.ResultTable {
		if err := s.follow(res, canceled.Load); err != nil {
			s.printResult(nil, err)
		}
		_ = res.Close()
		return
	}
	if err := s.printResult(res, nil); err != nil && !core.IsCanceled(err) {
		s.failed = true
	}
	if res.IsStreaming() {
		_ = res.Close()
	}
}

// printResult prints the outcome of one statement in the session's result
// mode, followed by a blank line. It returns the statement's error (err,
// or that of a streaming job that failed while printing).
func (s *session) printResult(res *core.TableResult, err error) error {
	if err != nil && !core.IsCanceled(err) {
		s.failed = true
	}
	cfg := s.env.Config()
	// A streaming result prints its changelog as it arrives (with the op
	// column); the table mode's live view is follow's.
	if err == nil && res.IsQuery() && !res.IsStreaming() {
		switch cfg.ResultMode() {
		case config.ResultChangelog:
			s.printGrid(res, true)
			return nil
		case config.ResultTable:
			if s.pageKeys != nil {
				s.page(res)
				return nil
			}
		}
	}
	perr := core.PrintClientResult(s.out, cfg, res, err)
	if err != nil {
		fmt.Fprint(s.out, core.ErrorContext(err, s.input))
	}
	fmt.Fprintln(s.out)
	if err != nil {
		return err
	}
	return perr
}

// printGrid prints a query result in the tableau layout, with the "op"
// column when op is set.
func (s *session) printGrid(res *core.TableResult, op bool) {
	g := NewGrid(res, op)
	if len(g.Rows) == 0 {
		fmt.Fprint(s.out, "Empty set\n\n")
		return
	}
	var b strings.Builder
	for _, l := range g.Lines(0, len(g.Rows), s.maxWidth()) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(rowsInSet(len(g.Rows)))
	b.WriteString("\n\n")
	fmt.Fprint(s.out, b.String())
}

func (s *session) maxWidth() int {
	if w := s.env.Config().MaxColumnWidth(); w > 0 {
		return w
	}
	return defaultMaxWidth
}

func rowsInSet(n int) string {
	if n == 1 {
		return "1 row in set"
	}
	return fmt.Sprintf("%d rows in set", n)
}

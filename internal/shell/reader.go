package shell

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterh/liner"
	"golang.org/x/term"
)

// errAborted is returned by a lineReader when the user pressed Ctrl-C at
// the prompt: the pending input is dropped and a new prompt shown.
var errAborted = errors.New("prompt aborted")

// lineReader reads the lines the user types.
type lineReader interface {
	// ReadLine shows prompt and returns one line without its newline;
	// io.EOF at the end of the input (Ctrl-D), errAborted on Ctrl-C.
	ReadLine(prompt string) (string, error)
	// AddHistory records one entry (a whole statement) in the history.
	AddHistory(entry string)
	// Close saves the history and restores the terminal.
	Close() error
}

// isTerminal reports whether in and out are the process's terminal, the
// condition for line editing.
func isTerminal(in io.Reader, out io.Writer) bool {
	fi, ok := in.(*os.File)
	if !ok || fi.Fd() != os.Stdin.Fd() {
		return false
	}
	fo, ok := out.(*os.File)
	if !ok || fo.Fd() != os.Stdout.Fd() {
		return false
	}
	return term.IsTerminal(int(fi.Fd())) && term.IsTerminal(int(fo.Fd()))
}

// plainReader reads lines from a non-terminal input, without prompts or
// editing (scripts piped into the shell, tests).
type plainReader struct {
	r *bufio.Reader
}

func newPlainReader(in io.Reader) *plainReader { return &plainReader{r: bufio.NewReader(in)} }

// ReadLine implements lineReader.
func (p *plainReader) ReadLine(string) (string, error) {
	line, err := p.r.ReadString('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && line != "" {
			return strings.TrimRight(line, "\r"), nil
		}
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// AddHistory implements lineReader; piped input keeps no history.
func (p *plainReader) AddHistory(string) {}

// Close implements lineReader.
func (p *plainReader) Close() error { return nil }

// linerReader edits lines on the terminal with github.com/peterh/liner and
// keeps a persistent history file.
type linerReader struct {
	st      *liner.State
	history string
}

// newLinerReader puts the terminal in line-editing mode and loads the
// history file (when history is not "").
func newLinerReader(history string, completer liner.WordCompleter) *linerReader {
	st := liner.NewLiner()
	st.SetCtrlCAborts(true)
	st.SetMultiLineMode(true)
	st.SetTabCompletionStyle(liner.TabPrints)
	if completer != nil {
		st.SetWordCompleter(completer)
	}
	r := &linerReader{st: st, history: history}
	if history != "" {
		if f, err := os.Open(history); err == nil {
			_, _ = st.ReadHistory(f)
			_ = f.Close()
		}
	}
	return r
}

// ReadLine implements lineReader.
func (l *linerReader) ReadLine(prompt string) (string, error) {
	line, err := l.st.Prompt(prompt)
	switch {
	case errors.Is(err, liner.ErrPromptAborted):
		return "", errAborted
	case err != nil:
		return "", err
	}
	return line, nil
}

// AddHistory implements lineReader: the entry is appended (on one line) and
// the history file rewritten, so that it survives a crash or a kill.
func (l *linerReader) AddHistory(entry string) {
	entry = strings.Join(strings.Fields(entry), " ")
	if entry == "" {
		return
	}
	l.st.AppendHistory(entry)
	l.saveHistory()
}

// saveHistory writes the history file: a new file renamed over the old
// one, so that the history file is never seen half-written.
func (l *linerReader) saveHistory() {
	if l.history == "" {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.history), filepath.Base(l.history)+".*")
	if err != nil {
		return
	}
	_, werr := l.st.WriteHistory(tmp)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), l.history) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// Close implements lineReader.
func (l *linerReader) Close() error {
	l.saveHistory()
	if err := l.st.Close(); err != nil {
		return fmt.Errorf("restore terminal: %w", err)
	}
	return nil
}

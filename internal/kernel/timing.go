package kernel

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TimingsTable is the temporary table in which the kernel keeps the
// figures of its %time cells, one row per label: label STRING, seconds
// DOUBLE, rows_read BIGINT, rows_per_second DOUBLE (in the order the
// labels were first timed; timing a label again replaces its row). Query
// it like any table, e.g. under a %chart line to compare settings.
const TimingsTable = "cell_timings"

// timing is one row of TimingsTable.
type timing struct {
	Label         string  `tablerun:"label"`
	Seconds       float64 `tablerun:"seconds"`
	RowsRead      int64   `tablerun:"rows_read"`
	RowsPerSecond float64 `tablerun:"rows_per_second"`
}

// parseTimeLine splits a cell into its %time option and the rest:
//
//	%time [label]
//
// as the first line times the cell's statements (wall time, and the rows
// their sources read), prints the figures and records them in
// TimingsTable under label (default: "cell <n>"); the label may be quoted.
// It reports timed=false for a cell without the option; the returned code
// keeps the SQL's line numbers (the option line becomes a blank line).
func parseTimeLine(code string) (label string, timed bool, rest string, err error) {
	trimmed := strings.TrimLeft(code, " \t\r\n")
	if !strings.HasPrefix(trimmed, "%time") {
		return "", false, code, nil
	}
	line, body, _ := strings.Cut(trimmed, "\n")
	arg := strings.TrimPrefix(line, "%time")
	if arg != "" && arg[0] != ' ' && arg[0] != '\t' && arg[0] != '\r' {
		return "", false, "", fmt.Errorf("not supported yet: line magic %q (%%time and %%chart are)", strings.Fields(line)[0])
	}
	args, err := splitArgs(strings.TrimSpace(arg))
	if err != nil {
		return "", false, "", fmt.Errorf("%%time: unterminated quote")
	}
	if len(args) > 1 {
		return "", false, "", fmt.Errorf("%%time takes one label (quote a label with spaces), got %d words", len(args))
	}
	if len(args) == 1 {
		label = args[0]
	}
	return label, true, "\n" + body, nil
}

// recordTiming stores the figures of a timed cell in TimingsTable and
// returns the line that reports them.
func (k *Kernel) recordTiming(label string, elapsed time.Duration, rowsRead int64) (string, error) {
	secs := elapsed.Seconds()
	t := timing{Label: label, Seconds: secs, RowsRead: rowsRead}
	if secs > 0 {
		t.RowsPerSecond = float64(rowsRead) / secs
	}
	k.mu.Lock()
	replaced := false
	for i := range k.timings {
		if k.timings[i].Label == label {
			k.timings[i], replaced = t, true
		}
	}
	if !replaced {
		k.timings = append(k.timings, t)
	}
	rows := append([]timing(nil), k.timings...)
	k.mu.Unlock()
	k.env.DropTemporaryTable(TimingsTable)
	if err := k.env.FromValues(TimingsTable, rows); err != nil {
		return "", fmt.Errorf("record the timing in %s: %w", TimingsTable, err)
	}
	return fmt.Sprintf("%s: %s s wall time, %s rows read (%s rows/s)\n", label,
		strconv.FormatFloat(secs, 'f', 3, 64), groupDigits(rowsRead), groupDigits(int64(t.RowsPerSecond))), nil
}

// groupDigits writes n with thousands separators.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	var b strings.Builder
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

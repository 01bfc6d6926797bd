package build

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablerun/tablerun/planner/physical"
)

// ExplainAnalyze prints plan in the layout of Flink's EXPLAIN (one node per
// line, children drawn with ":- " and "+- ") with each node's runtime
// statistics appended, e.g.
//
//	HashAggregate(groupBy=[k], select=[k, COUNT(*) AS c])  [rows in=10000 out=100, batches in=3 out=1, time=1.2ms, state=6.1KB]
//	+- TableSourceScan(table=[[default_catalog, default_database, t]], fields=[k])  [rows out=10000, batches out=3, time=0.8ms]
//
// Every line ends with a newline.
func ExplainAnalyze(plan physical.Node, st *Stats) string {
	var b strings.Builder
	var walk func(n physical.Node, prefix string, last []bool)
	walk = func(n physical.Node, prefix string, last []bool) {
		b.WriteString(prefix + n.Name() + "(" + n.Explain(false) + ")")
		if ns := st.Node(n); ns != nil {
			b.WriteString("  [" + ns.String() + "]")
		}
		b.WriteString("\n")
		ch := n.Children()
		for i, c := range ch {
			var p strings.Builder
			for _, l := range last {
				if l {
					p.WriteString("   ")
				} else {
					p.WriteString(":  ")
				}
			}
			isLast := i == len(ch)-1
			if isLast {
				p.WriteString("+- ")
			} else {
				p.WriteString(":- ")
			}
			walk(c, p.String(), append(append([]bool(nil), last...), isLast))
		}
	}
	walk(plan, "", nil)
	return b.String()
}

// String formats the statistics as EXPLAIN ANALYZE shows them: "rows
// in=… out=…, batches in=… out=…, time=…" and, when known, "state=…" and
// "spilled=…".
func (s *NodeStats) String() string {
	var parts []string
	if len(s.children) > 0 {
		parts = append(parts, fmt.Sprintf("rows in=%d out=%d", s.RowsIn, s.RowsOut),
			fmt.Sprintf("batches in=%d out=%d", s.BatchesIn, s.BatchesOut))
	} else {
		parts = append(parts, fmt.Sprintf("rows out=%d", s.RowsOut), fmt.Sprintf("batches out=%d", s.BatchesOut))
	}
	if s.Busy > 0 {
		parts = append(parts, "time="+FormatDuration(s.Busy))
	}
	if s.Op.PeakStateBytes > 0 {
		parts = append(parts, "state="+FormatBytes(s.Op.PeakStateBytes))
	}
	if s.Op.SpillCount > 0 {
		parts = append(parts, fmt.Sprintf("spilled=%dx %s in %d files", s.Op.SpillCount, FormatBytes(s.Op.SpillBytes), s.Op.SpillFiles))
	}
	if s.Op.LateRows > 0 {
		parts = append(parts, fmt.Sprintf("late rows dropped=%d", s.Op.LateRows))
	}
	return strings.Join(parts, ", ")
}

// FormatBytes prints a byte count with a binary unit: 512B, 61.0KB,
// 1.2MB, 3.0GB.
func FormatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1fKB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1fGB", float64(n)/(1<<30))
}

// FormatDuration prints a duration with three significant digits in ms or
// s: 0.012ms, 1.23ms, 123ms, 1.23s.
func FormatDuration(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 1:
		return fmt.Sprintf("%.3fms", ms)
	case ms < 10:
		return fmt.Sprintf("%.2fms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0fms", ms)
	case ms < 10000:
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	return fmt.Sprintf("%.1fs", ms/1000)
}

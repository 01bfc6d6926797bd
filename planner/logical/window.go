package logical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/types"
)

// WindowKind is the kind of a windowing table function.
type WindowKind uint8

// Window kinds.
const (
	// Tumble: fixed-size, non-overlapping windows.
	Tumble WindowKind = iota
	// Hop: fixed-size windows that start every Slide (sliding windows).
	Hop
	// Cumulate: windows that start every Size (the max size) and grow by
	// Step.
	Cumulate
	// Session: windows of rows closer than Size (the gap) to each other,
	// per partition (PartitionKeys).
	Session
)

// String returns the function's SQL name.
func (k WindowKind) String() string {
	switch k {
	case Hop:
		return "HOP"
	case Cumulate:
		return "CUMULATE"
	case Session:
		return "SESSION"
	}
	return "TUMBLE"
}

// WindowSpec describes the windows a windowing table function assigns.
// Durations are in milliseconds.
type WindowSpec struct {
	Kind WindowKind
	// TimeCol is the index of the time attribute column in the input.
	TimeCol int
	// TimeName is the name of the time attribute column.
	TimeName string
	// Size is the window size (TUMBLE, HOP) or the max window size
	// (CUMULATE).
	Size int64
	// Slide is HOP's slide; Step is CUMULATE's step.
	Slide int64
	Step  int64
	// Offset shifts the window boundaries (0: aligned to the epoch).
	Offset int64
	// PartitionKeys are SESSION's partition columns (input indexes) and
	// PartitionNames their names.
	PartitionKeys  []int
	PartitionNames []string
	// Proctime is set when the time column is a processing-time
	// attribute (PROCTIME()): the windows fire on the wall clock, not on
	// watermarks, and no row is late.
	Proctime bool
}

// FormatDuration prints a duration in milliseconds as Flink's window
// descriptions do: "10 s", "500 ms", "1 min", "2 h", "1 d".
func FormatDuration(ms int64) string {
	switch {
	case ms != 0 && ms%86_400_000 == 0:
		return fmt.Sprintf("%d d", ms/86_400_000)
	case ms != 0 && ms%3_600_000 == 0:
		return fmt.Sprintf("%d h", ms/3_600_000)
	case ms != 0 && ms%60_000 == 0:
		return fmt.Sprintf("%d min", ms/60_000)
	case ms != 0 && ms%1000 == 0:
		return fmt.Sprintf("%d s", ms/1000)
	}
	return fmt.Sprintf("%d ms", ms)
}

// String prints the window as Flink's plans do:
// TUMBLE(time_col=[ts], size=[10 s]), HOP(time_col=[ts], size=[10 s],
// slide=[2 s]), CUMULATE(time_col=[ts], max_size=[1 h], step=[10 min]).
func (w WindowSpec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(time_col=[%s], ", w.Kind, w.TimeName)
	switch w.Kind {
	case Hop:
		fmt.Fprintf(&b, "size=[%s], slide=[%s]", FormatDuration(w.Size), FormatDuration(w.Slide))
	case Cumulate:
		fmt.Fprintf(&b, "max_size=[%s], step=[%s]", FormatDuration(w.Size), FormatDuration(w.Step))
	case Session:
		fmt.Fprintf(&b, "gap=[%s]", FormatDuration(w.Size))
		if len(w.PartitionNames) > 0 {
			fmt.Fprintf(&b, ", partition keys=[%s]", strings.Join(w.PartitionNames, ", "))
		}
	default:
		fmt.Fprintf(&b, "size=[%s]", FormatDuration(w.Size))
	}
	if w.Offset != 0 {
		fmt.Fprintf(&b, ", offset=[%s]", FormatDuration(w.Offset))
	}
	b.WriteString(")")
	return b.String()
}

// Windows appends to dst the [start, end) windows (milliseconds) that
// contain the event time ts, in ascending order of start (and of end for
// CUMULATE). SESSION windows depend on the other rows: it appends
// [ts, ts + gap), the window of the row alone.
func (w WindowSpec) Windows(dst [][2]int64, ts int64) [][2]int64 {
	floor := func(t, unit int64) int64 {
		r := (t - w.Offset) % unit
		if r < 0 {
			r += unit
		}
		return t - r
	}
	switch w.Kind {
	case Hop:
		if w.Slide <= 0 {
			return dst
		}
		last := floor(ts, w.Slide)
		first := last - w.Size + w.Slide
		for s := first; s <= last; s += w.Slide {
			if ts >= s && ts < s+w.Size {
				dst = append(dst, [2]int64{s, s + w.Size})
			}
		}
	case Cumulate:
		if w.Step <= 0 || w.Size <= 0 {
			return dst
		}
		start := floor(ts, w.Size)
		for e := floor(ts, w.Step) + w.Step; e <= start+w.Size; e += w.Step {
			dst = append(dst, [2]int64{start, e})
		}
	case Session:
		dst = append(dst, [2]int64{ts, ts + w.Size})
	default:
		if w.Size <= 0 {
			return dst
		}
		s := floor(ts, w.Size)
		dst = append(dst, [2]int64{s, s + w.Size})
	}
	return dst
}

// WindowColumns returns the three columns a windowing table function
// adds: window_start, window_end and window_time, TIMESTAMP(3) NOT NULL
// (window_time is a rowtime attribute). For a TIMESTAMP_LTZ time column,
// as in Flink, the windows are aligned in the session time zone,
// window_start and window_end are that zone's wall-clock TIMESTAMP(3) and
// window_time is a TIMESTAMP_LTZ(3) instant.
func WindowColumns(timeType types.Type) types.Schema {
	t := types.Type{Kind: types.Timestamp, Precision: 3, NotNull: true}
	wt := t
	if timeType.Kind == types.TimestampLTZ {
		wt.Kind = types.TimestampLTZ
	}
	return types.Schema{{Name: "window_start", Type: t}, {Name: "window_end", Type: t}, {Name: "window_time", Type: wt}}
}

// WatermarkAssigner declares the watermark of its input (a table with a
// WATERMARK FOR clause, in streaming mode): after each batch the watermark
// is the largest value of Expr seen so far. Rows pass unchanged.
type WatermarkAssigner struct {
	Input Node
	// Rowtime is the index of the rowtime column in the input.
	Rowtime int
	// Expr is the watermark expression over the input.
	Expr Expr
}

// WindowTableFunction is TABLE(TUMBLE|HOP|CUMULATE(TABLE t, DESCRIPTOR(ts),
// …)): every input row once per window it belongs to, followed by
// window_start, window_end and window_time.
type WindowTableFunction struct {
	Input  Node
	Window WindowSpec
	Out    types.Schema
}

// Schema implements Node.
func (n *WatermarkAssigner) Schema() types.Schema { return n.Input.Schema() }

// Children implements Node.
func (n *WatermarkAssigner) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *WatermarkAssigner) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Describe implements Node as Flink's LogicalWatermarkAssigner.
func (n *WatermarkAssigner) Describe() (string, string) {
	return "LogicalWatermarkAssigner", fmt.Sprintf("rowtime=[%s], watermark=[%s]", n.Input.Schema()[n.Rowtime].Name, watermarkString(n.Expr))
}

// watermarkString prints a watermark expression as Calcite's digest does:
// interval literals keep their type ("-($3, 1000:INTERVAL SECOND)").
func watermarkString(e Expr) string {
	switch x := e.(type) {
	case *Literal:
		if x.Value != nil && x.T.IsInterval() && x.T.Unit != "" {
			return x.String() + ":INTERVAL " + x.T.Unit
		}
	case *Call:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = watermarkString(a)
		}
		return x.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return e.String()
}

// Schema implements Node.
func (n *WindowTableFunction) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *WindowTableFunction) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *WindowTableFunction) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Describe implements Node as Calcite's LogicalTableFunctionScan of the
// windowing function.
func (n *WindowTableFunction) Describe() (string, string) {
	w := n.Window
	args := []string{fmt.Sprintf("$%d", w.TimeCol), fmt.Sprintf("DESCRIPTOR($%d)", w.TimeCol)}
	switch w.Kind {
	case Hop:
		args = append(args, intervalLiteral(w.Slide), intervalLiteral(w.Size))
	case Cumulate:
		args = append(args, intervalLiteral(w.Step), intervalLiteral(w.Size))
	default:
		args = append(args, intervalLiteral(w.Size))
	}
	if w.Offset != 0 {
		args = append(args, intervalLiteral(w.Offset))
	}
	return "LogicalTableFunctionScan", fmt.Sprintf("invocation=[%s(%s)], rowType=[%s]", w.Kind, strings.Join(args, ", "), recordType(n.Out))
}

// intervalLiteral prints a day-time interval as Calcite's digest does,
// "600000:INTERVAL MINUTE", with the largest unit that divides it.
func intervalLiteral(ms int64) string {
	unit := "SECOND"
	switch {
	case ms != 0 && ms%86_400_000 == 0:
		unit = "DAY"
	case ms != 0 && ms%3_600_000 == 0:
		unit = "HOUR"
	case ms != 0 && ms%60_000 == 0:
		unit = "MINUTE"
	}
	return fmt.Sprintf("%d:INTERVAL %s", ms, unit)
}

func recordType(s types.Schema) string {
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = f.Type.String() + " " + f.Name
	}
	return "RecordType(" + strings.Join(parts, ", ") + ")"
}

var (
	_ Node = (*WatermarkAssigner)(nil)
	_ Node = (*WindowTableFunction)(nil)
)

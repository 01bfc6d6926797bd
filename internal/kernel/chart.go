package kernel

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/types"
)

// ChartSpec is a cell's chart option, the first line of the cell:
//
//	%chart bar x=<column> y=<column>[,<column>…] [title="…"]
//
// Kinds: bar (grouped bars per x value), line (one line per y column over
// the x values in result order) and scatter (numeric x and y). The chart
// of the cell's last result is added to its output as image/svg+xml.
type ChartSpec struct {
	Kind  string
	X     string
	Y     []string
	Title string
}

// chartKinds are the supported chart kinds.
var chartKinds = map[string]bool{"bar": true, "line": true, "scatter": true}

// parseChartLine splits a cell into its %chart option (nil when the first
// line is not one) and the SQL after it.
func parseChartLine(code string) (*ChartSpec, string, error) {
	trimmed := strings.TrimLeft(code, " \t\r\n")
	if !strings.HasPrefix(trimmed, "%chart") {
		return nil, code, nil
	}
	line, rest, _ := strings.Cut(trimmed, "\n")
	// Keep the SQL's line numbers: the option line becomes a blank line.
	rest = "\n" + rest
	args, err := splitArgs(strings.TrimSpace(strings.TrimPrefix(line, "%chart")))
	if err != nil {
		return nil, "", err
	}
	if len(args) == 0 {
		return nil, "", fmt.Errorf("%%chart needs a kind: bar, line or scatter")
	}
	spec := &ChartSpec{Kind: strings.ToLower(args[0])}
	if !chartKinds[spec.Kind] {
		return nil, "", fmt.Errorf("not supported yet: chart kind %q (bar, line and scatter are)", args[0])
	}
	for _, a := range args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, "", fmt.Errorf("%%chart option %q is not key=value", a)
		}
		switch strings.ToLower(k) {
		case "x":
			spec.X = v
		case "y":
			for _, c := range strings.Split(v, ",") {
				if c = strings.TrimSpace(c); c != "" {
					spec.Y = append(spec.Y, c)
				}
			}
		case "title":
			spec.Title = v
		default:
			return nil, "", fmt.Errorf("unknown %%chart option %q (x, y and title are)", k)
		}
	}
	if spec.X == "" || len(spec.Y) == 0 {
		return nil, "", fmt.Errorf("%%chart needs x=<column> and y=<column>[,<column>…]")
	}
	return spec, rest, nil
}

// splitArgs splits on blanks, keeping "double quoted" parts together.
func splitArgs(s string) ([]string, error) {
	var out []string
	var b strings.Builder
	inQuote, has := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			has = true
		case (r == ' ' || r == '\t') && !inQuote:
			if has {
				out = append(out, b.String())
				b.Reset()
				has = false
			}
		default:
			b.WriteRune(r)
			has = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("%%chart: unterminated quote")
	}
	if has {
		out = append(out, b.String())
	}
	return out, nil
}

// Chart geometry.
const (
	chartW, chartH                         = 640, 360
	marginL, marginR, marginTop, marginBot = 64, 20, 36, 72
)

var palette = []string{"#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2"}

// columnIndex finds a result column by name (case-insensitive).
func columnIndex(schema types.Schema, name string) (int, error) {
	for i, f := range schema {
		if strings.EqualFold(f.Name, name) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("column '%s' is not in the result (columns: %s)", name, strings.Join(schema.Names(), ", "))
}

// numeric returns a numeric value as float64 (NaN for NULL).
func numeric(res *core.TableResult, v any, t types.Type) (float64, error) {
	if v == nil {
		return math.NaN(), nil
	}
	if !t.IsNumeric() {
		return 0, fmt.Errorf("a %s column cannot be charted on a numeric axis", t.String())
	}
	f, err := strconv.ParseFloat(res.Format(v, t), 64)
	if err != nil {
		return 0, fmt.Errorf("chart value %q: %w", res.Format(v, t), err)
	}
	return f, nil
}

// maxLabel is the length beyond which an x label is shortened.
const maxLabel = 14

// shortLabels returns the labels as the x axis shows them: those longer
// than limit characters cut to limit with "…" at the end, or else (when
// that would make two different labels look the same, as
// "mini-batch=true, size=1000" and "mini-batch=true, size=5000" would) in
// the middle, keeping both ends; when neither keeps them apart they stay
// whole. The full label is always the bar's tooltip.
func shortLabels(labels []string, limit int) []string {
	long := false
	for _, l := range labels {
		if len([]rune(l)) > limit {
			long = true
			break
		}
	}
	if !long {
		return labels
	}
	cuts := []func([]rune) string{
		func(r []rune) string { return string(r[:limit-1]) + "…" },
		func(r []rune) string {
			head := (limit - 1) / 2
			return string(r[:head]) + "…" + string(r[len(r)-(limit-1-head):])
		},
	}
	for _, cut := range cuts {
		out := make([]string, len(labels))
		full := map[string]string{}
		distinct := true
		for i, l := range labels {
			r := []rune(l)
			out[i] = l
			if len(r) > limit {
				out[i] = cut(r)
			}
			if f, seen := full[out[i]]; seen && f != l {
				distinct = false
				break
			}
			full[out[i]] = l
		}
		if distinct {
			return out
		}
	}
	return labels
}

// RenderChart draws rows of res (of res's schema) as an SVG chart.
func RenderChart(spec *ChartSpec, res *core.TableResult, rows [][]any) (string, error) {
	schema := res.Schema()
	xi, err := columnIndex(schema, spec.X)
	if err != nil {
		return "", err
	}
	yis := make([]int, len(spec.Y))
	for i, y := range spec.Y {
		if yis[i], err = columnIndex(schema, y); err != nil {
			return "", err
		}
	}
	n := len(rows)
	labels := make([]string, n)
	xs := make([]float64, n)
	ys := make([][]float64, len(yis))
	for s := range ys {
		ys[s] = make([]float64, n)
	}
	for i, row := range rows {
		labels[i] = res.Format(row[xi], schema[xi].Type)
		if spec.Kind == "scatter" {
			if xs[i], err = numeric(res, row[xi], schema[xi].Type); err != nil {
				return "", err
			}
		}
		for s, yi := range yis {
			if ys[s][i], err = numeric(res, row[yi], schema[yi].Type); err != nil {
				return "", err
			}
		}
	}
	// X labels: shortened only where that keeps them apart; labels that
	// stay long make the chart taller instead of overflowing it.
	shown := shortLabels(labels, maxLabel)
	chartH := chartH
	if spec.Kind != "scatter" {
		longest := 0
		for _, l := range shown {
			longest = max(longest, len([]rune(l)))
		}
		// a rotated label of k characters needs about 4.3k pixels below
		// the axis (6.6 pixels a character at 11px, sin 40°)
		if extra := int(4.3*float64(longest)) + 20 - marginBot; extra > 0 {
			chartH += extra
		}
	}
	plotW := float64(chartW - marginL - marginR)
	plotH := float64(chartH - marginTop - marginBot)
	ylo, yhi, ystep := axisRange(ys, true)
	yPos := func(v float64) float64 {
		return float64(marginTop) + plotH*(1-(v-ylo)/(yhi-ylo))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", chartW, chartH, chartW, chartH)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	if spec.Title != "" {
		fmt.Fprintf(&b, `<text x="%d" y="20" text-anchor="middle" font-size="14">%s</text>`+"\n", chartW/2, html.EscapeString(spec.Title))
	}
	// Y axis: grid lines and tick labels.
	for v := ylo; v <= yhi+ystep/2; v += ystep {
		y := yPos(v)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", marginL, chartW-marginR, y, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", marginL-6, y, tickLabel(v, ystep))
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", marginL, marginL, marginTop, chartH-marginBot)
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#333"/>`+"\n", marginL, chartW-marginR, yPos(math.Max(ylo, math.Min(0, yhi))), yPos(math.Max(ylo, math.Min(0, yhi))))
	switch spec.Kind {
	case "bar", "line":
		band := plotW / math.Max(1, float64(n))
		xCenter := func(i int) float64 { return float64(marginL) + band*(float64(i)+0.5) }
		every := 1 + n/30
		for i, l := range shown {
			if i%every != 0 {
				continue
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="end" transform="rotate(-40 %.1f %d)">%s</text>`+"\n",
				xCenter(i), chartH-marginBot+14, xCenter(i), chartH-marginBot+14, html.EscapeString(l))
		}
		if spec.Kind == "bar" {
			bw := band * 0.8 / float64(len(yis))
			zero := yPos(math.Max(ylo, math.Min(0, yhi)))
			for s := range yis {
				for i := 0; i < n; i++ {
					v := ys[s][i]
					if math.IsNaN(v) {
						continue
					}
					x := xCenter(i) - band*0.4 + bw*float64(s)
					y := yPos(v)
					top, h := math.Min(y, zero), math.Abs(zero-y)
					fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %s</title></rect>`+"\n",
						x, top, bw, h, palette[s%len(palette)], html.EscapeString(labels[i]), tickLabel(v, 0))
				}
			}
		} else {
			for s := range yis {
				var pts []string
				for i := 0; i < n; i++ {
					if v := ys[s][i]; !math.IsNaN(v) {
						pts = append(pts, fmt.Sprintf("%.1f,%.1f", xCenter(i), yPos(v)))
					}
				}
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", palette[s%len(palette)], strings.Join(pts, " "))
			}
		}
	case "scatter":
		xlo, xhi, xstep := axisRange([][]float64{xs}, false)
		xPos := func(v float64) float64 { return float64(marginL) + plotW*(v-xlo)/(xhi-xlo) }
		for v := xlo; v <= xhi+xstep/2; v += xstep {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", xPos(v), chartH-marginBot+16, tickLabel(v, xstep))
		}
		for s := range yis {
			for i := 0; i < n; i++ {
				if math.IsNaN(xs[i]) || math.IsNaN(ys[s][i]) {
					continue
				}
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s" fill-opacity="0.8"/>`+"\n", xPos(xs[i]), yPos(ys[s][i]), palette[s%len(palette)])
			}
		}
	}
	// Axis titles and the legend.
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", marginL+int(plotW/2), chartH-6, html.EscapeString(schema[xi].Name))
	for s, yi := range yis {
		x := chartW - marginR - 120
		y := marginTop + 4 + 16*s
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			x, y, palette[s%len(palette)], x+14, y+9, html.EscapeString(schema[yi].Name))
	}
	b.WriteString("</svg>\n")
	return b.String(), nil
}

// axisRange returns a range with "nice" ticks covering the values (and 0
// when withZero).
func axisRange(series [][]float64, withZero bool) (lo, hi, step float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range s {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	if withZero {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	if hi == lo {
		hi = lo + 1
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch r := raw / mag; {
	case r <= 1:
		step = mag
	case r <= 2:
		step = 2 * mag
	case r <= 5:
		step = 5 * mag
	default:
		step = 10 * mag
	}
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step, step
}

// tickLabel prints v with as many decimals as step needs.
func tickLabel(v, step float64) string {
	if step == 0 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step)))
	}
	if math.Abs(v) < step/1e6 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

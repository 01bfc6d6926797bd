package bench

import (
	"fmt"
	"html"
	"strings"
)

// RenderSVG draws a horizontal bar chart of events/s per core (and events/s
// wall, lighter) for each configuration of rs, with its latency p50/p99
// and state size under its label.
func RenderSVG(query string, rs []Result) string {
	const (
		width   = 900
		labelW  = 360
		barH    = 14
		rowH    = 2*barH + 14
		top     = 50
		rightPd = 110
	)
	height := top + rowH*len(rs) + 30
	maxV := 0.0
	for _, r := range rs {
		maxV = max(maxV, r.EventsPerSec, r.EventsPerCoreSec)
	}
	if maxV <= 0 {
		maxV = 1
	}
	plotW := float64(width - labelW - rightPd)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="15" font-weight="bold">Nexmark %s: events/s per core (dark) and events/s wall (light)</text>`+"\n", html.EscapeString(query))
	for i, r := range rs {
		y := top + i*rowH
		fmt.Fprintf(&b, `<text x="10" y="%d">%s</text>`+"\n", y+barH+4, html.EscapeString(label(r)))
		fmt.Fprintf(&b, `<text x="10" y="%d" font-size="10" fill="#555">%s</text>`+"\n", y+2*barH+4, html.EscapeString(
			"latency p50 "+latencyString(r, r.LatencyP50)+", p99 "+latencyString(r, r.LatencyP99)+"; state "+stateString(r)))
		for j, v := range []float64{r.EventsPerCoreSec, r.EventsPerSec} {
			color := "#1f77b4"
			if j == 1 {
				color = "#aec7e8"
			}
			w := v / maxV * plotW
			by := y + j*barH
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", labelW, by, w, barH-2, color)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", float64(labelW)+w+4, by+barH-3, human(v))
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// human prints v with a K/M suffix.
func human(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fK", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

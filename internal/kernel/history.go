package kernel

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// historySession is the session number of the cells of this kernel
// process (history is not kept across kernels).
const historySession = 1

// historyEntry is one executed cell.
type historyEntry struct {
	line   int
	input  string
	output string
}

// history keeps the cells run with store_history, for history_request.
type history struct {
	mu      sync.Mutex
	entries []historyEntry
}

func (h *history) add(line int, input, output string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = append(h.entries, historyEntry{line: line, input: input, output: output})
}

// historyRequest is the content of history_request.
type historyRequest struct {
	Output         bool   `json:"output"`
	Raw            bool   `json:"raw"`
	HistAccessType string `json:"hist_access_type"`
	Session        int    `json:"session"`
	Start          int    `json:"start"`
	Stop           int    `json:"stop"`
	N              int    `json:"n"`
	Pattern        string `json:"pattern"`
	Unique         bool   `json:"unique"`
}

// globRegexp turns a history search pattern (glob: * and ?) into a
// regular expression matching the whole input.
func globRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// reply answers a history_request: tail (the last n cells), range (lines
// [start, stop) of this kernel's session) or search (a glob pattern; the
// last n matches, unique inputs only when asked).
func (h *history) reply(raw json.RawMessage) map[string]any {
	var req historyRequest
	_ = json.Unmarshal(raw, &req)
	h.mu.Lock()
	entries := append([]historyEntry(nil), h.entries...)
	h.mu.Unlock()
	var sel []historyEntry
	switch req.HistAccessType {
	case "tail":
		sel = entries
	case "range":
		if req.Session == historySession || req.Session == 0 {
			for _, e := range entries {
				if e.line >= req.Start && (req.Stop <= 0 || e.line < req.Stop) {
					sel = append(sel, e)
				}
			}
		}
	case "search":
		re := globRegexp(req.Pattern)
		seen := map[string]bool{}
		for i := len(entries) - 1; i >= 0; i-- {
			e := entries[i]
			if !re.MatchString(e.input) || (req.Unique && seen[e.input]) {
				continue
			}
			seen[e.input] = true
			sel = append([]historyEntry{e}, sel...)
		}
	}
	if req.HistAccessType != "range" && req.N > 0 && len(sel) > req.N {
		sel = sel[len(sel)-req.N:]
	}
	items := make([]any, 0, len(sel))
	for _, e := range sel {
		var third any = e.input
		if req.Output {
			var out any
			if e.output != "" {
				out = e.output
			}
			third = []any{e.input, out}
		}
		items = append(items, []any{historySession, e.line, third})
	}
	return map[string]any{"status": "ok", "history": items}
}

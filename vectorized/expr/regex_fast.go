package expr

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// fastRegex is a backtracking matcher for a subset of Go's regular
// expression syntax, used by the regular-expression kernels when the
// pattern is a constant. It gives the results of regexp.Regexp (leftmost-
// first matching: the match a backtracking implementation finds first) on
// valid UTF-8 input and is much faster on the patterns SQL queries use,
// because it tries only the start positions near an occurrence of a literal
// every match must contain (q21: '(&|^)channel_id=([^&]*)') and consumes
// character-class repetitions in tight loops.
//
// Supported: literals (case-sensitive), character classes, '.', the
// repetitions *, +, ?, {n,m} (greedy or lazy) of a single character
// element, captures, alternation, '^' and '$' (without the m flag).
// Anything else (case-insensitive literals, word boundaries, repeated
// groups, multi-line anchors) makes newFastRegex return nil; the kernels
// then use regexp.Regexp. A match attempt that backtracks too much, and any
// input that is not valid UTF-8, also falls back to regexp.Regexp, so the
// worst case stays linear.
type fastRegex struct {
	re       *regexp.Regexp // the fallback, compiled from the same pattern
	start    *frStep
	ncap     int // capture groups, group 0 included
	anchored bool
	// need is a literal every match contains; the match starts between
	// needMin and needMax bytes before an occurrence (needMax < 0: any
	// distance before it).
	need             string
	needMin, needMax int
}

type frOp uint8

const (
	frMatch frOp = iota
	frLit
	frClass
	frAlt
	frCapStart
	frCapEnd
	frBegin
	frEnd
)

// frStep is one step of the matcher's graph; next is the continuation.
type frStep struct {
	op       frOp
	lit      string
	set      *runeSet
	min, max int // repetitions of a class step; max < 0 is unbounded
	greedy   bool
	cap      int
	alts     []*frStep
	next     *frStep
}

// runeSet is a character class: a bitmap for ASCII, sorted ranges above.
type runeSet struct {
	ascii  [2]uint64
	ranges []rune // lo, hi pairs of runes >= utf8.RuneSelf
}

func newRuneSet(pairs []rune) *runeSet {
	s := &runeSet{}
	for i := 0; i+1 < len(pairs); i += 2 {
		lo, hi := pairs[i], pairs[i+1]
		for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
			s.ascii[r>>6] |= 1 << (r & 63)
		}
		if hi >= utf8.RuneSelf {
			s.ranges = append(s.ranges, max(lo, utf8.RuneSelf), hi)
		}
	}
	return s
}

func (s *runeSet) has(r rune) bool {
	if r < utf8.RuneSelf {
		return s.ascii[r>>6]&(1<<(r&63)) != 0
	}
	for i := 0; i < len(s.ranges); i += 2 {
		if r < s.ranges[i] {
			return false
		}
		if r <= s.ranges[i+1] {
			return true
		}
	}
	return false
}

// asciiOnly reports whether the set has no rune above 0x7F.
func (s *runeSet) asciiOnly() bool { return len(s.ranges) == 0 }

// newFastRegex compiles pattern p for the fast matcher, or returns nil when
// p uses syntax the matcher does not support (or does not compile).
func newFastRegex(p string) *fastRegex {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	ast, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	f := &fastRegex{re: re, ncap: ast.MaxCap() + 1, needMax: -1}
	start, ok := f.build(ast, &frStep{op: frMatch})
	if !ok {
		return nil
	}
	f.start = start
	f.findNeed(ast)
	return f
}

// singleSet returns the character set of a one-character element.
func singleSet(re *syntax.Regexp) (*runeSet, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) != 1 || re.Flags&syntax.FoldCase != 0 || re.Rune[0] == utf8.RuneError {
			return nil, false
		}
		return newRuneSet([]rune{re.Rune[0], re.Rune[0]}), true
	case syntax.OpCharClass:
		return newRuneSet(re.Rune), true
	case syntax.OpAnyCharNotNL:
		return newRuneSet([]rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}), true
	case syntax.OpAnyChar:
		return newRuneSet([]rune{0, unicode.MaxRune}), true
	}
	return nil, false
}

// build compiles re followed by next.
func (f *fastRegex) build(re *syntax.Regexp, next *frStep) (*frStep, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return next, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		for _, r := range re.Rune {
			if r == utf8.RuneError {
				return nil, false
			}
		}
		return &frStep{op: frLit, lit: string(re.Rune), next: next}, true
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		set, _ := singleSet(re)
		return &frStep{op: frClass, set: set, min: 1, max: 1, greedy: true, next: next}, true
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		set, ok := singleSet(re.Sub[0])
		if !ok {
			return nil, false
		}
		st := &frStep{op: frClass, set: set, greedy: re.Flags&syntax.NonGreedy == 0, next: next}
		switch re.Op {
		case syntax.OpStar:
			st.min, st.max = 0, -1
		case syntax.OpPlus:
			st.min, st.max = 1, -1
		case syntax.OpQuest:
			st.min, st.max = 0, 1
		default:
			st.min, st.max = re.Min, re.Max
		}
		return st, true
	case syntax.OpCapture:
		end := &frStep{op: frCapEnd, cap: re.Cap, next: next}
		body, ok := f.build(re.Sub[0], end)
		if !ok {
			return nil, false
		}
		return &frStep{op: frCapStart, cap: re.Cap, next: body}, true
	case syntax.OpConcat:
		for i := len(re.Sub) - 1; i >= 0; i-- {
			var ok bool
			if next, ok = f.build(re.Sub[i], next); !ok {
				return nil, false
			}
		}
		return next, true
	case syntax.OpAlternate:
		st := &frStep{op: frAlt}
		for _, sub := range re.Sub {
			a, ok := f.build(sub, next)
			if !ok {
				return nil, false
			}
			st.alts = append(st.alts, a)
		}
		return st, true
	case syntax.OpBeginText:
		return &frStep{op: frBegin, next: next}, true
	case syntax.OpEndText:
		return &frStep{op: frEnd, next: next}, true
	}
	return nil, false
}

// width returns the minimum and maximum length in bytes of re's matches
// (max < 0: unbounded).
func width(re *syntax.Regexp) (int, int) {
	switch re.Op {
	case syntax.OpLiteral:
		n := len(string(re.Rune))
		return n, n
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		if set, ok := singleSet(re); ok && set.asciiOnly() {
			return 1, 1
		}
		return 1, utf8.UTFMax
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := width(re.Sub[0])
		mn, mx := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			mn, mx = 0, -1
		case syntax.OpPlus:
			mn, mx = 1, -1
		case syntax.OpQuest:
			mn, mx = 0, 1
		}
		if mx < 0 || hi < 0 {
			return lo * mn, -1
		}
		return lo * mn, hi * mx
	case syntax.OpCapture:
		return width(re.Sub[0])
	case syntax.OpConcat:
		lo, hi := 0, 0
		for _, sub := range re.Sub {
			l, h := width(sub)
			lo += l
			if hi >= 0 {
				if h < 0 {
					hi = -1
				} else {
					hi += h
				}
			}
		}
		return lo, hi
	case syntax.OpAlternate:
		lo, hi := -1, 0
		for _, sub := range re.Sub {
			l, h := width(sub)
			if lo < 0 || l < lo {
				lo = l
			}
			if hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
		return max(lo, 0), hi
	}
	return 0, 0 // anchors and empty matches
}

// findNeed sets need to the longest case-sensitive literal element of the
// top-level concatenation, and the width of what precedes it; anchored
// when the pattern starts with '^'.
func (f *fastRegex) findNeed(ast *syntax.Regexp) {
	subs := []*syntax.Regexp{ast}
	if ast.Op == syntax.OpConcat {
		subs = ast.Sub
	}
	if len(subs) > 0 && subs[0].Op == syntax.OpBeginText {
		f.anchored = true
	}
	best := -1
	for i, sub := range subs {
		if sub.Op == syntax.OpCapture {
			sub = sub.Sub[0]
		}
		if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 && len(string(sub.Rune)) > len(f.need) {
			f.need, best = string(sub.Rune), i
		}
	}
	if best < 0 {
		return
	}
	f.needMin, f.needMax = width(&syntax.Regexp{Op: syntax.OpConcat, Sub: subs[:best]})
}

// frMatcher is the state of one search.
type frMatcher struct {
	s       string
	caps    []int
	budget  int
	aborted bool
}

// find reports the leftmost-first match of s, writing the group bounds to
// caps (2 * ncap entries, -1 for groups that did not participate).
func (f *fastRegex) find(s string, caps []int) bool {
	if !utf8.ValidString(s) {
		return f.slowFind(s, caps)
	}
	m := frMatcher{s: s, caps: caps, budget: 64*len(s) + 256}
	switch {
	case f.anchored:
		if f.need != "" && !strings.Contains(s, f.need) {
			return false
		}
		return f.try(&m, 0) || (m.aborted && f.slowFind(s, caps))
	case f.need != "" && f.needMax >= 0:
		last, off := -1, 0
		for {
			k := strings.Index(s[off:], f.need)
			if k < 0 {
				break
			}
			p := off + k
			lo, hi := max(p-f.needMax, last+1, 0), p-f.needMin
			for st := lo; st <= hi; st++ {
				if st < len(s) && !utf8.RuneStart(s[st]) {
					continue
				}
				if f.try(&m, st) {
					return true
				}
				if m.aborted {
					return f.slowFind(s, caps)
				}
			}
			last = max(last, hi)
			off = p + 1
		}
		return false
	default:
		if f.need != "" && !strings.Contains(s, f.need) {
			return false
		}
		for st := 0; st <= len(s); st++ {
			if st < len(s) && !utf8.RuneStart(s[st]) {
				continue
			}
			if f.try(&m, st) {
				return true
			}
			if m.aborted {
				return f.slowFind(s, caps)
			}
		}
		return false
	}
}

func (f *fastRegex) slowFind(s string, caps []int) bool {
	idx := f.re.FindStringSubmatchIndex(s)
	if idx == nil {
		return false
	}
	copy(caps, idx)
	return true
}

// try attempts a match starting at st.
func (f *fastRegex) try(m *frMatcher, st int) bool {
	for i := range m.caps {
		m.caps[i] = -1
	}
	m.caps[0] = st
	return m.run(f.start, st)
}

// next decodes the rune at p (p < len(s)).
func (m *frMatcher) next(p int) (rune, int) {
	if c := m.s[p]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(m.s[p:])
}

func (m *frMatcher) run(st *frStep, pos int) bool {
	s := m.s
	for {
		if m.budget--; m.budget < 0 {
			m.aborted = true
			return false
		}
		switch st.op {
		case frMatch:
			m.caps[1] = pos
			return true
		case frLit:
			if !strings.HasPrefix(s[pos:], st.lit) {
				return false
			}
			pos += len(st.lit)
		case frBegin:
			if pos != 0 {
				return false
			}
		case frEnd:
			if pos != len(s) {
				return false
			}
		case frCapStart, frCapEnd:
			i := 2 * st.cap
			if st.op == frCapEnd {
				i++
			}
			old := m.caps[i]
			m.caps[i] = pos
			if m.run(st.next, pos) {
				return true
			}
			m.caps[i] = old
			return false
		case frAlt:
			for _, a := range st.alts {
				if m.run(a, pos) {
					return true
				}
				if m.aborted {
					return false
				}
			}
			return false
		case frClass:
			p := pos
			for i := 0; i < st.min; i++ {
				if p >= len(s) {
					return false
				}
				r, w := m.next(p)
				if !st.set.has(r) {
					return false
				}
				p += w
			}
			if st.max == st.min {
				pos = p
				break
			}
			n := st.min
			if st.greedy {
				end := p
				for (st.max < 0 || n < st.max) && end < len(s) {
					r, w := m.next(end)
					if !st.set.has(r) {
						break
					}
					end += w
					n++
				}
				for q := end; ; {
					if m.run(st.next, q) {
						return true
					}
					if q == p || m.aborted {
						return false
					}
					_, w := utf8.DecodeLastRuneInString(s[p:q])
					q -= w
				}
			}
			for q := p; ; {
				if m.run(st.next, q) {
					return true
				}
				if m.aborted || (st.max >= 0 && n >= st.max) || q >= len(s) {
					return false
				}
				r, w := m.next(q)
				if !st.set.has(r) {
					return false
				}
				q += w
				n++
			}
		}
		st = st.next
	}
}

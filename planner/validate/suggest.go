package validate

import (
	"strings"
)

// Suggest returns the names among candidates closest to word, for a "did
// you mean" hint on an unknown name. Names are compared case-insensitively
// by optimal string alignment distance (Levenshtein plus the transposition
// of two adjacent characters, each costing 1). A candidate qualifies when
// its distance is at most 1 for words of up to 4 characters and at most 2
// for longer ones, and smaller than the word's length (so "b" never
// suggests "a"). Only the candidates at the smallest distance are
// returned, at most three, in the order given; an exact match (the word
// itself) is never suggested, but one differing only in case is.
func Suggest(word string, candidates []string) []string {
	limit := 2
	if len([]rune(word)) <= 4 {
		limit = 1
	}
	lw := strings.ToLower(word)
	best := limit + 1
	var out []string
	seen := map[string]bool{}
	for _, c := range candidates {
		if c == word || seen[c] {
			continue
		}
		d := osaDistance(lw, strings.ToLower(c))
		if d > limit || d >= len([]rune(word)) {
			continue
		}
		switch {
		case d < best:
			best, out = d, []string{c}
			seen = map[string]bool{c: true}
		case d == best && len(out) < 3:
			out = append(out, c)
			seen[c] = true
		}
	}
	return out
}

// DidYouMean formats Suggest's result as a hint: "Did you mean 'a'?" or
// "Did you mean 'a', 'b' or 'c'?"; "" when nothing is close.
func DidYouMean(word string, candidates []string) string {
	s := Suggest(word, candidates)
	if len(s) == 0 {
		return ""
	}
	q := make([]string, len(s))
	for i, n := range s {
		q[i] = "'" + n + "'"
	}
	if len(q) == 1 {
		return "Did you mean " + q[0] + "?"
	}
	return "Did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?"
}

// osaDistance is the optimal string alignment distance of a and b.
func osaDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n, m := len(ra), len(rb)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i
	}
	for j := 0; j <= m; j++ {
		d[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, d[i-2][j-2]+1)
			}
			d[i][j] = v
		}
	}
	return d[n][m]
}

package function

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// treeLookup is the reference: decode the whole document, then apply the
// path.
func treeLookup(doc, path string) (any, bool, error) {
	jp, err := parseJSONPath(path)
	if err != nil {
		return nil, false, err
	}
	v, err := parseJSON(doc)
	if err != nil {
		return nil, false, fmt.Errorf("Invalid JSON text: %w", err)
	}
	return jp.eval(v)
}

func randJSON(r *rand.Rand, depth int) string {
	ws := func() string { return []string{"", " ", "\n\t "}[r.IntN(3)] }
	keys := []string{`"a"`, `"b"`, `"a b"`, `"\u0061"`, `"k\"q"`, `"é"`}
	switch k := r.IntN(9); {
	case depth > 0 && k < 3:
		n := r.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = ws() + keys[r.IntN(len(keys))] + ws() + ":" + ws() + randJSON(r, depth-1) + ws()
		}
		return "{" + strings.Join(parts, ",") + "}"
	case depth > 0 && k < 5:
		n := r.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = ws() + randJSON(r, depth-1) + ws()
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return []string{`1`, `-2.5e3`, `"x"`, `"a\"b\\c\u00e9\n"`, `true`, `false`, `null`, `"]}"`, `0`}[r.IntN(9)]
}

func TestLazyJSONMatchesTree(t *testing.T) {
	paths := []string{"$", "$.a", "$.b", "$.a.b", "$.a[0]", "$[1]", "$[0].a", "$['a b']", `$["k\"q"]`, "$.é",
		"strict $.a", "strict $.a[1]", "strict $[0]", "lax $.b[2].a", "$.a[5]"}
	r := rand.New(rand.NewPCG(3, 4))
	docs := []string{"", " ", "{", `{"a":1}x`, `{"a":1,"a":2}`, `{"a": [1, {"b": "c"}]}`, "[1,2", `"\ud83d\ude00"`}
	for range 3000 {
		docs = append(docs, randJSON(r, 3))
	}
	for _, d := range docs {
		for _, p := range paths {
			wv, wf, werr := treeLookup(d, p)
			gv, gf, gerr := jsonLookup(d, p)
			if werr != nil {
				require.Error(t, gerr, "doc %q path %q", d, p)
				require.Equal(t, werr.Error(), gerr.Error(), "doc %q path %q", d, p)
				continue
			}
			require.NoError(t, gerr, "doc %q path %q", d, p)
			require.Equal(t, wf, gf, "doc %q path %q", d, p)
			require.Equal(t, jsonText(wv), jsonText(gv), "doc %q path %q", d, p)
			require.Equal(t, fmt.Sprintf("%T", wv), fmt.Sprintf("%T", gv), "doc %q path %q", d, p)
		}
	}
}

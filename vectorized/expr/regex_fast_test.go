package expr

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// TestFastRegexMatchesGoRegexp compares the fast matcher with
// regexp.Regexp on random strings.
func TestFastRegexMatchesGoRegexp(t *testing.T) {
	patterns := []string{
		`(&|^)channel_id=([^&]*)`,
		`channel_id=(\d+)`,
		`foo(.*?)(bar)`,
		`a+b*c?`,
		`^ab|cd$`,
		`(a|ab)(c|bcd)(d*)`,
		`x{2,3}y`,
		`[a-c]+?=`,
		`(é|&)=+`,
		`^$`,
		`=(.*)&`,
		`(b)?a`,
		`a.c`,
		`[^&=]{1,2}=`,
		`()`,
		`(a*)*`,
		`\bfoo`,
		`(?i)abc`,
	}
	alphabet := []string{"a", "b", "c", "d", "x", "y", "&", "=", "é", "channel_id=", "foo", "bar", "1", "\n", "\xff"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		f := newFastRegex(p)
		if f == nil {
			continue // unsupported syntax falls back
		}
		caps := make([]int, 2*f.ncap)
		for range 3000 {
			var b strings.Builder
			for range rng.IntN(12) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			s := b.String()
			want := re.FindStringSubmatchIndex(s)
			got := f.find(s, caps)
			require.Equal(t, want != nil, got, "pattern %q on %q", p, s)
			if got {
				require.Equal(t, want, caps, "pattern %q on %q", p, s)
			}
		}
	}
}

func TestFastRegexBacktrackingBudget(t *testing.T) {
	p := `a*a*a*a*a*b`
	f := newFastRegex(p)
	require.NotNil(t, f)
	s := strings.Repeat("a", 2000)
	caps := make([]int, 2*f.ncap)
	require.False(t, f.find(s, caps))
	require.True(t, f.find(s+"b", caps))
	require.Equal(t, []int{0, 2001}, caps)
}

func TestFastRegexSupport(t *testing.T) {
	for _, tc := range []struct {
		p  string
		ok bool
	}{
		{`(&|^)channel_id=([^&]*)`, true},
		{`(?i)abc`, false},
		{`\bfoo`, false},
		{`(ab)*`, false},
		{`[`, false},
	} {
		require.Equal(t, tc.ok, newFastRegex(tc.p) != nil, tc.p)
	}
	f := newFastRegex(`(&|^)channel_id=([^&]*)`)
	require.Equal(t, "channel_id=", f.need)
	require.Equal(t, 0, f.needMin)
	require.Equal(t, 1, f.needMax)
}

func TestRegexpMatchKernel(t *testing.T) {
	rows := make([][]any, len(nexmarkURLs))
	for i, u := range nexmarkURLs {
		rows[i] = []any{u, int32(i)}
	}
	rec := buildRec(t, nexmarkSchema, rows)
	defer rec.Release()
	url := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	s := func(v string) logical.Expr { return lit(v, types.StringT.WithNullable(false)) }
	for _, tc := range []struct {
		p      logical.Expr
		kernel bool
	}{
		{s("channel_id=[0-9]+"), true},
		{s("^a"), true},
		{s("b$"), true},
		{s("(?i)CHANNEL"), false},
		{s("[invalid"), false},
		{lit(nil, types.StringT), false},
	} {
		e := mustCall(t, "REGEXP", url, tc.p)
		t.Run(e.String(), func(t *testing.T) {
			checkAgainstOracle(t, e, nexmarkSchema, rec)
			ev, err := Compile(e, nexmarkSchema, testReg, testCtx)
			require.NoError(t, err)
			_, ok := ev.(*compiled).root.(*regexpMatchNode)
			require.Equal(t, tc.kernel, ok)
		})
	}
}

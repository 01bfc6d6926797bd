package flinkdiff

import "testing"

func TestSameUpToSignedZero(t *testing.T) {
	for _, c := range []struct {
		a, b []string
		want bool
	}{
		{[]string{"(-0.547, 1, 1)", "(0.0, 3, 2)"}, []string{"(-0.0, 3, 2)", "(-0.547, 1, 1)"}, true},
		{[]string{"(x, 0.0)", "(NULL, 0.0)"}, []string{"(x, -0.0)", "(NULL, -0.0)"}, true},
		{[]string{"([-0.0, -0.0], 1)"}, []string{"([0.0, 0.0], 1)"}, true},
		{[]string{"(0.0, 3, 2)"}, []string{"(-0.0, 3, 1)"}, false}, // another count
		{[]string{"(-0.05)"}, []string{"(0.05)"}, false},           // not a zero
		{[]string{"(0.0)"}, []string{"(0.0)"}, false},              // no signed zero: not this difference
	} {
		if got := sameUpToSignedZero(c.a, c.b); got != c.want {
			t.Errorf("sameUpToSignedZero(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

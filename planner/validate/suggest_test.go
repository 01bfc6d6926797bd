package validate

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSuggest(t *testing.T) {
	cases := []struct {
		word       string
		candidates []string
		want       []string
	}{
		{"uper", []string{"lower", "upper", "trim"}, []string{"upper"}},
		{"amuont", []string{"amount", "user_id"}, []string{"amount"}}, // transposition: 1
		{"kk", []string{"a", "b"}, nil},                               // distance 2 > 1 for short words
		{"b", []string{"a"}, nil},                                     // never a one-letter replacement
		{"kk", []string{"k", "kkk", "x"}, []string{"k", "kkk"}},       // ties keep their order
		{"A", []string{"a"}, []string{"a"}},                           // names are case-sensitive: say so
		{"Amount", []string{"amount"}, []string{"amount"}},            // case only
		{"amount", []string{"amount"}, nil},                           // the word itself is never suggested
		{"table.exec.mini-batch.enabeld", []string{"table.exec.mini-batch.enabled", "table.exec.mini-batch.size"}, []string{"table.exec.mini-batch.enabled"}},
		{"tabel", []string{"cable", "table"}, []string{"table"}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, Suggest(c.word, c.candidates), c.word)
	}
	require.Equal(t, "Did you mean 'upper'?", DidYouMean("uper", []string{"upper"}))
	require.Equal(t, "Did you mean 'k' or 'kkk'?", DidYouMean("kk", []string{"k", "kkk"}))
	require.Equal(t, "", DidYouMean("zzz", []string{"upper"}))
}

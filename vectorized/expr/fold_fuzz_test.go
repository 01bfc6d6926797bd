package expr

import (
	"math/rand/v2"
	"testing"
)

// FuzzFolding is TestFoldingMatchesEvaluation driven by the fuzzer: each
// input seeds the random expression and batch generators; folding must
// agree with evaluation (see foldCheck).
func FuzzFolding(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(3))
	f.Add(uint64(7), uint64(8), uint8(0))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, depth uint8) {
		r := rand.New(rand.NewPCG(s1, s2))
		g := &gen{r: r}
		rows := randRows(r, testSchema, 1+r.IntN(8), 25)
		rec := buildRec(t, testSchema, rows)
		defer rec.Release()
		e := g.expr(int(s1%gKinds), 1+int(depth%5))
		var removed, failed int
		foldCheck(t, e, rec, rows, &removed, &failed)
	})
}

package expr

import (
	"math/rand/v2"
	"os"
	"testing"
)

// TestSoak is a longer run of the oracle comparison (24,000 random
// expressions); it runs only with SOAK=1 to keep the package fast.
func TestSoak(t *testing.T) {
	if os.Getenv("SOAK") == "" {
		t.Skip()
	}
	for seed := uint64(100); seed < 130; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		g := &gen{r: r}
		for iter := 0; iter < 800; iter++ {
			n := 1 + r.IntN(70)
			rec := buildRec(t, testSchema, randRows(r, testSchema, n, []int{0, 10, 50, 90}[iter%4]))
			e := g.expr(iter%gKinds, 2+r.IntN(5))
			checkAgainstOracle(t, e, testSchema, rec)
			rec.Release()
		}
	}
}

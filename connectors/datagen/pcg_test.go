package datagen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPCGAdvance(t *testing.T) {
	for _, n := range []uint64{0, 1, 2, 3, 7, 64, 1000, 12345} {
		a, b := rand.NewPCG(3, seedSalt), rand.NewPCG(3, seedSalt)
		for range n {
			a.Uint64()
		}
		require.NoError(t, pcgAdvance(b, n))
		require.Equal(t, a.Uint64(), b.Uint64(), "n=%d", n)
		sa, _ := a.MarshalBinary()
		sb, _ := b.MarshalBinary()
		require.Equal(t, sa, sb, "n=%d", n)
	}
}

// TestPCGUniform: pcgUniform draws exactly what uniformInt draws through
// rand.Rand (values and number of draws), also where Uint64N rejects
// about half of the draws.
func TestPCGUniform(t *testing.T) {
	ranges := [][2]int64{{0, 999}, {-5, 1000}, {-128, 127}, {0, 0}, {math.MinInt64, math.MaxInt64},
		{math.MinInt64, 0}, {math.MinInt64 / 3, math.MaxInt64 / 3 * 2}, {7, 7 + 1<<40}}
	for _, r := range ranges {
		a, b := rand.NewPCG(5, seedSalt), rand.NewPCG(5, seedSalt)
		rng := rand.New(a)
		for i := range 2000 {
			require.Equal(t, uniformInt(rng, r[0], r[1]), pcgUniform(b, r[0], r[1]), "range %v draw %d", r, i)
		}
		require.Equal(t, a.Uint64(), b.Uint64(), "range %v", r)
	}
}

package datagen

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// The constants of math/rand/v2's PCG: its 128-bit state advances as
// state = state*mul + inc at every Uint64.
const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
)

type u128 struct{ hi, lo uint64 }

func (a u128) mul(b u128) u128 {
	hi, lo := bits.Mul64(a.lo, b.lo)
	return u128{hi + a.hi*b.lo + a.lo*b.hi, lo}
}

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}
}

// pcgAdvance moves p n steps ahead, as n calls of p.Uint64 would, in
// O(log n) (Brown's jump-ahead of a linear congruential generator). A
// split skips the rows of the other splits so for fields that draw a
// fixed number of values per row.
func pcgAdvance(p *rand.PCG, n uint64) error {
	if n == 0 {
		return nil
	}
	b, err := p.MarshalBinary()
	if err != nil {
		return err
	}
	if len(b) != 20 || string(b[:4]) != "pcg:" {
		return fmt.Errorf("datagen: unexpected PCG state encoding %q", b)
	}
	state := u128{binary.BigEndian.Uint64(b[4:12]), binary.BigEndian.Uint64(b[12:20])}
	accMul, accPlus := u128{0, 1}, u128{}
	curMul, curPlus := u128{pcgMulHi, pcgMulLo}, u128{pcgIncHi, pcgIncLo}
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			accMul = accMul.mul(curMul)
			accPlus = accPlus.mul(curMul).add(curPlus)
		}
		curPlus = curMul.add(u128{0, 1}).mul(curPlus)
		curMul = curMul.mul(curMul)
	}
	state = accMul.mul(state).add(accPlus)
	binary.BigEndian.PutUint64(b[4:12], state.hi)
	binary.BigEndian.PutUint64(b[12:20], state.lo)
	return p.UnmarshalBinary(b)
}

// pcgUniform returns a uniform integer in [lo, hi] drawn from p: the value
// and the draws of uniformInt with rand.New(p) on a 64-bit platform
// (Lemire's multiply-and-reject of math/rand/v2's Uint64N), without the
// calls through the rand.Source interface.
func pcgUniform(p *rand.PCG, lo, hi int64) int64 {
	span := uint64(hi - lo)
	if span == math.MaxUint64 {
		return int64(p.Uint64())
	}
	n := span + 1
	if n&span == 0 { // a power of two: masked
		return lo + int64(p.Uint64()&span)
	}
	h, l := bits.Mul64(p.Uint64(), n)
	if l < n {
		thresh := -n % n
		for l < thresh {
			h, l = bits.Mul64(p.Uint64(), n)
		}
	}
	return lo + int64(h)
}

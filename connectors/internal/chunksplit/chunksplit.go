// Package chunksplit is the progress bookkeeping of generator sources that
// cut their stream into chunks dealt round-robin to parallel splits
// (nexmark, datagen): split i of n takes chunks i, i+n, …, so what a split
// has emitted follows from its layout and its next row. After a restore at
// another layout, a split must skip the rows some former split had
// emitted.
package chunksplit

// Pos is the progress of one split: split Split of Splits, chunks of Chunk
// rows, Next the index of the next row of the stream it considers.
type Pos struct {
	Split, Splits, Chunk int64
	Next                 int64
}

// Covers reports whether the split had emitted row k.
func (p Pos) Covers(k int64) bool {
	return k < p.Next && (k/p.Chunk)%p.Splits == p.Split
}

// Pending returns the runs of rows in [lo, hi) that no split of inherited
// had emitted.
func Pending(inherited []Pos, lo, hi int64) [][2]int64 {
	if lo >= hi {
		return nil
	}
	// former progress up to lo covers nothing from here on
	var live []Pos
	for _, q := range inherited {
		if q.Next > lo {
			live = append(live, q)
		}
	}
	if len(live) == 0 {
		return [][2]int64{{lo, hi}}
	}
	var runs [][2]int64
	start := int64(-1)
	for k := lo; k < hi; k++ {
		done := false
		for _, q := range live {
			if q.Covers(k) {
				done = true
				break
			}
		}
		switch {
		case !done && start < 0:
			start = k
		case done && start >= 0:
			runs = append(runs, [2]int64{start, k})
			start = -1
		}
	}
	if start >= 0 {
		runs = append(runs, [2]int64{start, hi})
	}
	return runs
}

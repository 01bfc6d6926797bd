package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// ijCompactMinKeys is the size of the join-key table below which it is
// never rebuilt (a variable for tests).
var ijCompactMinKeys = 4096

// compactKeys rebuilds the join-key table without the keys for which
// neither side keeps a row, once they are most of it. Without it an
// interval join over ever-new keys (a session id, an order id) would keep
// one table entry per key ever seen, and every watermark would scan them
// all: state would grow without bound even though the rows expire.
func (j *IntervalJoin) compactKeys() error {
	if j.table == nil {
		return nil
	}
	g := j.table.Len()
	if g < ijCompactMinKeys {
		return nil
	}
	var live []int32
	for id := range g {
		for _, s := range j.sides {
			if id < len(s.lists) && len(s.lists[id]) > 0 {
				live = append(live, int32(id))
				break
			}
		}
	}
	if len(live)*2 > g {
		return nil
	}
	keys := j.table.Keys(vectorized.Mem)
	defer func() {
		for _, k := range keys {
			k.Release()
		}
	}()
	kts := make([]arrow.DataType, len(keys))
	kept := make([]arrow.Array, len(keys))
	for i, k := range keys {
		kts[i] = k.DataType()
		a, err := GatherArray(k, live)
		if err != nil {
			return fmt.Errorf("compacting the join keys: %w", err)
		}
		defer a.Release()
		kept[i] = a
	}
	t, err := agg.NewGroupTable(kts)
	if err != nil {
		return fmt.Errorf("compacting the join keys: %w", err)
	}
	ids := make([]uint32, len(live))
	if len(live) > 0 {
		if err := t.Insert(kept, len(live), ids); err != nil {
			return fmt.Errorf("compacting the join keys: %w", err)
		}
	}
	for _, s := range j.sides {
		lists := make([][]ijEntry, t.Len())
		for n, old := range live {
			if int(old) < len(s.lists) {
				lists[ids[n]] = s.lists[old]
			}
		}
		s.lists = lists
	}
	j.table = t
	return nil
}

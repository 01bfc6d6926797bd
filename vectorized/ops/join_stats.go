package ops

// StateSizer is implemented by operators that can estimate the memory of
// their current state (EXPLAIN ANALYZE's state=…). StateBytes is called
// between calls of the operator, never concurrently with them.
type StateSizer interface {
	StateBytes() int64
}

var (
	_ StateSizer = (*HashJoin)(nil)
	_ StateSizer = (*NestedLoopJoin)(nil)
	_ StateSizer = (*SetOp)(nil)
)

// StateBytes implements StateSizer: the build side's rows, its key table
// and row chains.
func (h *HashJoin) StateBytes() int64 {
	n := h.core.stateBytes() + int64(4*(len(h.head)+len(h.next)+len(h.nullRows)))
	if h.table != nil {
		n += h.table.SizeBytes()
	}
	return n
}

// StateBytes implements StateSizer: the build side's rows.
func (j *NestedLoopJoin) StateBytes() int64 { return j.core.stateBytes() }

// StateBytes implements StateSizer: the distinct rows and their counts.
func (s *SetOp) StateBytes() int64 {
	n := int64(8 * (len(s.left) + len(s.right)))
	if s.table != nil {
		n += s.table.SizeBytes()
	}
	return n
}

// stateBytes estimates the memory of the build side's rows and match
// flags.
func (c *joinCore) stateBytes() int64 {
	var n int64
	if c.build != nil {
		n = recordBytes(c.build)
	} else {
		for _, r := range c.buildRecs {
			n += recordBytes(r)
		}
	}
	return n + int64(len(c.buildMatched))
}

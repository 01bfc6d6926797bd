package build

import (
	"fmt"

	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// The disk state backend of a run (state.backend.type = 'rocksdb',
// Env.DiskState): one diskstate.Backend per run, whose working directory
// goes under io.tmp.dirs and is removed when the run ends, and one store
// per instance of every operator that keeps keyed state. Operators not
// yet ported to the disk backend make the build fail rather than keep
// their state on the heap under 'rocksdb'.

// diskStateful is implemented by the operators that can keep their keyed
// state on disk.
type diskStateful interface {
	SetDiskState(b *diskstate.Backend, name string)
}

// attachDiskState gives the operator of r its store, or fails when n
// keeps state but cannot keep it on disk.
func (b *builder) attachDiskState(n physical.Node, r runner) error {
	if b.disk == nil {
		return nil
	}
	var op vectorized.Operator
	var multi any
	switch r := r.(type) {
	case *unaryRunner:
		if r.sink != nil {
			return nil
		}
		op = r.op
	case *multiRunner:
		switch d := r.op.(type) {
		case *ops.StreamJoin:
			b.setDisk(n, d)
			return nil
		case *ops.WindowJoin:
			b.setDisk(n, d)
			return nil
		}
		multi = r.op
	default:
		return nil
	}
	if statelessNode(n) {
		return nil
	}
	if op != nil {
		if f, ok := op.(*fusedOp); ok {
			op = f.second
		}
		if d, ok := diskOp(op); ok {
			b.setDisk(n, d)
			return nil
		}
		if _, ok := op.(vectorized.Stateful); !ok || scalarState(op) {
			return nil
		}
	} else if _, ok := multi.(vectorized.Stateful); !ok || scalarState(multi) {
		return nil
	}
	return fmt.Errorf("not supported yet: state.backend.type 'rocksdb' for %s (set state.backend.type = 'hashmap' for this job)", n.Name())
}

// setDisk gives the instance of n being built its store.
func (b *builder) setDisk(n physical.Node, d diskStateful) {
	sub := 0
	if b.inst >= 0 {
		sub = b.inst
	}
	name := fmt.Sprintf("%s-%d", n.Name(), sub)
	if b.ck != nil {
		t, _, _ := b.task(n)
		name = t.String()
	}
	d.SetDiskState(b.disk, name)
	b.disk.Reserve()
}

// scalarState reports the operators whose state is a few scalars, not
// keyed state (watermarks, a LIMIT's count): it stays on the heap.
func scalarState(op any) bool {
	switch op.(type) {
	case *ops.WatermarkAssigner, *passWatermarks, *ops.WatermarkCalc, *ops.StreamUnion, *ops.Limit, *ops.LookupJoin:
		return true
	}
	return false
}

// diskOp returns the disk-state form of an operator, if it has one.
func diskOp(op vectorized.Operator) (diskStateful, bool) {
	switch op := op.(type) {
	case *ops.GroupAggregate:
		return op, true
	case *ops.MiniBatchGroupAggregate:
		return op.GroupAggregate, true
	case *ops.GlobalGroupAggregate:
		return op, true
	case *ops.Deduplicate:
		return op, true
	case *ops.Rank:
		return op, true
	case *ops.ChangelogNormalize:
		return op, true
	case *ops.WindowAggregate:
		return op, true
	case *ops.GlobalWindowAggregate:
		return op, true
	}
	return nil, false
}

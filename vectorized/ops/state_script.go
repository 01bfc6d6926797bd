package ops

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// Checkpointed state of script (Python, JavaScript) aggregates: a group's
// accumulator object goes through the script's Export (a plain Go value
// tree: nil, bool, int64, *big.Int, float64, string, []byte, []any,
// map[string]any),
// is encoded into one BINARY value (tagged, map keys sorted) and comes
// back through Import. An accumulator the script cannot export fails the
// snapshot with "not supported yet: checkpointing script aggregate …".

var _ agg.StepStater = (*scriptStepper)(nil)

// errScriptState marks a script accumulator that could not be exported.
var errScriptState = errors.New("the accumulator cannot be exported")

// scriptStateError names the script aggregate whose state could not be
// exported.
func scriptStateError(name string, err error) error {
	return fmt.Errorf("not supported yet: checkpointing script aggregate %s: %w", name, err)
}

// Tags of the encoded exported values.
const (
	svNil byte = iota
	svFalse
	svTrue
	svInt
	svFloat
	svString
	svBytes
	svList
	svMap
	svBigInt // sign byte (0 or 1 for negative), uvarint length, big-endian magnitude
)

// appendScriptValue appends the encoding of an exported accumulator value.
func appendScriptValue(buf []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(buf, svNil), nil
	case bool:
		if x {
			return append(buf, svTrue), nil
		}
		return append(buf, svFalse), nil
	case int64:
		return binary.AppendVarint(append(buf, svInt), x), nil
	case int:
		return binary.AppendVarint(append(buf, svInt), int64(x)), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(buf, svFloat), math.Float64bits(x)), nil
	case *big.Int:
		// a Python int beyond 64 bits (a sum that grew past BIGINT)
		if x.IsInt64() {
			return binary.AppendVarint(append(buf, svInt), x.Int64()), nil
		}
		sign := byte(0)
		if x.Sign() < 0 {
			sign = 1
		}
		mag := x.Bytes()
		buf = binary.AppendUvarint(append(buf, svBigInt, sign), uint64(len(mag)))
		return append(buf, mag...), nil
	case string:
		buf = binary.AppendUvarint(append(buf, svString), uint64(len(x)))
		return append(buf, x...), nil
	case []byte:
		buf = binary.AppendUvarint(append(buf, svBytes), uint64(len(x)))
		return append(buf, x...), nil
	case []any:
		buf = binary.AppendUvarint(append(buf, svList), uint64(len(x)))
		for _, e := range x {
			var err error
			if buf, err = appendScriptValue(buf, e); err != nil {
				return nil, err
			}
		}
		return buf, nil
	case *udf.Map:
		// a script mapping (Python dict, JavaScript object) with string keys
		m := make(map[string]any, len(x.Keys))
		for i, k := range x.Keys {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("an exported accumulator holds a mapping with a %T key", k)
			}
			m[ks] = x.Values[i]
		}
		return appendScriptValue(buf, m)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf = binary.AppendUvarint(append(buf, svMap), uint64(len(x)))
		for _, k := range keys {
			buf = binary.AppendUvarint(buf, uint64(len(k)))
			buf = append(buf, k...)
			var err error
			if buf, err = appendScriptValue(buf, x[k]); err != nil {
				return nil, err
			}
		}
		return buf, nil
	}
	if d, ok := v.(interface{ ExportDescription() string }); ok {
		return nil, fmt.Errorf("an exported accumulator holds %s", d.ExportDescription())
	}
	return nil, fmt.Errorf("an exported accumulator holds a %T", v)
}

var errBadScriptState = errors.New("corrupt script aggregate state")

// errDistinctMerge refuses to move or merge the accumulators of a DISTINCT
// script aggregate (window state, session window merges): the values seen
// per group would have to move with them.
var errDistinctMerge = errors.New("not supported yet: moving the state of a DISTINCT script aggregate function (window checkpoints and merges)")

// readScriptValue decodes one value from b and returns the rest.
func readScriptValue(b []byte) (any, []byte, error) {
	if len(b) == 0 {
		return nil, nil, errBadScriptState
	}
	tag, b := b[0], b[1:]
	uvar := func() (int, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)) && tag != svList && tag != svMap {
			return 0, errBadScriptState
		}
		b = b[k:]
		return int(n), nil
	}
	switch tag {
	case svNil:
		return nil, b, nil
	case svFalse:
		return false, b, nil
	case svTrue:
		return true, b, nil
	case svInt:
		v, k := binary.Varint(b)
		if k <= 0 {
			return nil, nil, errBadScriptState
		}
		return v, b[k:], nil
	case svFloat:
		if len(b) < 8 {
			return nil, nil, errBadScriptState
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:], nil
	case svBigInt:
		if len(b) < 1 || b[0] > 1 {
			return nil, nil, errBadScriptState
		}
		neg := b[0] == 1
		b = b[1:]
		n, err := uvar()
		if err != nil || n > len(b) {
			return nil, nil, errBadScriptState
		}
		v := new(big.Int).SetBytes(b[:n])
		if neg {
			v.Neg(v)
		}
		return v, b[n:], nil
	case svString, svBytes:
		n, err := uvar()
		if err != nil || n > len(b) {
			return nil, nil, errBadScriptState
		}
		if tag == svString {
			return string(b[:n]), b[n:], nil
		}
		return append([]byte{}, b[:n]...), b[n:], nil
	case svList:
		n, err := uvar()
		if err != nil || n > len(b) {
			return nil, nil, errBadScriptState
		}
		out := make([]any, n)
		for i := range out {
			if out[i], b, err = readScriptValue(b); err != nil {
				return nil, nil, err
			}
		}
		return out, b, nil
	case svMap:
		n, err := uvar()
		if err != nil || n > len(b) {
			return nil, nil, errBadScriptState
		}
		out := make(map[string]any, n)
		for range n {
			kn, k := binary.Uvarint(b)
			if k <= 0 || kn > uint64(len(b)-k) {
				return nil, nil, errBadScriptState
			}
			key := string(b[k : k+int(kn)])
			b = b[k+int(kn):]
			if out[key], b, err = readScriptValue(b); err != nil {
				return nil, nil, err
			}
		}
		return out, b, nil
	}
	return nil, nil, errBadScriptState
}

// exportAccs encodes the accumulators of groups (NULL: none yet).
func exportAccs(mem memory.Allocator, inst udf.AggInstance, accs []udf.Acc, groups []uint32) (arrow.Array, error) {
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	var buf []byte
	for _, g := range groups {
		if int(g) >= len(accs) || accs[g] == nil {
			b.AppendNull()
			continue
		}
		v, err := inst.Export(accs[g])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errScriptState, err)
		}
		if buf, err = appendScriptValue(buf[:0], v); err != nil {
			return nil, fmt.Errorf("%w: %v", errScriptState, err)
		}
		b.Append(buf)
	}
	return b.NewArray(), nil
}

// importAcc decodes row i of an exported state column (nil for NULL).
func importAcc(inst udf.AggInstance, a arrow.Array, i int) (udf.Acc, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	v, rest, err := readScriptValue(a.(*array.Binary).Value(i))
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, errBadScriptState
	}
	return inst.Import(v)
}

// checkScriptState validates a state column of exported accumulators.
func checkScriptState(groups []uint32, state []arrow.Array) error {
	if len(state) != 1 || state[0].DataType().ID() != arrow.BINARY || state[0].Len() < len(groups) {
		return fmt.Errorf("internal: script aggregate state of %d columns", len(state))
	}
	return nil
}

// StepStateTypes implements agg.StepStater: the exported accumulator, and
// for a DISTINCT call the counts of the group's argument rows.
func (s *scriptStepper) StepStateTypes() []arrow.DataType {
	if s.counts != nil {
		return []arrow.DataType{arrow.BinaryTypes.Binary, arrow.BinaryTypes.Binary}
	}
	return []arrow.DataType{arrow.BinaryTypes.Binary}
}

// StepState implements agg.StepStater.
func (s *scriptStepper) StepState(mem memory.Allocator, groups []uint32) ([]arrow.Array, error) {
	a, err := exportAccs(mem, s.acc.inst, s.acc.accs, groups)
	if err != nil {
		return nil, err
	}
	if s.counts != nil {
		return []arrow.Array{a, s.counts.export(mem, groups)}, nil
	}
	return []arrow.Array{a}, nil
}

// SetStepState implements agg.StepStater: the accumulators are imported
// and each group's current result is read back.
func (s *scriptStepper) SetStepState(groups []uint32, state []arrow.Array) error {
	if s.counts != nil {
		if len(state) != 2 || state[1].DataType().ID() != arrow.BINARY || state[1].Len() < len(groups) {
			return fmt.Errorf("internal: DISTINCT script aggregate state of %d columns", len(state))
		}
		for i, g := range groups {
			if err := s.counts.restore(g, state[1], i); err != nil {
				return fmt.Errorf("restoring a script aggregate: %w", err)
			}
		}
		state = state[:1]
	}
	if err := checkScriptState(groups, state); err != nil {
		return err
	}
	for i, g := range groups {
		acc, err := importAcc(s.acc.inst, state[0], i)
		if err != nil {
			return fmt.Errorf("restoring a script aggregate: %w", err)
		}
		if acc == nil {
			continue
		}
		v, err := s.acc.inst.GetValue(acc)
		if err != nil {
			return err
		}
		s.acc.accs[g], s.cur[g], s.has[g] = acc, v, true
	}
	return nil
}

// scriptMerger exports and imports the accumulators of a script aggregate
// (a window's hash aggregation, spilling, the local and global phases of a
// two-phase aggregate): Merge into a group without an accumulator imports
// it, into one with an accumulator merges through the script (an error
// when the script defines no merge; the planner splits only those that
// do).
type scriptMerger struct{ *scriptAccumulator }

var _ agg.Merger = scriptMerger{}

// StateTypes implements agg.Merger.
func (m scriptMerger) StateTypes() []arrow.DataType {
	return []arrow.DataType{arrow.BinaryTypes.Binary}
}

// State implements agg.Merger.
func (m scriptMerger) State(mem memory.Allocator) ([]arrow.Array, error) {
	if m.distinct != nil {
		return nil, fmt.Errorf("%w: %s", errDistinctMerge, m.name)
	}
	groups := make([]uint32, len(m.accs))
	for i := range groups {
		groups[i] = uint32(i)
	}
	a, err := exportAccs(mem, m.inst, m.accs, groups)
	if err != nil {
		return nil, err
	}
	return []arrow.Array{a}, nil
}

// Merge implements agg.Merger.
func (m scriptMerger) Merge(groups []uint32, state []arrow.Array) error {
	if m.distinct != nil {
		return fmt.Errorf("%w: %s", errDistinctMerge, m.name)
	}
	if err := checkScriptState(groups, state); err != nil {
		return err
	}
	for i, g := range groups {
		acc, err := importAcc(m.inst, state[0], i)
		if err != nil {
			return fmt.Errorf("restoring a script aggregate: %w", err)
		}
		if acc == nil {
			continue
		}
		if int(g) >= len(m.accs) {
			return fmt.Errorf("internal: group %d of %d", g, len(m.accs))
		}
		if int(g) < len(m.evalOK) {
			m.evalOK[g] = false
		}
		if m.accs[g] == nil {
			m.accs[g] = acc
		} else if err := m.inst.Merge(m.accs[g], acc); err != nil {
			return err
		}
	}
	return nil
}

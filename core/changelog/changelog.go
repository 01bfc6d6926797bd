// Package changelog defines Flink's row kinds and changelog modes.
package changelog

// RowKind is the kind of change a row carries in a changelog stream.
type RowKind uint8

// The four row kinds, in Flink's order.
const (
	Insert       RowKind = iota // +I
	UpdateBefore                // -U
	UpdateAfter                 // +U
	Delete                      // -D
)

// String returns Flink's short string: +I, -U, +U or -D.
func (k RowKind) String() string {
	switch k {
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return "??"
}

// IsRetraction reports -U and -D, the kinds that take a row back.
func (k RowKind) IsRetraction() bool { return k == UpdateBefore || k == Delete }

// Mode is the set of row kinds a stream may contain.
type Mode uint8

// Mode bits.
const (
	ModeInsert Mode = 1 << iota
	ModeUpdateBefore
	ModeUpdateAfter
	ModeDelete
)

// Common modes.
const (
	InsertOnly Mode = ModeInsert
	Upsert     Mode = ModeInsert | ModeUpdateAfter | ModeDelete
	All        Mode = ModeInsert | ModeUpdateBefore | ModeUpdateAfter | ModeDelete
)

// Contains reports whether the mode admits kind k.
func (m Mode) Contains(k RowKind) bool { return m&(1<<k) != 0 }

// IsInsertOnly reports a mode of +I only.
func (m Mode) IsInsertOnly() bool { return m == InsertOnly }

// String prints the mode as Flink's EXPLAIN CHANGELOG_MODE does: "I,UB,UA,D".
func (m Mode) String() string {
	s := ""
	add := func(x string) {
		if s != "" {
			s += ","
		}
		s += x
	}
	if m&ModeInsert != 0 {
		add("I")
	}
	if m&ModeUpdateBefore != 0 {
		add("UB")
	}
	if m&ModeUpdateAfter != 0 {
		add("UA")
	}
	if m&ModeDelete != 0 {
		add("D")
	}
	return s
}

package build

import (
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/planner/physical"
)

// nodeBuilder builds the runner of one plan node from its children's
// runners (ch, in the order of Children) and its output schema as Arrow.
type nodeBuilder func(b *builder, n physical.Node, ch []runner, out *arrow.Schema) (runner, error)

// builders maps a physical node type to its builder. Each node's builder
// registers itself from the file that builds it (an init calling
// register); a node type without one fails with "not supported yet".
var builders = map[reflect.Type]nodeBuilder{}

// register makes f the builder of the node type T.
func register[T physical.Node](f func(b *builder, n T, ch []runner, out *arrow.Schema) (runner, error)) {
	t := reflect.TypeFor[T]()
	if _, dup := builders[t]; dup {
		panic("build: two builders for " + t.String())
	}
	builders[t] = func(b *builder, n physical.Node, ch []runner, out *arrow.Schema) (runner, error) {
		return f(b, n.(T), ch, out)
	}
}

// build builds n's children, then n through its registered builder.
func (b *builder) build(n physical.Node) (runner, error) {
	name := n.Name()
	ch, err := b.children(n)
	if err != nil {
		return nil, err
	}
	out, err := arrowSchema(name, n.Schema())
	if err != nil {
		return nil, err
	}
	f, ok := builders[reflect.TypeOf(n)]
	if !ok {
		return nil, fmt.Errorf("not supported yet: physical node %s", name)
	}
	return f(b, n, ch, out)
}

package ast

import (
	"fmt"
	"reflect"
	"strings"
)

// Dump renders any syntax node as a compact one-line description for tests
// and debugging: Type{Field:value ...} with zero-valued fields and
// positions left out, expressions printed with Format inside «», and data
// types printed with DataType.String.
func Dump(node any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(node))
	return b.String()
}

var (
	exprType     = reflect.TypeFor[Expr]()
	dataTypeType = reflect.TypeFor[*DataType]()
	posType      = reflect.TypeFor[Pos]()
)

func dumpValue(b *strings.Builder, v reflect.Value) {
	if !v.IsValid() {
		b.WriteString("nil")
		return
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		v = v.Elem()
	}
	if v.Type() == dataTypeType {
		b.WriteString(v.Interface().(*DataType).String())
		return
	}
	if v.Type().Implements(exprType) && !(v.Kind() == reflect.Pointer && v.IsNil()) {
		b.WriteString("«")
		b.WriteString(Format(v.Interface().(Expr)))
		b.WriteString("»")
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		dumpValue(b, v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[ObjectName]() {
			b.WriteString(v.Interface().(ObjectName).String())
			return
		}
		b.WriteString(v.Type().Name())
		b.WriteByte('{')
		first := true
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			fv := v.Field(i)
			_, isEnum := fv.Interface().(fmt.Stringer)
			isEnum = isEnum && fv.Kind() == reflect.Int
			if f.Type == posType || !f.IsExported() || (fv.IsZero() && !isEnum) {
				continue
			}
			if !first {
				b.WriteByte(' ')
			}
			first = false
			b.WriteString(f.Name)
			b.WriteByte(':')
			dumpValue(b, fv)
		}
		b.WriteByte('}')
	case reflect.Slice:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			dumpValue(b, v.Index(i))
		}
		b.WriteByte(']')
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		fmt.Fprintf(b, "%v", v.Interface())
	}
}

package core

import "unsafe"

// ohSlice is a growable slice of a pointer-free T whose memory is outside
// the Go heap where the platform allows (offheapAlloc): the garbage
// collector neither scans it nor counts it toward its heap goal, so a
// large materialized view does not double the process's memory through
// GC headroom. It must be freed (free) exactly once; it is never grown by
// append.
type ohSlice[T any] struct {
	mem []byte
	s   []T
}

// reserve makes room for n elements, keeping the current ones.
func (o *ohSlice[T]) reserve(n int) {
	if n <= cap(o.s) {
		return
	}
	c := max(n, 1024/int(unsafe.Sizeof(*new(T))), cap(o.s)+cap(o.s)/2)
	o.realloc(c)
}

// realloc moves the elements into memory for exactly c of them (c >=
// len).
func (o *ohSlice[T]) realloc(c int) {
	var zero T
	mem := offheapAlloc(c * int(unsafe.Sizeof(zero)))
	s := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), c)[:len(o.s)]
	copy(s, o.s)
	o.free()
	o.mem, o.s = mem, s
}

// bytes returns the memory held.
func (o *ohSlice[T]) bytes() int { return cap(o.mem) }

func (o *ohSlice[T]) free() {
	if o.mem != nil {
		offheapFree(o.mem)
	}
	o.mem, o.s = nil, nil
}

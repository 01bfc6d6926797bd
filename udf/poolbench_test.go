package udf

import "testing"

func BenchmarkPoolGetPut(b *testing.B) {
	type it struct{ x int }
	p := NewPool(func() (*it, error) { return &it{}, nil }, nil)
	for i := 0; i < b.N; i++ {
		x, _ := p.Get()
		p.Put(x)
	}
}

func BenchmarkWatch(b *testing.B) {
	w := NewWatch(DefaultTimeout, func() {})
	defer w.Close()
	for i := 0; i < b.N; i++ {
		w.Begin()
		w.End()
	}
}

func BenchmarkAtomicStore(b *testing.B) {
	var w Watch
	for i := 0; i < b.N; i++ {
		w.start.Store(int64(i))
	}
}

//go:build !unix

package core

import "unsafe"

// offheapAlloc returns n zeroed bytes; without mmap they are Go memory
// (8-byte aligned, free to collect once unreferenced).
func offheapAlloc(n int) []byte {
	w := make([]uint64, max(1, (n+7)/8))
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n)
}

func offheapFree([]byte) {}

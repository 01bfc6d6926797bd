//go:build unix

package core

import "syscall"

// offheapAlloc returns n zeroed bytes of an anonymous private mapping:
// memory outside the Go heap (see ohSlice).
func offheapAlloc(n int) []byte {
	if n == 0 {
		n = 1
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic("tablerun: cannot map memory for a materialized view: " + err.Error())
	}
	return b
}

// offheapFree unmaps b, a slice offheapAlloc returned.
func offheapFree(b []byte) { _ = syscall.Munmap(b) }

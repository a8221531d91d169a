package hugepages

import (
	"bytes"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// enabledFile holds the kernel's policy: "always [madvise] never", the bracketed word
// in force.
const enabledFile = "/sys/kernel/mm/transparent_hugepage/enabled"

// sizeFile holds the size of a transparent huge page in bytes (2 MiB with 4 KiB base
// pages; 32 MiB or 512 MiB on arm64 kernels with 16 or 64 KiB pages).
const sizeFile = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"

// hugeSize reads sizeFile, 0 if unknown.
func hugeSize() uintptr {
	b, err := os.ReadFile(sizeFile)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n == 0 || n&(n-1) != 0 {
		return 0
	}
	return uintptr(n)
}

var (
	mu       sync.Mutex
	reserved int64 // the largest n asked for so far
	advised  int64 // the bytes advised so far
)

// policy returns the bracketed word of the kernel's policy, "" if unknown.
func policy() string {
	b, err := os.ReadFile(enabledFile)
	if err != nil {
		return ""
	}
	i, j := bytes.IndexByte(b, '['), bytes.IndexByte(b, ']')
	if i < 0 || j < i {
		return ""
	}
	return string(b[i+1 : j])
}

func reserve(n, touch int64) int64 {
	mu.Lock()
	defer mu.Unlock()
	if n <= reserved || policy() != "madvise" || !mappable(n-reserved) {
		return 0
	}
	lo, hi, ok := advise(n - reserved)
	if !ok {
		return 0
	}
	// The heap serves the earlier reservations' bytes first: of the touch bytes, those
	// beyond them fall in this range.
	if t := min(touch-reserved, int64(hi-lo)); t > 0 {
		go populate(lo, lo+uintptr(t)&^(populateChunk-1))
	}
	reserved = n
	advised += int64(hi - lo)
	return int64(hi - lo)
}

// populate faults in [lo, hi) (a multiple of populateChunk long), lowest chunk first,
// with MADV_POPULATE_WRITE: the kernel allocates and zeroes the pages as a first write
// would, without writing them, so that a page the heap has handed out meanwhile keeps
// its contents. It stops at the first refusal (kernels before 5.14 do not know the
// advice).
func populate(lo, hi uintptr) {
	for a := lo; a < hi; a += populateChunk {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, a, populateChunk, madvPopulateWrite); e != 0 {
			return
		}
	}
}

// populateChunk is what one call of populate's faults in: small enough that the heap's
// first allocations from the range, which go to its lowest addresses, find them
// faulted in early.
const populateChunk = 32 << 20

// madvPopulateWrite is MADV_POPULATE_WRITE (linux/mman.h, Linux 5.14).
const madvPopulateWrite = 23

func total() int64 {
	mu.Lock()
	defer mu.Unlock()
	return advised
}

// mappable reports whether the kernel maps n more bytes of private read-write memory
// now, as the Go runtime maps its heap: the runtime cannot survive a refused heap
// mapping (it throws "out of memory"), so a reservation the kernel would refuse (strict
// overcommit accounting, an address-space limit) is not attempted.
func mappable(n int64) bool {
	if n <= 0 || n > math.MaxInt {
		return false
	}
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return false
	}
	return syscall.Munmap(b) == nil
}

// advise allocates n bytes of fresh heap (the runtime does not zero memory it has just
// mapped, so advise touches no page; memory the heap freed earlier would be zeroed, which a
// later, larger call in a long-lived process may meet), advises the huge pages inside
// them, [lo, hi), and returns them to the heap with a collection (cheap: the heap is
// small before a model is built). ok is false if the block holds no whole huge page or
// the kernel refused.
func advise(n int64) (lo, hi uintptr, ok bool) {
	size := hugeSize()
	if size == 0 {
		return 0, 0, false
	}
	block := make([]byte, n)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(block)))
	lo = (start + size - 1) &^ (size - 1)
	hi = (start + uintptr(n)) &^ (size - 1)
	if lo < hi {
		_, _, e := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugePage)
		ok = e == 0
	}
	runtime.KeepAlive(block) // its last use: the collection below frees it
	runtime.GC()
	return lo, hi, ok
}

// madvHugePage is MADV_HUGEPAGE (linux/mman.h), the same on every architecture.
const madvHugePage = 14

// Package hugepages asks the kernel to back a large model's memory with transparent
// huge pages (2 MiB) where it does so only on request.
//
// A machine of thousands of nodes keeps hundreds of MiB of state that every window
// of the parallel engine walks afresh: each event's first reads miss the caches and,
// with 4 KiB pages, the TLB too (an L2 TLB of 2,048 entries reaches 8 MiB), so each
// miss also walks the page tables. With huge pages one TLB entry covers 2 MiB, and a
// first touch faults once per 2 MiB instead of once per 4 KiB. Red Storm's halo3d on
// one worker runs about 8% faster, on two about 10% (BENCHMARKS.md, fifteenth session).
//
// Linux backs anonymous memory with huge pages either always, never, or only where a
// program asks with madvise(MADV_HUGEPAGE) (/sys/kernel/mm/transparent_hugepage/
// enabled; "madvise" is the default of many distributions), and the Go runtime does not
// ask for its heap. Reserve asks for the memory the model is about to take: it grows
// the heap by that many bytes, advises the new range, and frees it; the heap's
// allocator then serves the model from that range (it takes the lowest free addresses
// first), and every page the model touches there faults in as a huge page.
//
// A first touch is the kernel's zeroing of a 2 MiB page, and on a virtual machine the
// host's too: 0.14 to 3.8 s a GiB on the machine of BENCHMARKS.md, by the host's state,
// and up to 1.6 s of a halo3d 16x16x16 run's system time, on the engine's thread.
// Reserve hands that work to a goroutine that faults in the part of the range the
// caller expects the model to take (touch; MADV_POPULATE_WRITE, lowest addresses
// first), while the model is built and on a core the engine leaves idle (a run on one
// worker, or a process of a run across processes before its windows start). The rest
// of the range stays untouched, so resident memory grows only by what the model would
// have touched anyway, or by the caller's overestimate of it.
//
// Which pages back memory changes no result: it is a matter of speed only.
package hugepages

// Reserve asks that the next n bytes the Go heap hands out be backed by transparent
// huge pages, if the kernel backs anonymous memory with them only on request, and
// starts faulting in the first touch of them (the bytes the caller expects the model
// to take) on a goroutine of its own. It returns the bytes advised: 0 if there is
// nothing to do (the kernel uses huge pages always or never, the platform has no such
// request, or an earlier call asked for n or more) or if the kernel would refuse the
// memory or the advice. A later call with a larger n advises what exceeds the earlier
// largest.
func Reserve(n, touch int64) int64 { return reserve(n, touch) }

// Advised is the sum of what Reserve advised in this process.
func Advised() int64 { return total() }

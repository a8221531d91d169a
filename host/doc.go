// Package host models the Opteron side of a node: CPU cores running processes and the
// operating system's interrupt path, with costs for traps (about 75 ns under Catamount),
// interrupts (at least 2 us; Brightwell et al. 2005), cache misses (70-120 ns; Brightwell
// 2011), memory copies and uncached stores to the SeaStar.
//
// Workloads are straight-line Go code (a Program) calling a blocking API on their Proc:
// Compute, MMIOWrite, MMIORead, WaitFor a location the NIC writes, Trap. Each process is
// a deterministic coroutine (iter.Pull) driven by the CPU actor: control moves between
// the actor and the coroutine synchronously, so there is no concurrency and the run does
// not depend on goroutine scheduling. A process keeps its own clock: costs that observe
// nothing (computation, posted stores) advance it without an event, and an operation that
// observes the machine (waiting for memory, reading a register) first lets simulated
// time catch up with it.
//
// Host memory is modelled by what the NIC writes into it: a write whose payload
// implements Addressed lands at its address, where processes and the interrupt handler
// can find it and where a waiting process notices it after a cache miss.
//
// The CPU's one port, "bus", leads to whatever I/O bus the node has: HyperTransport to
// a SeaStar (ht), PCI to a StarT-JR card (startjr/pci), PCIe to an InfiniBand HCA. The
// CPU knows a bus only through the messages below; BusWrite and BusRead send the bus's
// own messages, MMIOWrite and MMIORead are their HyperTransport forms.
//
//	message            port   effect
//	InterruptRequest   bus    the interrupt handler runs on core 0 (InterruptCost + its work)
//	ReadCompletion     bus    a bus read returns to its process
//	Addressed          bus    a NIC write lands in host memory; waiters wake
//	resume             self   a process's wait is over
//
// Emitted: the bus's writes (*ht.Write for MMIOWrite) and reads (ht.Read for MMIORead).
package host

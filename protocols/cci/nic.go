package cci

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// CmdKind is the kind of a command for the NIC.
type CmdKind uint8

// Commands. The user kinds go through the NIC command queue that a node's processes
// share (credits in the host-side control page); the kernel kinds through the
// kernel's own mailbox.
const (
	CmdSend     CmdKind = iota // transmit a message (or connection handshake) from a TX slot
	CmdRMAWrite                // transmit an RMA write: header from a TX slot, data from a region
	CmdRMARead                 // transmit an RMA read request
	CmdCredit                  // only return completion queue credits and ready RX areas
	CmdOpen                    // kernel: an endpoint is open
	CmdClose                   // kernel: close an endpoint; the NIC answers with Closed
	CmdRow                     // kernel: a header-table row was built (or cleared)
	CmdRegister                // kernel: a memory region was registered (or deregistered)
	numCmds
)

var cmdNames = [numCmds]string{"send", "rma-write", "rma-read", "credit", "open", "close", "row", "register"}

func (k CmdKind) String() string {
	if k < numCmds {
		return cmdNames[k]
	}
	return fmt.Sprintf("cmd%d", uint8(k))
}

// user reports whether k goes through the shared command queue.
func (k CmdKind) user() bool { return k <= CmdCredit }

// Command is an entry of the NIC command queue (uncached SeaStar SRAM, written with
// HyperTransport stores; Dillow & Atchley 2011 s.IV.B). Every user command returns the
// completion queue credits and ready RX areas the library has accumulated.
type Command struct {
	Kind    CmdKind
	EP      int
	Credits int                // completion queue entries consumed by the library since its last command
	Ready   *actors.Array[int] // RX areas appended to the ready ring since its last command (nil: none); the firmware gives the array back

	// CmdSend, CmdRMAWrite, CmdRMARead
	Row    int           // header-table row: the connection slot the kernel built it for
	Type   Type          // selects the word within the row
	Dst    router.NodeID // destination node
	Addr   uint64        // the TX slot: the header after the first word, then the payload
	Len    int64         // payload bytes (RMA: transfer bytes)
	Hdr    *Header       // what the library wrote into the TX slot after the first word (&hdr)
	hdr    Header
	Data   []byte // payload bytes, when modelled
	Cookie uint64 // echoed in the send completion
	Local  Handle // RMA: the local region
	LocOff int64  // RMA: offset in it

	// CmdRow
	RowEP    uint16 // destination endpoint written into the row's words
	RowTypes uint16 // bit set of the types the row holds words for; 0 clears the row
	// CmdRegister
	MR *Region // nil: deregister MR.Handle.Index
	// CmdOpen
	Areas []int // the RX areas initially in the ready ring

	actors.PoolMark // from userCmds: the firmware releases it once it has taken it
}

// userCmds recycles the commands the library posts per message (transmits, credit
// returns): the firmware takes each once, and releases it after the handler that took
// it and its trace.
var userCmds actors.Pool[Command, *Command]

func (c *Command) String() string {
	switch c.Kind {
	case CmdSend, CmdRMAWrite, CmdRMARead:
		return fmt.Sprintf("cci.Command(%s ep%d row%d %s node%d %dB #%d)", c.Kind, c.EP, c.Row, c.Type, c.Dst, c.Len, c.Cookie)
	}
	return fmt.Sprintf("cci.Command(%s ep%d)", c.Kind, c.EP)
}

// CQKind is the kind of a completion queue entry.
type CQKind uint8

// Completion queue entries, written by the NIC.
const (
	CQSend   CQKind = iota // a transmission has left (or its command was refused: Status)
	CQRecv                 // a message is in an RX area
	CQAnswer               // an ack, refusal or not-ready answer arrived (Wire)
	CQArea                 // the NIC closed out an RX area after Count messages
	CQRead                 // the data of an RMA read is in the local region
	numCQ
)

var cqNames = [numCQ]string{"send", "recv", "answer", "area", "read"}

func (k CQKind) String() string {
	if k < numCQ {
		return cqNames[k]
	}
	return fmt.Sprintf("cq%d", uint8(k))
}

// CQEntry is a completion queue entry in host memory, at Addr.
type CQEntry struct {
	Addr   uint64
	Kind   CQKind
	Status Status
	Cookie uint64 // CQSend
	Area   int    // CQRecv, CQArea
	Off    int64  // CQRecv: offset of the message in the area
	Count  int    // CQArea
	Wire   *Wire  // CQRecv, CQAnswer, CQRead
	actors.PoolMark
}

// cqEntries recycles completion queue entries: the library releases each once it has
// consumed it (Endpoint.consume).
var cqEntries actors.Pool[CQEntry, *CQEntry]

func (e *CQEntry) String() string {
	switch e.Kind {
	case CQSend:
		return fmt.Sprintf("cci.CQ(send #%d %s)", e.Cookie, e.Status)
	case CQArea:
		return fmt.Sprintf("cci.CQ(area %d closed after %d)", e.Area, e.Count)
	}
	return fmt.Sprintf("cci.CQ(%s %s)", e.Kind, e.Wire)
}

// Address implements host.Addressed.
func (e *CQEntry) Address() uint64 { return e.Addr }

// CmdIndex is the NIC's command consumer index, written into the host-side control
// page: the library knows from it how many command queue entries are free. The
// firmware takes it from cmdIndexes and host memory gives it back when the next index
// replaces it (host.Superseded): the library reads it at once.
type CmdIndex struct {
	Addr     uint64
	Consumed uint64
	actors.PoolMark
}

var cmdIndexes actors.Pool[CmdIndex, *CmdIndex]

// readyLists recycles the arrays of ready RX areas the library hands to the NIC with a
// command (Command.Ready): the firmware gives one back once it has taken the areas.
var readyLists actors.Arrays[int]

// Superseded implements host.Superseded.
func (c *CmdIndex) Superseded() { cmdIndexes.Release(c) }

func (c *CmdIndex) String() string  { return fmt.Sprintf("cci.CmdIndex(%d)", c.Consumed) }
func (c *CmdIndex) Address() uint64 { return c.Addr }

// Closed tells the kernel that the NIC has finished with a closed endpoint: no task
// of it is left, its memory may be released.
type Closed struct {
	Addr uint64
	EP   int
}

func (c *Closed) String() string  { return fmt.Sprintf("cci.Closed(ep%d)", c.EP) }
func (c *Closed) Address() uint64 { return c.Addr }

// Landed records the bytes of an RMA write the NIC placed into a region (written only
// when real bytes are modelled): the target's library applies it to the region's
// bytes, as the DMA did.
type Landed struct {
	Addr uint64
	MR   *Region
	Off  int64
	Data []byte
}

func (l *Landed) String() string {
	return fmt.Sprintf("cci.Landed(%s +%d %dB)", l.MR.Handle, l.Off, len(l.Data))
}
func (l *Landed) Address() uint64 { return l.Addr }

// Access is what a region allows remote peers to do.
type Access uint8

// Region access rights.
const (
	AccessRead  Access = 1 << iota // remote RMA reads
	AccessWrite                    // remote RMA writes
)

// Region is a registered memory region: pinned host memory the NIC reads and writes
// for RMA without the host. Data holds its bytes when they are modelled.
type Region struct {
	EP     int
	Handle Handle
	Addr   uint64
	Len    int64
	Access Access
	Data   []byte
}

// Host memory layout (addresses are names, not real memory).
const (
	cqBase      = 0x10_0000_0000
	ctrlAddr    = 0x20_0000_0000
	closedBase  = 0x21_0000_0000
	logBase     = 0x30_0000_0000
	txBase      = 0x40_0000_0000
	rowBase     = 0x50_0000_0000
	scratchBase = 0x51_0000_0000
	rxBase      = 0x80_0000_0000
	mrBase      = 0xA0_0000_0000
	logSlots    = 1 << 22
)

func cqAddr(ep int, i uint64, slots int) uint64 {
	return cqBase + uint64(ep)<<28 + (i%uint64(slots))<<5
}
func closedAddr(ep int) uint64        { return closedBase + uint64(ep)<<8 }
func logAddr(ep int, i uint64) uint64 { return logBase + uint64(ep)<<28 + (i%logSlots)<<5 }
func rowAddr(ep, row int, t Type) uint64 {
	return rowBase + uint64(ep)<<24 + uint64(row)<<7 + uint64(t)<<3
}
func scratchAddr(ep int) uint64 { return scratchBase + uint64(ep)<<12 }

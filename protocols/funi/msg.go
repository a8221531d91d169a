package funi

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Limits of the JAM primitives (Hoe & Ehrlich 1996 Table 1).
const (
	MaxArgs  = 20  // JAM_n: up to 20 integer arguments
	MaxMfer  = 16  // JAM_mfer_n: up to 16 words, zero copy
	MaxDMA   = 640 // JAM_DMA_n: up to 640 words (2560 bytes) per initiation
	lineWord = 8   // words of a shared-memory line (squall line_bytes / 4 by default)
)

// Kind is a message's primitive class.
type Kind uint8

// Kinds.
const (
	AM4   Kind = iota // JAM_4: handler and 4 arguments
	AMN               // JAM_n: handler and n arguments
	Xfer4             // JAM_xfer_4: 4 words to a segment
	Mfer              // JAM_mfer_n: n words moved zero copy (FUNI reads the source, writes the target)
	DMA               // JAM_DMA_n: n words moved by the DMA engines, packetized
)

var kindNames = [...]string{"am4", "amn", "xfer4", "mfer", "dma"}

func (k Kind) String() string { return kindNames[k] }

// Message is what a JAM primitive enqueues and a handler receives. A handler may read
// it only while it runs: the library recycles it once every holder is done with it
// (newMessage).
type Message struct {
	Kind    Kind
	Reply   bool // the high-priority queues (the _reply primitives)
	Src     int
	Dst     int
	GID     int
	Handler int      // AM4, AMN: the handler's index
	Args    []uint32 // AM4, AMN, Xfer4: in args, the message's own copy
	Seg     int      // Xfer4, Mfer, DMA: the transfer segment
	Words   int      // Mfer, DMA: payload words
	ID      uint64   // unique per run: source node and count
	Sent    actors.Time

	args [MaxArgs]uint32
	refs actors.Refs
	actors.PoolMark
}

var messages actors.Pool[Message, *Message]

// newMessage returns m from the pool with its own copy of args (at most MaxArgs). Its
// holders each drop it once: the sending firmware once it has composed the message's
// packets, every data packet carrying it once recycled (Frame.drop; a packet lost to an
// overflow too, Frame.Lost), and the Rx
// entry the receiving firmware deposits once the JAM library has taken it.
func newMessage(m Message, args []uint32) *Message {
	x := messages.New(m)
	x.Args = append(x.args[:0], args...)
	x.refs.Set(1) // the sender's, until its firmware has composed the packets
	return x
}

// hold adds a holder of m; the caller must hold it.
func (m *Message) hold() { m.refs.Hold() }

// drop ends one holder's hold on m; the last recycles it.
func (m *Message) drop() {
	if m.refs.Drop() {
		messages.Release(m)
	}
}

func (m *Message) String() string {
	return fmt.Sprintf("funi.Message(%s %d->%d gid %d #%#x)", m.Kind, m.Src, m.Dst, m.GID, m.ID)
}

// prio is the queue pair's index: 1 for the _reply primitives.
func (m *Message) prio() int {
	if m.Reply {
		return 1
	}
	return 0
}

// SlotWords is the words the host writes into a Tx slot and the firmware reads back:
// the header word and the handler or segment word, then the arguments; for Mfer and
// DMA, the source and target addresses and the length instead of data.
func (m *Message) SlotWords() int {
	switch m.Kind {
	case Mfer, DMA:
		return 5
	}
	return 2 + len(m.Args)
}

// wireWords is the words of the message on the network besides the FUNI header: the
// handler or segment word and the arguments, or for Mfer the target and the data.
func (m *Message) wireWords() int {
	switch m.Kind {
	case Mfer:
		return 2 + m.Words
	case DMA:
		return 2 // per packet, besides its part of the data
	}
	return 1 + len(m.Args)
}

// PayloadBytes is the user data a message moves (the MB/s of Table 2).
func (m *Message) PayloadBytes() int64 {
	switch m.Kind {
	case Mfer, DMA:
		return int64(4 * m.Words)
	}
	return int64(4 * len(m.Args))
}

// RxEntry is a message the firmware deposited into an Rx slot: it lands at Addr in host
// memory (the slot's valid bit set with it). The JAM library recycles it once it has
// taken the message and cleared the slot.
type RxEntry struct {
	Addr uint64
	Msg  *Message
	actors.PoolMark
}

var rxEntries actors.Pool[RxEntry, *RxEntry]

func (e *RxEntry) String() string  { return fmt.Sprintf("funi.RxEntry(%#x %s)", e.Addr, e.Msg) }
func (e *RxEntry) Address() uint64 { return e.Addr }

// RxAddr is the host address of Rx slot idx of queue prio of application gid.
func RxAddr(gid, prio, idx int) uint64 {
	return 0xF000<<32 | uint64(gid&0xff)<<24 | uint64(prio&1)<<20 | uint64(idx&0xfffff)
}

// ShmDone is the value a shared-memory load returns at its address (the host's load
// completes when it lands).
type shmDone struct{ addr uint64 }

func (s shmDone) String() string { return fmt.Sprintf("funi.shmDone(%#x)", s.addr) }

// Mailbox registers: Tx head and tail, Rx head and tail, per priority, for the running
// application (the PCI80960 has eight).
func txHead(prio int) int { return 0 + prio }
func txTail(prio int) int { return 2 + prio }
func rxHead(prio int) int { return 4 + prio }
func rxTail(prio int) int { return 6 + prio }

// frameKind is the type of a FUNI network packet.
type frameKind uint8

const (
	fData     frameKind = iota // a message (or a part of a DMA transfer)
	fAck                       // positive acknowledgement (high priority)
	fNack                      // negative acknowledgement: retry (high priority)
	fRestart                   // a node's new round identifier (high priority broadcast)
	fShmReq                    // a shared-memory line request to its home
	fShmReply                  // the line
)

var frameNames = [...]string{"data", "ack", "nack", "restart", "shm-req", "shm-reply"}

// Frame is the FUNI content of a network packet (wire.Packet.Body).
type Frame struct {
	Kind  frameKind
	Src   int
	GID   int
	Round uint32
	Seq   uint64 // per sender: the packet acknowledged
	Msg   *Message
	Part  int // DMA: this packet's part, of Parts
	Parts int
	Words int    // data words this packet carries (DMA part, shm line)
	Addr  uint64 // shared-memory line
	Why   string // nack: the reason (gid, full)
	own   *framed
}

func (f *Frame) String() string {
	return fmt.Sprintf("funi.%s(from %d seq %d round %d)", frameNames[f.Kind], f.Src, f.Seq, f.Round)
}

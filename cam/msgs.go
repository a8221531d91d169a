package cam

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// SetEntry binds a CAM entry to a source node (from the PPC). The PPC sends a *SetEntry
// from NewSetEntry, which the CAM recycles once the entry is bound; the CAM takes a
// SetEntry value too (tests).
type SetEntry struct {
	Entry int
	Src   router.NodeID
	actors.PoolMark
}

func (m SetEntry) String() string { return fmt.Sprintf("cam.SetEntry(%d node%d)", m.Entry, m.Src) }

// setPool recycles bindings (one pool for all partitions).
var setPool actors.Pool[SetEntry, *SetEntry]

// NewSetEntry returns a binding of entry to src that Release recycles.
func NewSetEntry(entry int, src router.NodeID) *SetEntry {
	return setPool.New(SetEntry{Entry: entry, Src: src})
}

// Release recycles m if it came from NewSetEntry; the caller must be its last holder.
func (m *SetEntry) Release() { setPool.Release(m) }

// ClearEntry frees a CAM entry (from the PPC).
type ClearEntry struct{ Entry int }

func (m ClearEntry) String() string { return fmt.Sprintf("cam.ClearEntry(%d)", m.Entry) }

// PushCommand appends an RX command to an entry's queue (from the PPC). The PPC sends a
// *PushCommand from NewPush, which the CAM recycles once the command is queued; the CAM
// takes a PushCommand value too (tests).
type PushCommand struct {
	Entry int
	Cmd   Command
	actors.PoolMark
}

// pushPool recycles pushes (one pool for all partitions).
var pushPool actors.Pool[PushCommand, *PushCommand]

// NewPush returns a push of cmd onto entry that Release recycles.
func NewPush(entry int, cmd Command) *PushCommand {
	return pushPool.New(PushCommand{Entry: entry, Cmd: cmd})
}

// Release recycles m if it came from NewPush; the caller must be its last holder.
func (m *PushCommand) Release() { pushPool.Release(m) }

func (m PushCommand) String() string { return fmt.Sprintf("cam.PushCommand(%d %s)", m.Entry, m.Cmd) }

// Swap rebinds a CAM entry in use to another source in one operation (from the PPC):
// the entry's queued commands are read out and returned in Swapped, and the entry
// then matches Src with Cmds queued. It is CAM swapping (Dillow & Atchley 2011
// s.IV.B): when every entry is taken, the contents of one (its source and up to
// seven commands, about 128 bytes) are spilled to memory to make room.
type Swap struct {
	Entry int
	Src   router.NodeID
	Cmds  []Command
}

func (m Swap) String() string {
	return fmt.Sprintf("cam.Swap(%d node%d %d cmds)", m.Entry, m.Src, len(m.Cmds))
}

// Swapped returns to the PPC what a Swap took out of the entry: the source it matched
// and its commands not yet handed to the RX DMA engine, in order.
type Swapped struct {
	Entry int
	Src   router.NodeID
	Cmds  []Command
}

func (m Swapped) String() string {
	return fmt.Sprintf("cam.Swapped(%d node%d %d cmds)", m.Entry, m.Src, len(m.Cmds))
}

// Lookup asks for the next command for packets from Src (from the RX DMA engine, for
// the packet at the head of its FIFO).
type Lookup struct{ Src router.NodeID }

func (m Lookup) String() string { return fmt.Sprintf("cam.Lookup(node%d)", m.Src) }

// Cancel withdraws the RX DMA engine's outstanding Lookup: the PPC discarded the head
// packet it was for. A Grant already on its way still counts (its command is the
// source's next one).
type Cancel struct{}

func (Cancel) String() string { return "cam.Cancel" }

// Grant hands the RX DMA engine the command for its head packet's source. The CAM sends
// a *Grant from NewGrant, which the engine recycles once it has taken the command; the
// engine takes a Grant value too (tests).
type Grant struct {
	Src router.NodeID
	Cmd Command
	actors.PoolMark
}

func (m Grant) String() string { return fmt.Sprintf("cam.Grant(node%d %s)", m.Src, m.Cmd) }

// grantPool recycles grants (one pool for all partitions: actors.Pool is safe across
// the engine's workers).
var grantPool actors.Pool[Grant, *Grant]

// NewGrant returns a grant of cmd for source src that Release recycles: a command
// granted costs no heap allocation.
func NewGrant(src router.NodeID, cmd Command) *Grant {
	return grantPool.New(Grant{Src: src, Cmd: cmd})
}

// Release recycles g if it came from NewGrant; the caller must be its last holder.
func (m *Grant) Release() { grantPool.Release(m) }

// Stalled tells the PPC that the RX pipeline waits on Src: Miss if no entry matches it,
// else its entry's command queue is empty. The CAM sends a *Stalled from NewStalled,
// which the PPC recycles (Release) once the firmware's handler has run: handlers take
// it by value.
type Stalled struct {
	Src  router.NodeID
	Miss bool
	actors.PoolMark
}

// stalledPool recycles stall reports (one pool for all partitions).
var stalledPool actors.Pool[Stalled, *Stalled]

// NewStalled returns a stall report that Release recycles.
func NewStalled(src router.NodeID, miss bool) *Stalled {
	return stalledPool.New(Stalled{Src: src, Miss: miss})
}

// Release recycles m if it came from NewStalled; the caller must be its last holder.
func (m *Stalled) Release() { stalledPool.Release(m) }

func (m Stalled) String() string {
	if m.Miss {
		return fmt.Sprintf("cam.Stalled(node%d miss)", m.Src)
	}
	return fmt.Sprintf("cam.Stalled(node%d empty)", m.Src)
}

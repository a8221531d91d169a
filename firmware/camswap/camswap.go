// Package camswap is the firmware's management of a SeaStar CAM's entries when more
// peers send at once than the CAM has entries: CAM swapping as CCI's firmware does it
// (Dillow & Atchley 2011 s.IV.B.2), shared by CCI (protocols/cci) and by Portals 3.3's
// go-back-n recovery (protocols/portals3, portals.recovery=gbn).
//
// A source (a peer node) with RX commands and no entry binds a free one; with none
// free it waits in order. When the RX pipeline stalls on a packet whose source has no
// entry (cam.Stalled with Miss), that source gets one at once: a free one, or the next
// entry in clock order taken from another source through the CAM's swap. The CAM
// returns the victim's queued commands (cam.Swapped); the firmware spills them into
// the victim's record (its Spill cost) and reads them back (Unspill) when the victim
// gets an entry again. A source whose commands have all retired releases its entry to
// the oldest waiting source.
//
// The firmware keeps its commands in its own structures and tells the manager about
// them through Firmware; the manager keeps the entries, the clock, the waiting queue
// and the stall, and sends the CAM its SetEntry, Swap and ClearEntry commands. Costs:
// Config.SwapInstr instructions to choose a victim and swap, Config.SwappedInstr to
// take a returned entry back, plus 2 uncached SRAM stores per command handed over with a swap
// and 2 + 2 per command uncached loads to read a returned entry out of the CAM.
package camswap

import (
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/firmware"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
)

// Source is the manager's part of a firmware's record of a source node: embed it.
type Source struct {
	Node     router.NodeID
	Entry    int  // CAM entry, -1 if none
	Queued   int  // commands pushed into the entry and not retired
	Swapping bool // its entry was swapped away; the CAM has not returned its commands yet
	Spilled  bool // its commands are in its record, to be read back when it gets an entry
	Waiting  bool // in the queue for an entry
}

// NewSource returns a source record of node n without an entry.
func NewSource(n router.NodeID) Source { return Source{Node: n, Entry: -1} }

// Src is a firmware's source record type.
type Src interface {
	comparable
	CAM() *Source
}

// Firmware is what the manager needs of the firmware that uses it.
type Firmware[S Src] interface {
	// Lookup returns the record of node n, if it has one.
	Lookup(n router.NodeID) (S, bool)
	// Ready reports whether the source's next commands are known (it can use an entry).
	Ready(s S) bool
	// Next removes up to n of the source's next commands, to go into its entry with a
	// swap (in the form they are pushed, notification and tag set).
	Next(s S, n int) []cam.Command
	// PutBack puts commands the CAM returned of a swapped-out source back before its
	// others.
	PutBack(s S, cmds []cam.Command)
	// Backlog reports whether the source has commands outside the CAM.
	Backlog(s S) bool
	// Feed pushes the source's commands into its entry, while the entry has room.
	Feed(x *ppc.Exec, s S)
	// Spill charges writing a swapped-out source's commands into its record; Unspill
	// reading them back.
	Spill(x *ppc.Exec, s S)
	Unspill(x *ppc.Exec, s S)
	// Swapped is told of each swap (for the firmware's counters).
	Swapped(x *ppc.Exec, victim S)
}

// Config describes the CAM and the firmware's costs.
type Config struct {
	Name         string // the firmware, for errors ("cci", "portals")
	Entries      int    // CAM entries (cam.entries)
	Depth        int    // commands an entry queues (cam.queue_depth)
	SwapInstr    int    // instructions to choose a victim and swap its entry
	SwappedInstr int    // instructions to take a returned entry back to spill it
	Peak         *int   // if not nil, kept at the most entries bound at once
}

// Entries manages the entries of one CAM.
type Entries[S Src] struct {
	fw Firmware[S]
	c  Config
	// owner is the source bound to each entry, zero if free. It grows as entries are
	// first used (the lowest first): a node talks to a few sources, not 256.
	owner   []S
	ids     firmware.IDs // the free entries
	clock   int          // next entry to consider as a swap victim
	wait    []S          // sources waiting for an entry, in order
	stalled bool
	stallOn router.NodeID
}

// New returns the manager of a CAM of c.Entries entries, all free.
func New[S Src](fw Firmware[S], c Config) *Entries[S] {
	return &Entries[S]{fw: fw, c: c, ids: firmware.NewIDs(0, c.Entries)}
}

// Free is the number of free entries.
func (m *Entries[S]) Free() int { return m.ids.Len() }

// Bind gives source s a free entry (there must be one) and feeds it.
func (m *Entries[S]) Bind(x *ppc.Exec, s S) {
	src := s.CAM()
	e := m.ids.Take()
	if e == len(m.owner) { // its first use
		var zero S
		m.owner = append(m.owner, zero)
	}
	m.owner[e], src.Entry, src.Waiting = s, e, false
	if m.c.Peak != nil {
		*m.c.Peak = max(*m.c.Peak, m.c.Entries-m.ids.Len())
	}
	m.unspill(x, s)
	x.CAMSet(e, src.Node)
	m.fw.Feed(x, s)
}

// Need is called when source s has commands: they are fed into its entry, or it binds a
// free one, or it waits for one (swapped in at once if the RX pipeline is stalled on
// it).
func (m *Entries[S]) Need(x *ppc.Exec, s S) {
	src := s.CAM()
	switch {
	case src.Entry >= 0:
		m.fw.Feed(x, s)
	case src.Swapping:
		// its old commands come back from the CAM first
	default:
		m.bindOrWait(x, s)
	}
	if m.stalled && m.stallOn == src.Node {
		m.unstall(x)
	}
}

// bindOrWait gives source s, which has no entry, a free one, or queues it (once) for
// the next entry that frees.
func (m *Entries[S]) bindOrWait(x *ppc.Exec, s S) {
	src := s.CAM()
	switch {
	case m.Free() > 0:
		m.Bind(x, s)
	case !src.Waiting:
		src.Waiting = true
		m.wait = append(m.wait, s)
	}
}

// Stalled is the RX pipeline waiting at a packet from node n, which has no entry (a
// cam.Stalled with Miss): n gets one, by swapping if none is free.
func (m *Entries[S]) Stalled(x *ppc.Exec, n router.NodeID) {
	m.stalled, m.stallOn = true, n
	m.unstall(x)
}

// unstall gives the stalled source an entry once its commands are known.
func (m *Entries[S]) unstall(x *ppc.Exec) {
	s, ok := m.fw.Lookup(m.stallOn)
	if !ok {
		return // its start of message is still on the way
	}
	src := s.CAM()
	switch {
	case src.Swapping:
		return // its swapped-out commands are still on the way
	case src.Entry >= 0:
	case !m.fw.Ready(s):
		return // its commands are not known yet (Need calls again)
	case m.Free() > 0:
		m.Bind(x, s)
	default:
		m.swap(x, s)
	}
	m.stalled = false
}

// swap takes the next entry in clock order from another source and gives it to s with
// its next commands; the CAM returns the victim's queued commands (Swapped).
func (m *Entries[S]) swap(x *ppc.Exec, s S) {
	x.Instr(m.c.SwapInstr)
	var zero S
	e := -1
	for i := range len(m.owner) {
		c := (m.clock + i) % len(m.owner)
		if m.owner[c] != zero && m.owner[c] != s {
			e = c
			break
		}
	}
	if e < 0 {
		return // the only entry bound is the stalled source's own: nothing to swap
	}
	m.clock = (e + 1) % len(m.owner)
	victim := m.owner[e]
	v := victim.CAM()
	v.Entry, v.Swapping = -1, true
	src := s.CAM()
	m.owner[e], src.Entry, src.Waiting = s, e, false
	cmds := m.fw.Next(s, m.c.Depth)
	src.Queued += len(cmds)
	m.unspill(x, s)
	x.StoreUncached(2 * len(cmds))
	x.CAM(cam.Swap{Entry: e, Src: src.Node, Cmds: cmds})
	m.fw.Swapped(x, victim)
}

// Returned takes back what the CAM returned of a swapped-out source (cam.Swapped): its
// commands are spilled into its record, and it binds a free entry or waits for one.
func (m *Entries[S]) Returned(x *ppc.Exec, r cam.Swapped) {
	x.Instr(m.c.SwappedInstr)
	x.LoadUncached(2 + 2*len(r.Cmds)) // read the entry out of the CAM
	s, ok := m.fw.Lookup(r.Src)
	if !ok || !s.CAM().Swapping {
		x.Fatalf("%s: CAM returned entry %d of node %d, which was not swapped out", m.c.Name, r.Entry, r.Src)
		return
	}
	src := s.CAM()
	src.Swapping = false
	src.Queued -= len(r.Cmds)
	if len(r.Cmds) > 0 {
		m.fw.PutBack(s, r.Cmds)
	}
	if m.fw.Backlog(s) {
		src.Spilled = true
		m.fw.Spill(x, s)
		m.bindOrWait(x, s)
	}
	if m.stalled {
		m.unstall(x)
	}
}

// Release frees the entry of a source whose commands have all retired; the oldest
// waiting source gets it.
func (m *Entries[S]) Release(x *ppc.Exec, s S) {
	src := s.CAM()
	if src.Entry < 0 {
		return // swapped out with its last command already granted: no entry to free
	}
	x.CAM(cam.ClearEntry{Entry: src.Entry})
	var zero S
	m.owner[src.Entry] = zero
	m.ids.Put(src.Entry)
	src.Entry = -1
	for m.Free() > 0 && len(m.wait) > 0 {
		w := m.wait[0]
		m.wait = m.wait[1:]
		ws := w.CAM()
		if ws.Waiting && ws.Entry < 0 && !ws.Swapping && m.fw.Ready(w) {
			m.Bind(x, w)
		}
		ws.Waiting = false
	}
}

// unspill reads a spilled source's commands back from its record.
func (m *Entries[S]) unspill(x *ppc.Exec, s S) {
	if src := s.CAM(); src.Spilled {
		src.Spilled = false
		m.fw.Unspill(x, s)
	}
}

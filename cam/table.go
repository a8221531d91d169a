package cam

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// Command is an RX command: what the RX DMA engine does with the next Bytes bytes
// arriving from the entry's source (Dillow & Atchley 2011, s.II).
type Command struct {
	Bytes   int64  // length covered, 1..CommandMax bytes; must be exhausted before the next command
	Discard bool   // drop the bytes instead of writing them to host memory
	Addr    uint64 // host address of the DMA (for traces; data contents are not modelled)
	CRC     bool   // check the message's end-to-end CRC at the end of the length
	Notify  bool   // tell the PPC when the command retires
	Tag     uint64 // identifies the command in the retirement notice
	// Cont marks a command that continues a message (not its first): the RX DMA engine
	// does not apply it to the first packet of another message (a packet of the same
	// source on another traffic class), which waits for the PPC instead.
	Cont bool
}

func (c Command) String() string {
	what := fmt.Sprintf("dma@%#x", c.Addr)
	if c.Discard {
		what = "discard"
	}
	s := fmt.Sprintf("%s %dB", what, c.Bytes)
	if c.CRC {
		s += " crc"
	}
	if c.Notify {
		s += fmt.Sprintf(" notify#%d", c.Tag)
	}
	return s
}

// Table is the CAM's state: entries matching source nodes, each with a bounded FIFO of
// commands. The index from source to entry makes a lookup O(1); semantics are those of
// a content-addressable memory: at most one valid entry per source.
type Table struct {
	depth   int
	entries actors.LazyArray[entry] // in chunks of entryChunk, allocated when first touched
	index   map[router.NodeID]int
	free    int // number of invalid entries
}

// entryChunk is how many entries the table allocates at a time: the firmware binds the
// lowest free entries first and most nodes talk to few peers at once, so a node's
// 256 entries mostly never exist (a machine of 10,000 nodes saves over 100 MB).
const entryChunk = 16

type entry struct {
	valid bool
	src   router.NodeID
	q     []Command // ring of depth slots
	head  int
	n     int
}

// NewTable returns an empty CAM with n entries of depth commands each.
func NewTable(n, depth int) *Table {
	return &Table{depth: depth, entries: actors.NewLazyArray[entry](n, entryChunk), index: map[router.NodeID]int{}, free: n}
}

// Len is the number of entries; Free the number of unbound ones.
func (t *Table) Len() int  { return t.entries.Len() }
func (t *Table) Free() int { return t.free }

// Set binds entry i to src. The entry must be free and no other entry may match src.
func (t *Table) Set(i int, src router.NodeID) error {
	if err := t.check(i); err != nil {
		return err
	}
	e := t.entries.At(i)
	if e.valid {
		return fmt.Errorf("cam: entry %d already matches node %d", i, e.src)
	}
	if j, ok := t.index[src]; ok {
		return fmt.Errorf("cam: node %d already has entry %d", src, j)
	}
	e.valid, e.src, e.head, e.n = true, src, 0, 0
	if e.q == nil {
		e.q = make([]Command, t.depth) // on first use: most nodes talk to few sources
	}
	t.index[src] = i
	t.free--
	return nil
}

// Clear frees entry i; its command queue must be empty.
func (t *Table) Clear(i int) error {
	if err := t.check(i); err != nil {
		return err
	}
	e := t.entries.At(i)
	switch {
	case !e.valid:
		return fmt.Errorf("cam: entry %d is not in use", i)
	case e.n > 0:
		return fmt.Errorf("cam: entry %d (node %d) still has %d commands", i, e.src, e.n)
	}
	e.valid = false
	delete(t.index, e.src)
	t.free++
	return nil
}

// Swap rebinds entry i, which must be in use, to src with cmds queued, and returns the
// source and queued commands it had. No other entry may match src.
func (t *Table) Swap(i int, src router.NodeID, cmds []Command) (router.NodeID, []Command, error) {
	if err := t.check(i); err != nil {
		return 0, nil, err
	}
	e := t.entries.At(i)
	switch {
	case !e.valid:
		return 0, nil, fmt.Errorf("cam: swap of unused entry %d", i)
	case len(cmds) > t.depth:
		return 0, nil, fmt.Errorf("cam: swap of %d commands into entry %d, deeper than its queue (%d)", len(cmds), i, t.depth)
	}
	if j, ok := t.index[src]; ok {
		return 0, nil, fmt.Errorf("cam: node %d already has entry %d", src, j)
	}
	old := e.src
	out := make([]Command, 0, e.n)
	for c, ok := t.Pop(i); ok; c, ok = t.Pop(i) {
		out = append(out, c)
	}
	delete(t.index, old)
	e.src, e.head = src, 0
	t.index[src] = i
	for _, c := range cmds {
		e.q[e.n] = c
		e.n++
	}
	return old, out, nil
}

// Push appends c to entry i's queue.
func (t *Table) Push(i int, c Command) error {
	if err := t.check(i); err != nil {
		return err
	}
	e := t.entries.At(i)
	switch {
	case !e.valid:
		return fmt.Errorf("cam: push to unused entry %d", i)
	case e.n == t.depth:
		return fmt.Errorf("cam: entry %d (node %d) command queue full (%d)", i, e.src, t.depth)
	}
	e.q[(e.head+e.n)%t.depth] = c
	e.n++
	return nil
}

// Lookup returns the entry matching src.
func (t *Table) Lookup(src router.NodeID) (int, bool) {
	i, ok := t.index[src]
	return i, ok
}

// Pop removes and returns the first command of entry i, if any.
func (t *Table) Pop(i int) (Command, bool) {
	e := t.entries.At(i)
	if !e.valid || e.n == 0 {
		return Command{}, false
	}
	c := e.q[e.head]
	e.head = (e.head + 1) % t.depth
	e.n--
	return c, true
}

// Queued is the number of commands in entry i's queue.
func (t *Table) Queued(i int) int { return t.entries.At(i).n }

// Source returns the node entry i matches and whether it is in use.
func (t *Table) Source(i int) (router.NodeID, bool) { e := t.entries.At(i); return e.src, e.valid }

func (t *Table) check(i int) error {
	if i < 0 || i >= t.entries.Len() {
		return fmt.Errorf("cam: entry %d out of range 0..%d", i, t.entries.Len()-1)
	}
	return nil
}

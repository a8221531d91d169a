package cam

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// Ports of a Block.
const (
	PortPPC   actors.Port = iota // programming in, Stalled out
	PortRXDMA                    // Lookup in, Grant out
)

// Block is the CAM actor.
type Block struct {
	p     Params
	t     *Table
	wait  bool // the RX pipeline waits for a command for waitSrc
	waitS router.NodeID
	since actors.Time
	Stats Stats
}

// Stats counts the CAM's activity.
type Stats struct {
	Lookups    int64
	Stalls     int64           // lookups that could not be answered at once
	StallTime  actors.Duration // total time the RX pipeline waited on the CAM
	Misses     int64           // stalls for a source without an entry
	PeakInUse  int             // most entries bound at once
	Programmed int64           // PPC programming operations
	Swaps      int64           // entries rebound by Swap
}

// set binds m's entry to its source.
func (b *Block) set(m SetEntry) error {
	err := b.t.Set(m.Entry, m.Src)
	b.Stats.PeakInUse = max(b.Stats.PeakInUse, b.t.Len()-b.t.Free())
	return err
}

// push appends m's command to its entry's queue.
func (b *Block) push(ctx actors.Context, m PushCommand) error {
	b.checkSize(ctx, m.Cmd)
	return b.t.Push(m.Entry, m.Cmd)
}

// checkSize fails the run if c covers no bytes or more than CommandMax.
func (b *Block) checkSize(ctx actors.Context, c Command) {
	if c.Bytes < 1 || c.Bytes > int64(b.p.CommandMax) {
		ctx.Fatalf("cam: command of %dB outside 1B..%s", c.Bytes, b.p.CommandMax)
	}
}

// onSwap rebinds an entry and returns its old contents to the PPC.
func (b *Block) onSwap(ctx actors.Context, m Swap) error {
	for _, c := range m.Cmds {
		b.checkSize(ctx, c)
	}
	old, cmds, err := b.t.Swap(m.Entry, m.Src, m.Cmds)
	if err != nil {
		return err
	}
	b.Stats.Swaps++
	ctx.Send(PortPPC, Swapped{Entry: m.Entry, Src: old, Cmds: cmds}, 0)
	return nil
}

// NewBlock returns a CAM actor. p must be valid.
func NewBlock(p Params) *Block { return &Block{p: p, t: NewTable(p.Entries, p.QueueDepth)} }

// Ports implements actors.Ported.
func (b *Block) Ports() []string { return []string{"ppc", "rxdma"} }

// Table exposes the CAM state, for tests and statistics.
func (b *Block) Table() *Table { return b.t }

// Receive implements actors.Actor.
func (b *Block) Receive(ctx actors.Context, m actors.Msg) {
	var err error
	switch m := m.(type) {
	case Lookup:
		b.onLookup(ctx, m)
		return
	case Cancel:
		if b.wait {
			b.wait = false
			b.Stats.StallTime += ctx.Now().Sub(b.since)
		}
		return
	case *SetEntry:
		err = b.set(*m)
		m.Release()
	case SetEntry:
		err = b.set(m)
	case *PushCommand:
		err = b.push(ctx, *m)
		m.Release() // the command is queued by value
	case PushCommand:
		err = b.push(ctx, m)
	case ClearEntry:
		err = b.t.Clear(m.Entry)
	case Swap:
		err = b.onSwap(ctx, m)
	default:
		ctx.Fatalf("cam: unexpected %T", m)
	}
	if err != nil {
		ctx.Fatalf("%v", err)
	}
	b.Stats.Programmed++
	if b.wait {
		b.tryGrant(ctx)
	}
}

func (b *Block) onLookup(ctx actors.Context, m Lookup) {
	if b.wait {
		ctx.Fatalf("cam: lookup for node %d while the pipeline already waits on node %d", m.Src, b.waitS)
	}
	b.Stats.Lookups++
	b.wait, b.waitS, b.since = true, m.Src, ctx.Now()
	if !b.tryGrant(ctx) {
		b.Stats.Stalls++
		_, hit := b.t.Lookup(m.Src)
		if !hit {
			b.Stats.Misses++
		}
		ctx.Send(PortPPC, NewStalled(m.Src, !hit), 0)
	}
}

// tryGrant answers the waiting lookup if its source now has a command.
func (b *Block) tryGrant(ctx actors.Context) bool {
	i, ok := b.t.Lookup(b.waitS)
	if !ok {
		return false
	}
	c, ok := b.t.Pop(i)
	if !ok {
		return false
	}
	b.wait = false
	b.Stats.StallTime += ctx.Now().Sub(b.since)
	ctx.Send(PortRXDMA, NewGrant(b.waitS, c), b.p.LookupLatency)
	return true
}

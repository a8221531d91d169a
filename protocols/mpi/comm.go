package mpi

import (
	"errors"
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
)

// Wildcards of a receive.
const (
	AnySource = -1 // MPI_ANY_SOURCE
	AnyTag    = -1 // MPI_ANY_TAG
)

// Limits of the match-bit encoding (see the package documentation).
const (
	TagUB    = 1<<tagBits - 1 // largest tag (MPI_TAG_UB)
	MaxRanks = 1 << rankBits  // ranks per job
)

// Portal table entries used by the library.
const (
	PtRecv ptl.PtIndex = 8 // messages: posted receives, then the unexpected-message entries
	PtRead ptl.PtIndex = 9 // long messages the receiver fetches with a get
)

// Match bits: | long (1) | context (15) | source rank (24) | tag (24) |.
const (
	tagBits   = 24
	rankBits  = 24
	ctxBits   = 15
	tagMask   = ptl.MatchBits(1<<tagBits - 1)
	rankShift = tagBits
	rankMask  = ptl.MatchBits(1<<rankBits-1) << rankShift
	ctxShift  = tagBits + rankBits
	longBit   = ptl.MatchBits(1) << 63
	allBits   = ^ptl.MatchBits(0)
)

// Contexts of MPI_COMM_WORLD: point-to-point traffic and the collectives' own, so that
// a collective never matches a user's receive.
const (
	ctxP2P  = 0
	ctxColl = 1
)

// Errors.
var (
	// ErrTruncate is MPI_ERR_TRUNCATE: the message was longer than the receive buffer;
	// the buffer holds its first bytes.
	ErrTruncate = errors.New("mpi: message truncated (MPI_ERR_TRUNCATE)")
	// ErrOverflow reports an event queue that overflowed: events were lost.
	ErrOverflow = errors.New("mpi: Portals event queue overflow (raise mpi.eq_events or mpi.unexpected_events)")
)

// World is the membership of a job: rank i runs as Procs[i], in job JID.
type World struct {
	Procs []ptl.ProcessID
	JID   ptl.JID
}

// Buf is a message buffer in the host memory of a rank: its address (what DMA
// commands name) and length, and its bytes in a job that carries data (nil
// otherwise: size-only messages).
type Buf struct {
	Addr uint64
	Len  int64
	Data []byte
}

// Slice returns the n bytes of b at off.
func (b Buf) Slice(off, n int64) Buf {
	s := Buf{Addr: b.Addr + uint64(off), Len: n}
	if b.Data != nil {
		s.Data = b.Data[off : off+n : off+n]
	}
	return s
}

// Status describes a completed request (MPI_Status).
type Status struct {
	Source int   // sender's rank (receives)
	Tag    int   // message tag (receives)
	Count  int64 // bytes received, or sent
	// Err is ErrTruncate for a truncated receive, nil otherwise.
	Err error
	// Done is when the library completed the request (a simulation extension: the
	// motifs measure message latency with it).
	Done actors.Time
}

// Stats counts what a rank's library did.
type Stats struct {
	Sends, Recvs     int64 // requests started (collectives' messages included)
	BytesSent        int64 // bytes of the messages sent
	Received         int64 // receives completed without error (every message delivered once: Received = Sends)
	BytesReceived    int64 // bytes of the messages received (every byte delivered once: BytesReceived = BytesSent)
	Eager, Long      int64 // sends by protocol
	Unexpected       int64 // receives that found their message in the unexpected queue
	UnexpectedLong   int64 // of those, long messages fetched with a get
	PostRetries      int64 // PtlMDUpdate refusals while posting a receive (new unexpected events)
	Searched         int64 // unexpected-queue entries examined
	BuffersReposted  int64 // unexpected-message buffers re-posted
	EventsMain       int64 // events taken from the main queue
	EventsUnexpected int64 // events taken from the unexpected queue
}

// Comm is the MPI library of one rank over its Portals interface: MPI_COMM_WORLD. It
// is used only from the rank's program (its calls block in simulated time).
type Comm struct {
	pr    *portals3.Process
	p     Params
	world *World
	rank  int
	data  bool
	id    ptl.MatchID // match id of every entry on PtRecv: any process of the job

	mainEQ, uxEQ ptl.EQHandle
	mark         ptl.MEHandle // boundary: posted receives go before it
	longME       ptl.MEHandle // last entry: catches unexpected long messages (header only)
	bufs         []*uxBuffer
	ux           []*uxEntry // unexpected messages not yet received, in arrival order
	open         []*uxEntry // unexpected short messages whose data is still arriving
	freeEntries  []*uxEntry
	reqs         []*Request // by slot
	freeSlots    []int
	seq          uint64 // long-message ids (match bits on PtRead)
	next         uint64 // bump allocator of Alloc
	waiting      *Request
	finalized    bool
	onComplete   func() // OnComplete's, or nil

	Stats Stats
}

// OnComplete sets fn (nil: none) to run after each of the rank's requests completes,
// sends and receives, collectives' messages included (Stats.Sends and Recvs count the
// ones started). It runs in the rank's program, in the middle of an MPI call: it must
// not call the Comm, block or change what the simulation does; progress reports use it.
func (c *Comm) OnComplete(fn func()) { c.onComplete = fn }

// uxBuffer is one memory descriptor catching unexpected short messages.
type uxBuffer struct {
	idx      int
	addr     uint64
	data     []byte
	md       ptl.MDHandle
	live     int  // messages in it not yet received
	unlinked bool // full: Portals unlinked it
}

// uxEntry is an unexpected message.
type uxEntry struct {
	bits      ptl.MatchBits
	from      ptl.ProcessID
	rlength   uint64
	mlength   uint64
	offset    uint64
	hdr       ptl.HdrData
	link      uint64
	buf       *uxBuffer // short messages: where the data is
	complete  bool      // short messages: PUT_END seen
	req       *Request  // the receive waiting for the data
	arrivedAt actors.Time
}

// Init starts the library of rank rank of world on Portals process pr (MPI_Init): it
// allocates the event queues and builds the match list of PtRecv: a mark entry
// (posted receives go before it), the unexpected-message buffers, and the entry that
// catches unexpected long messages. With data, the unexpected buffers hold real bytes
// and so must every Buf the rank uses; without, messages are modelled by size only.
func Init(pr *portals3.Process, world *World, rank int, p Params, data bool) (*Comm, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("mpi.%w", err)
	}
	if rank < 0 || rank >= len(world.Procs) || len(world.Procs) > MaxRanks {
		return nil, fmt.Errorf("mpi: rank %d of %d (at most %d ranks)", rank, len(world.Procs), MaxRanks)
	}
	if world.Procs[rank] != pr.ID() {
		return nil, fmt.Errorf("mpi: rank %d is %s in the world but runs as %s", rank, world.Procs[rank], pr.ID())
	}
	c := &Comm{pr: pr, p: p, world: world, rank: rank, data: data, next: 0x1_0000_0000,
		id: ptl.MatchID{NID: ptl.NIDAny, PID: ptl.PIDAny, JID: world.JID, UID: ptl.UIDAny}}
	c.call()
	var err error
	if c.mainEQ, err = pr.EQAlloc(p.EQEvents); err != nil {
		return nil, c.fail("EQAlloc", err)
	}
	if c.uxEQ, err = pr.EQAlloc(p.UnexpectedEvents); err != nil {
		return nil, c.fail("EQAlloc", err)
	}
	if c.mark, err = pr.MEAttach(PtRecv, c.id, 0, 0, ptl.Retain, ptl.InsAfter); err != nil {
		return nil, c.fail("MEAttach", err)
	}
	if c.longME, err = pr.MEAttach(PtRecv, c.id, longBit, ^longBit, ptl.Retain, ptl.InsAfter); err != nil {
		return nil, c.fail("MEAttach", err)
	}
	if _, err := pr.MDAttach(c.longME, ptl.MD{Threshold: ptl.ThreshInf, Options: ptl.MDOpPut | ptl.MDTruncate, EQ: c.uxEQ, UserPtr: 0},
		ptl.Retain); err != nil {
		return nil, c.fail("MDAttach", err)
	}
	bufs := make([]uxBuffer, p.UnexpectedBuffers) // one allocation for a rank's buffers
	c.bufs = make([]*uxBuffer, 0, p.UnexpectedBuffers)
	for i := range bufs {
		b := &bufs[i]
		*b = uxBuffer{idx: i, addr: c.next}
		c.next += uint64(p.UnexpectedBufferBytes)
		c.bufs = append(c.bufs, b)
		if err := c.post(b); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// post attaches an unexpected-message buffer just before the long-message entry: it
// matches short messages of every source and tag, takes them at its local offset, and
// retires (and is unlinked) when less than an eager message remains.
func (c *Comm) post(b *uxBuffer) error {
	me, err := c.pr.MEInsert(c.longME, c.id, 0, ^longBit, ptl.Unlink, ptl.InsBefore)
	if err != nil {
		return c.fail("MEInsert", err)
	}
	n := uint64(c.p.UnexpectedBufferBytes)
	md := ptl.MD{Start: b.addr, Length: n, Buf: b.data, Threshold: ptl.ThreshInf,
		MaxSize: uint64(max(c.p.EagerMax, 1)), Options: ptl.MDOpPut | ptl.MDMaxSize | ptl.MDAckDisable,
		EQ: c.uxEQ, UserPtr: uint64(b.idx + 1)}
	if c.data && b.data == nil {
		md.LazyBuf = &b.data // the bytes of a buffer that takes a message, allocated then (most never do)
	}
	b.md, err = c.pr.MDAttach(me, md, ptl.Unlink)
	if err != nil {
		return c.fail("MDAttach", err)
	}
	b.live, b.unlinked = 0, false
	return nil
}

// fail wraps a Portals error with the call that returned it.
func (c *Comm) fail(call string, err error) error {
	return fmt.Errorf("mpi: rank %d: Ptl%s: %w", c.rank, call, err)
}

// call charges the library's own time for an MPI call.
func (c *Comm) call() { c.pr.Proc().Compute(c.p.CallCost) }

// Rank is MPI_Comm_rank.
func (c *Comm) Rank() int { return c.rank }

// Size is MPI_Comm_size.
func (c *Comm) Size() int { return len(c.world.Procs) }

// Wtime is MPI_Wtime: the rank's clock.
func (c *Comm) Wtime() actors.Time { return c.pr.Now() }

// Process is the rank's Portals process.
func (c *Comm) Process() *portals3.Process { return c.pr }

// Data reports whether the job carries real bytes.
func (c *Comm) Data() bool { return c.data }

// Compute spends d of application time.
func (c *Comm) Compute(d actors.Duration) { c.pr.Proc().Compute(d) }

// Alloc returns a buffer of n bytes at a fresh address of the rank's memory, with its
// bytes when the job carries data.
func (c *Comm) Alloc(n int64) Buf {
	b := Buf{Addr: c.next, Len: n}
	c.next += uint64(n+63) &^ 63
	if c.data {
		b.Data = make([]byte, n)
	}
	return b
}

// Finalize is MPI_Finalize: it fails if requests are still active or if Portals
// dropped messages addressed to the rank (unexpected short messages that found every
// buffer full: raise mpi.unexpected_buffers).
func (c *Comm) Finalize() error {
	c.call()
	if c.finalized {
		return fmt.Errorf("mpi: rank %d: Finalize called twice", c.rank)
	}
	c.finalized = true
	if n := len(c.reqs) - len(c.freeSlots); n > 0 {
		return fmt.Errorf("mpi: rank %d: Finalize with %d active requests", c.rank, n)
	}
	drops, err := c.pr.Status(ptl.SRDropCount)
	if err != nil {
		return c.fail("NIStatus", err)
	}
	if drops > 0 {
		return fmt.Errorf("mpi: rank %d: Portals dropped %d messages (unexpected-message buffers full: raise mpi.unexpected_buffers or mpi.unexpected_buffer_bytes)", c.rank, drops)
	}
	return nil
}

// Waiting describes what the rank is blocked on, "" if nothing (for the error of a
// job that did not finish).
func (c *Comm) Waiting() string {
	r := c.waiting
	if r == nil {
		return ""
	}
	if r.kind == kindSend {
		return fmt.Sprintf("a send of %d B to rank %d tag %d", r.buf.Len, r.peer, r.tag)
	}
	return fmt.Sprintf("a receive of %d B from %s tag %s", r.buf.Len, wild(r.peer, AnySource), wild(r.tag, AnyTag))
}

func wild(v, any int) string {
	if v == any {
		return "any"
	}
	return fmt.Sprint(v)
}

// sendBits returns the match bits of a message of this rank.
func (c *Comm) sendBits(ctx, tag int) ptl.MatchBits {
	return ptl.MatchBits(ctx)<<ctxShift | ptl.MatchBits(c.rank)<<rankShift | ptl.MatchBits(tag)
}

// recvBits returns the match and ignore bits of a receive.
func recvBits(ctx, src, tag int) (bits, ignore ptl.MatchBits) {
	bits, ignore = ptl.MatchBits(ctx)<<ctxShift, longBit
	if src == AnySource {
		ignore |= rankMask
	} else {
		bits |= ptl.MatchBits(src) << rankShift
	}
	if tag == AnyTag {
		ignore |= tagMask
	} else {
		bits |= ptl.MatchBits(tag)
	}
	return bits, ignore
}

func srcOf(b ptl.MatchBits) int { return int((b & rankMask) >> rankShift) }
func tagOf(b ptl.MatchBits) int { return int(b & tagMask) }

// checkBuf validates a user buffer.
func (c *Comm) checkBuf(b Buf) error {
	switch {
	case b.Len < 0:
		return fmt.Errorf("mpi: rank %d: negative buffer length %d", c.rank, b.Len)
	case b.Data != nil && int64(len(b.Data)) != b.Len:
		return fmt.Errorf("mpi: rank %d: buffer of %d B holds %d bytes", c.rank, b.Len, len(b.Data))
	case b.Data != nil && !c.data:
		return fmt.Errorf("mpi: rank %d: a buffer with bytes in a job that carries no data", c.rank)
	}
	return nil
}

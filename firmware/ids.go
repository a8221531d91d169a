package firmware

// IDs is a pool of the ids first..end-1 of a firmware table whose entries are
// preallocated and handed out from a free list (pendings, CAM entries): the lowest
// never-used id first, then the most recently freed, as the C firmware's free lists
// initialized with every id (lowest on top) give them, without a list of every id:
// a table of a thousand ids a node costs nothing until its ids are used.
type IDs struct {
	free      []int // freed ids, the last freed on top
	next, end int   // ids next..end-1 were never taken
}

// NewIDs returns the pool of ids first..end-1, all free.
func NewIDs(first, end int) IDs { return IDs{next: first, end: end} }

// Len is the number of free ids.
func (p *IDs) Len() int { return len(p.free) + p.end - p.next }

// Take returns a free id (Len() > 0).
func (p *IDs) Take() int {
	if n := len(p.free); n > 0 {
		id := p.free[n-1]
		p.free = p.free[:n-1]
		return id
	}
	p.next++
	return p.next - 1
}

// Put frees id.
func (p *IDs) Put(id int) { p.free = append(p.free, id) }

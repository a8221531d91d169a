package hugepages

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdviseMarksTheRange checks that advise leaves the range it reports marked for
// huge pages in the kernel's view of the process (smaps VmFlags "hg"), once its block
// is back in the heap, and that it touched none of it.
func TestAdviseMarksTheRange(t *testing.T) {
	if hugeSize() != 2<<20 {
		t.Skip("the kernel has no transparent huge pages of 2 MiB")
	}
	lo, hi, ok := advise(64 << 20)
	require.True(t, ok, "madvise(MADV_HUGEPAGE) refused")
	assert.GreaterOrEqual(t, hi-lo, uintptr(60<<20), "a 64 MiB block holds at least 30 whole huge pages")
	assert.Zero(t, lo%hugeSize())
	assert.Zero(t, hi%hugeSize())

	covered := uintptr(0)
	for _, m := range mappings(t) {
		a, b := max(m.lo, lo), min(m.hi, hi)
		if a >= b {
			continue
		}
		assert.True(t, m.hugeAdvised, "mapping %x-%x inside the advised range is not marked hg", m.lo, m.hi)
		assert.Less(t, m.rss, int64(8<<20), "advise touched the block (mapping %x-%x has %d bytes resident)", m.lo, m.hi, m.rss)
		covered += b - a
	}
	assert.Equal(t, hi-lo, covered, "the advised range is mapped")
}

func TestReserveOnlyGrows(t *testing.T) {
	assert.Zero(t, Reserve(0, 0))
	assert.Zero(t, Reserve(-1, 0))
	if policy() != "madvise" {
		assert.Zero(t, Reserve(8<<20, 0), "the kernel's policy is %q: nothing to ask", policy())
		return
	}
	before := Advised()
	first := Reserve(8<<20, 0)
	assert.Positive(t, first)
	assert.Zero(t, Reserve(8<<20, 0), "covered by the first call")
	assert.Zero(t, Reserve(4<<20, 0), "covered by the first call")
	more := Reserve(16<<20, 0)
	assert.Positive(t, more, "what exceeds the first call")
	assert.Equal(t, before+first+more, Advised())
}

type mapping struct {
	lo, hi      uintptr
	rss         int64
	hugeAdvised bool
}

// mappings reads /proc/self/smaps.
func mappings(t *testing.T) []mapping {
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	var out []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if a, b, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			lo, err1 := strconv.ParseUint(a, 16, 64)
			hi, err2 := strconv.ParseUint(b, 16, 64)
			if err1 == nil && err2 == nil {
				out = append(out, mapping{lo: uintptr(lo), hi: uintptr(hi)})
				continue
			}
		}
		if len(out) == 0 {
			continue
		}
		m := &out[len(out)-1]
		switch fields[0] {
		case "Rss:":
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			m.rss = kb << 10
		case "VmFlags:":
			for _, fl := range fields[1:] {
				m.hugeAdvised = m.hugeAdvised || fl == "hg"
			}
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func TestReserveRefusesWhatTheKernelWouldNotMap(t *testing.T) {
	assert.False(t, mappable(1<<62), "4 EiB of private memory: more than any address space")
	assert.Zero(t, Reserve(1<<62, 0), "Reserve must not ask the runtime for a mapping the kernel refuses: the runtime would throw")
	assert.True(t, mappable(64<<20))
}

// populate faults its range in (resident afterwards) without changing what a page
// already held: the heap may have handed out and written part of the range by then.
func TestPopulateFaultsInAndKeepsContents(t *testing.T) {
	const n = 2 * populateChunk
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	defer syscall.Munmap(b)
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, lo, 4096, madvPopulateWrite); e != 0 {
		t.Skipf("the kernel refuses MADV_POPULATE_WRITE (%v): populate does nothing here", e)
	}
	b[4096], b[n-1] = 7, 9 // written before, as the heap's first allocations would be
	populate(lo, lo+n)
	assert.Equal(t, byte(7), b[4096])
	assert.Equal(t, byte(9), b[n-1])
	var rss int64
	for _, m := range mappings(t) {
		if m.lo <= lo && lo+n <= m.hi {
			rss = m.rss
		}
	}
	assert.GreaterOrEqual(t, rss, int64(n), "the whole range is resident")
}

package cam

import (
	"math/rand/v2"
	"testing"

	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/require"
)

// linearCAM is the dumb reference: a slice of entries searched one by one, as a CAM
// compares every entry in parallel.
type linearCAM struct {
	valid []bool
	src   []router.NodeID
	q     [][]Command
	depth int
}

func newLinear(n, depth int) *linearCAM {
	return &linearCAM{valid: make([]bool, n), src: make([]router.NodeID, n), q: make([][]Command, n), depth: depth}
}

func (l *linearCAM) lookup(src router.NodeID) (int, bool) {
	for i := range l.valid {
		if l.valid[i] && l.src[i] == src {
			return i, true
		}
	}
	return 0, false
}

// Property: under random programming and lookups, Table answers exactly like a linear
// scan: same hits, same entries, same commands in the same order, same errors.
func TestTableMatchesLinearScan(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		n, depth := 1+r.IntN(8), 1+r.IntN(7)
		tab, ref := NewTable(n, depth), newLinear(n, depth)
		for step := range 400 {
			i := r.IntN(n + 1) // sometimes out of range
			src := router.NodeID(r.IntN(6))
			switch r.IntN(5) {
			case 0:
				err := tab.Set(i, src)
				_, dup := ref.lookup(src)
				ok := i < n && !ref.valid[i] && !dup
				require.Equal(t, ok, err == nil, "seed %d step %d Set(%d,%d): %v", seed, step, i, src, err)
				if ok {
					ref.valid[i], ref.src[i], ref.q[i] = true, src, nil
				}
			case 1:
				err := tab.Clear(i)
				ok := i < n && ref.valid[i] && len(ref.q[i]) == 0
				require.Equal(t, ok, err == nil, "seed %d step %d Clear(%d): %v", seed, step, i, err)
				if ok {
					ref.valid[i] = false
				}
			case 2:
				c := Command{Bytes: int64(1 + r.IntN(1000)), Tag: uint64(step)}
				err := tab.Push(i, c)
				ok := i < n && ref.valid[i] && len(ref.q[i]) < depth
				require.Equal(t, ok, err == nil, "seed %d step %d Push(%d): %v", seed, step, i, err)
				if ok {
					ref.q[i] = append(ref.q[i], c)
				}
			default:
				gi, gok := tab.Lookup(src)
				wi, wok := ref.lookup(src)
				require.Equal(t, wok, gok, "seed %d step %d Lookup(%d)", seed, step, src)
				if !wok {
					continue
				}
				require.Equal(t, wi, gi)
				c, ok := tab.Pop(gi)
				require.Equal(t, len(ref.q[wi]) > 0, ok)
				if ok {
					require.Equal(t, ref.q[wi][0], c)
					ref.q[wi] = ref.q[wi][1:]
				}
			}
			free := 0
			for _, v := range ref.valid {
				if !v {
					free++
				}
			}
			require.Equal(t, free, tab.Free())
		}
	}
}

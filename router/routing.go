package router

// Dir is one of the seven router ports: the six torus directions and the NIC.
type Dir uint8

// The router ports (Dillow & Atchley 2011: +-x, +-y, +-z and the NIC). XP leads to
// the neighbour at x+1, XM to the one at x-1, and so on.
const (
	XP Dir = iota
	XM
	YP
	YM
	ZP
	ZM
	NIC
	numDirs
)

var dirNames = [numDirs]string{"xp", "xm", "yp", "ym", "zp", "zm", "nic"}

// String is the port's name segment: xp, xm, yp, ym, zp, zm or nic.
func (d Dir) String() string {
	if d < numDirs {
		return dirNames[d]
	}
	return "dir?"
}

// Dim is the dimension of a torus port (0 = x, 1 = y, 2 = z); -1 for NIC.
func (d Dir) Dim() int {
	if d >= NIC {
		return -1
	}
	return int(d / 2)
}

// Plus reports whether a torus port leads towards increasing coordinates.
func (d Dir) Plus() bool { return d < NIC && d%2 == 0 }

// Opposite is the port at the other end of a cable leaving through d.
func (d Dir) Opposite() Dir {
	if d >= NIC {
		return d
	}
	return d ^ 1
}

// Hop is one routing decision: the output port and the virtual channel the packet
// takes on it.
type Hop struct {
	Out Dir
	VC  uint8
}

// Route is dimension-order routing with datelines. A packet at node cur that arrived
// through port in (NIC if it was just injected) with current virtual channel vc
// leaves through the returned port:
//   - dimensions in the order x, y, z: the first whose coordinate differs from dst's;
//   - on a wrapped dimension the shorter direction, ties to +; on a mesh the only one;
//   - NIC when cur is dst.
//
// Its virtual channel is 2*class plus a dateline bit. The bit is 0 when the packet
// enters a dimension, stays as it was while the packet continues in that dimension,
// and becomes 1 on the wrap link of a wrapped dimension (from coordinate k-1 to 0
// going +, from 0 to k-1 going -). A minimal route crosses a wrap link at most once
// per dimension, so the channels of one dimension and class are ordered: VC 0 before
// the wrap, VC 1 from the wrap on, and no cycle of dependencies exists (Dally &
// Seitz's dateline), which makes dimension-order routing on a torus deadlock-free.
func (t Topology) Route(cur, dst NodeID, in Dir, class, vc uint8) Hop {
	return t.route(cur, dst, in, class, vc, true)
}

func (t Topology) route(cur, dst NodeID, in Dir, class, vc uint8, dateline bool) Hop {
	return t.routeAt(t.Coord(cur), dst, in, class, vc, dateline)
}

// routeAt is route from the node at coordinates c.
func (t Topology) routeAt(c [3]int, dst NodeID, in Dir, class, vc uint8, dateline bool) Hop {
	d := t.Coord(dst)
	if c == d {
		return Hop{Out: NIC, VC: 2 * class}
	}
	for dim := range 3 {
		if c[dim] == d[dim] {
			continue
		}
		plus := t.plus(dim, c[dim], d[dim])
		out := Dir(2 * dim)
		if !plus {
			out++
		}
		var bit uint8
		if dateline {
			if in.Dim() == dim {
				bit = vc & 1
			}
			if t.wrapLink(dim, c[dim], plus) {
				bit = 1
			}
		}
		return Hop{Out: out, VC: 2*class + bit}
	}
	return Hop{Out: NIC, VC: 2 * class} // unreachable: cur != dst differ somewhere
}

// plus decides the direction from coordinate a to b != a in dimension dim.
func (t Topology) plus(dim, a, b int) bool {
	if !t.wrap(dim) {
		return b > a
	}
	k := t.size(dim)
	fwd := (b - a + k) % k
	return 2*fwd <= k
}

// wrapLink reports whether leaving coordinate a in direction plus crosses the wrap
// link of dimension dim.
func (t Topology) wrapLink(dim, a int, plus bool) bool {
	if !t.wrap(dim) || t.size(dim) < 2 {
		return false
	}
	if plus {
		return a == t.size(dim)-1
	}
	return a == 0
}

package router

import (
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// NodeCoordinates is the grid placement of the actors of a network model for the slab
// partitioner (actors.Slab): an actor whose name starts with a node segment
// "node[x,y,z]" (the node's routers, NIC blocks, host, traffic generator) sits at
// (x, y, z); other actors have no position. BuildNetwork gives every model it builds
// this placement, so that all blocks of a node share a slab and slabs cut only
// router-to-router cables.
func NodeCoordinates(name string) (pos [3]int, ok bool) {
	top, _, _ := strings.Cut(name, ".")
	idx, found := strings.CutPrefix(top, "node[")
	if !found {
		return pos, false
	}
	idx, found = strings.CutSuffix(idx, "]")
	if !found {
		return pos, false
	}
	for d := range 3 {
		var item string
		item, idx, _ = strings.Cut(idx, ",")
		v, err := strconv.Atoi(item)
		if err != nil || v < 0 {
			return [3]int{}, false
		}
		pos[d] = v
	}
	return pos, idx == ""
}

var _ actors.Coordinates = NodeCoordinates

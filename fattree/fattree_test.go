package fattree

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/require"
)

func TestRoutes(t *testing.T) {
	f, err := ShapeOf(36, 40) // 18 nodes a leaf, 18 spines
	require.NoError(t, err)
	require.Equal(t, Shape{Nodes: 40, Down: 18, Leaves: 3, Spines: 18}, f)
	leaf := &Switch{f: f, id: 0}
	require.Equal(t, actors.Port(5), leaf.route(5), "a node on this leaf: down")
	require.Equal(t, actors.Port(18+20%18), leaf.route(20), "another leaf: up, spine by d-mod-k")
	spine := &Switch{f: f, spine: true, id: 3}
	require.Equal(t, actors.Port(2), spine.route(39), "a spine goes down to the node's leaf")
	require.Len(t, leaf.Ports(), 18+18)
	require.Len(t, spine.Ports(), 3)

	f, err = ShapeOf(4, 8) // Arctic's 4x4 routers: 2 nodes a leaf, 4 leaves, 2 spines
	require.NoError(t, err)
	require.Equal(t, Shape{Nodes: 8, Down: 2, Leaves: 4, Spines: 2}, f)
	_, err = ShapeOf(4, 9)
	require.ErrorContains(t, err, "at most 8")
}

// Package arctic is MIT's Arctic Switch Fabric as StarT-JR's alternative network (Hoe &
// Ehrlich 1996 s.2.1.2: 160 MBytes/s per link; Boughton 1994: the Arctic routing chip,
// a 4x4 router). The fabric is a two-level fat tree of Arctic routers (package fattree:
// two nodes per leaf router, two spine routers; up to 8 nodes), built from the same
// switch model as the InfiniBand cluster's; it is reliable and keeps each packet's
// priority, so FUNI runs on it without IEEE 1394's framing and loss recovery.
//
// A node's Squall module serializes its packets onto its link (Params.Span) and the
// routers forward them cut-through; see package fattree for the messages.
package arctic

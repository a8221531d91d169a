// Package ib is an InfiniBand-style cluster, the second NIC family beside the
// SeaStar: each node is a host CPU (package host) attached over PCIe to a host channel
// adapter (HCA) with send and receive queues, a shared receive queue per process,
// completion queues in host memory, reliable-connected queue pairs, RDMA read and
// write, and inline data; the nodes hang off a two-level fat tree of crossbar switches
// (Portals 4 over InfiniBand, papers/002 s.6).
//
// The HCA and the switches model time at message level: a message occupies the HCA's
// PCIe read and write channels for its DMA, and each link it crosses for its
// serialisation (cut-through: its head moves on after the hop latency while its tail
// is still on the previous link). Bytes themselves travel with the upper-layer payload
// (the Portals message), as in the SeaStar model; the verbs here decide when they
// land. Switch buffers are not bounded (no credit flow control): stated, not modelled.
package ib

// Package motifs runs whole-machine communication patterns ("motifs", after the
// Ember motifs of SST) as MPI jobs over generic- or accelerated-mode Portals 3.3 on
// the SeaStar torus: one rank per node, placed on the torus, each rank a program of
// straight-line MPI calls (protocols/mpi).
//
// # Motifs
//
//	motif      what every rank does per iteration
//	pingpong   ranks r and r+P/2 exchange one message of Size each way (a round trip)
//	halo3d     exchanges a face of Size with each of its 6 neighbours in a 3-D process
//	           grid with periodic boundaries: 6 Irecv, 6 Isend, Waitall
//	alltoall   MPI_Alltoall with blocks of Size (pairwise exchange)
//	allreduce  MPI_Allreduce of a vector of Size bytes (recursive doubling)
//	random     sends Messages messages of Size to ranks drawn uniformly (never itself)
//	           and receives those addressed to it (MPI_ANY_SOURCE)
//	hotspot    as random, but each message goes to the hot rank with probability
//	           HotFraction
//
// In every motif a rank computes for Compute before communicating, each iteration.
//
// The halo3d grid is the torus when every node runs a rank, so that with linear
// placement grid neighbours are torus neighbours; otherwise the ranks are factored
// into three near-equal dimensions (as MPI_Dims_create). The destinations of random
// and hotspot traffic are drawn before the run from the seed, so every rank knows how
// many messages it receives.
//
// # Placement
//
// linear (contiguous) puts rank i on node i, x fastest, then y, then z; random puts
// the ranks on a permutation of the nodes drawn from the seed.
//
// # Results
//
// Every rank synchronizes with a barrier, runs Warmup untimed iterations and Iters
// timed ones, recording when each starts and ends. Iteration time is the span of the
// timed iterations over all ranks (from the earliest start to the latest end) divided
// by Iters; the slowest iteration is the longest of one rank. Bandwidth is the bytes
// all ranks sent in the timed iterations divided by that span (aggregate), and per
// rank. Message latency (p50, p99, max) is, for the point-to-point motifs, the time
// from the sender's MPI_Isend to the moment the receiver's library completed the
// matching receive; for the collective motifs, the duration of each rank's call.
package motifs

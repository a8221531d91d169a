// Package matchunit is a dedicated list-matching engine beside the NIC's embedded
// processor: the third design point of the Portals 4 NIC co-design question of
// Brightwell 2011 (papers/002, second half), between matching on host cores (onload)
// and matching in NIC firmware (offload). The firmware hands the unit the match work
// of an arriving header (how many list entries the match examines) and gets the result
// back; the unit compares a number of entries per cycle against those it holds on chip,
// fetches the entries past its capacity from memory, and is pipelined at message level:
// a new header enters as soon as the compare array is free, while earlier results are
// still in the pipeline.
//
// The unit models time only. The match itself (which entry, what happens to the lists)
// is the Portals semantics library's, run by the firmware when the unit answers, in
// arrival order: results leave the unit in the order headers entered it.
package matchunit

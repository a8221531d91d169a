// Package traffic is the synthetic-traffic benchmark of the router network (`run
// bench traffic`): a generator and sink per node in place of the NIC, attached to the
// router's NIC port, driving open-loop load through the torus.
//
// Each node offers Config.Load of the link bandwidth: time is cut into packet slots
// (one packet time, 25.6 ns by default) and in each slot a node starts a message of
// MsgPackets full packets with probability Load/MsgPackets, drawn from its own random
// stream, so inter-arrival times are geometric. Destinations follow a Pattern
// (uniform, transpose, hotspot). Messages wait in a bounded source queue
// (source_queue_packets; a message that does not fit is refused and counted) and are
// injected as fast as the injection link and the router's credits allow
// (router.Injector). The sink frees each receive slot at once.
//
// A run has a warm-up, a measurement window and a drain period, all in simulated
// time; load keeps being offered until the end. Accepted load counts the payload
// ejected during the window; latency covers the packets created during the window,
// from creation (source queueing included) to ejection, in a deterministic
// log-linear Histogram (quantiles within 0.8%); link utilization is the routers'
// busy time in the window. Everything is deterministic: the same seed and
// configuration give the same digest and numbers under every engine and partitioning.
package traffic

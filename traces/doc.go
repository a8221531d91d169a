// Package traces turns the engine's tracing hook (actors.Tracer) into OpenTelemetry
// traces, one per message, and reads and writes the firmware trace ring of Pedretti &
// Hudson 2005 s.3.3.
//
// # Spans
//
// Blocks report the stages of a sampled message's life as actors.Span values named
// "block/stage" (host/ptl_put, ppc/tx_command, txdma/message, router/hop, rxdma/message,
// ppc/rx_header, host/interrupt, ...). A Collector gives every partition of a run its
// own tracer, which buffers spans and hands them in chunks to one exporting goroutine
// through a bounded channel: when the exporter falls behind, the simulation waits (a
// sampled span costs a few microseconds of wall time), so no span is ever dropped for
// lack of room. Spans that an OTLP endpoint refuses or that exceed the file's
// in-memory bound are counted and reported in Stats, never dropped silently.
//
// Each message becomes one trace. Its root span is the span the protocol flagged Root
// (for Portals, "portals/put", "portals/get", "portals/ack" or "portals/reply", with
// the message's attributes), stretched over every stage of the message; the stages are
// its children. Trace and span ids are derived from the message id (see TraceID and
// SpanID), and sampling is a hash of the message id compared with the ratio, so the
// same messages are traced, with the same ids, for every engine, worker count and
// partitioning.
//
// # Time
//
// Spans carry simulated time. The JSON-lines file (Config.File) holds it exactly, in
// picoseconds, and nothing else: it is byte-identical across worker counts. The OTLP
// export needs wall-clock timestamps: each is Config.Epoch plus the simulated time,
// truncated to nanoseconds (so end >= start always holds), and the exact picoseconds
// are kept in the attributes sim.start_ps and sim.end_ps. The CLI takes the epoch
// from the wall clock once, at the start of a run, rounded down to the second, so that
// Jaeger's default search window (the last hour) finds the traces; --trace-epoch fixes
// it for reproducible exports.
//
// # Firmware trace ring
//
// ppc.Exec.Trace is the firmware's trace()/trace_val() point. WriteRings stores the
// rings of a run's PPCs as they would sit in SeaStar SRAM (8-byte records: a 32-bit
// timestamp in PPC cycles and a 32-bit word holding the 8-bit value and the low 24
// bits of the program counter) with the symbol table that resolves the program
// counters; Dump prints them in the format of the tracedump tool (Pedretti & Hudson
// 2005 figure 2).
package traces

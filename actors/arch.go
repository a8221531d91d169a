package actors

import "math"

// The simulator needs 64-bit ints: models keep byte counts, sequence numbers and
// indexes into machine-sized tables in int, and a 32-bit build would overflow them
// silently. A build for a 32-bit platform stops here, at compile time, with an error
// naming needs64BitInts.
const needs64BitInts = uint(math.MaxInt) >> 62 // 1 where int has 64 bits, else 0

var _ = [1]struct{}{}[needs64BitInts-1]

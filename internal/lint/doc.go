// Package lint enforces, as ordinary Go tests, the rules that keep the simulator's
// model code deterministic: the same seed and scenario must give bit-identical runs
// under any number of workers (STYLE.md, "How a hardware block looks"). The rules are
// in the style of cockroachdb/pebble, whose lint checks are tests; run them with
// go test ./internal/lint/.
//
// # Model packages
//
// Every package of the module is a model package except:
//
//   - actors itself, the engine, which owns all concurrency, wall-clock time (to
//     parse units) and workers; its subpackages (actors/phold, ...) are model packages;
//   - anything under the top-level traces/, cmd/ and internal/ directories
//     (trace tools, commands, and tools such as this one).
//
// Packages added later are covered without registering them: the test lists
// github.com/seastar-sim/seastar/... with golang.org/x/tools/go/packages and checks
// every model package among them. Only files of the default build that are not
// _test.go files are checked; tests may use goroutines, channels and time.
//
// # Rules
//
// Each violation is reported as "file:line: rule: message", the message saying why
// the rule exists and what to do instead. The rules are:
//
//   - forbidden-import: importing time, math/rand (which covers math/rand/v2),
//     crypto/rand, sync, os, syscall, runtime, unsafe or net, or any package below
//     them (sync/atomic, os/exec, os/signal, net/http, ...). The table with the reason
//     for each entry is forbiddenImports in lint.go. Time comes from
//     actors.Context.Now and randomness from ctx.Rand(), the per-actor stream.
//   - go-statement: a go statement. All concurrency belongs to the engine.
//   - channel: a select statement, a channel type (including make(chan T)), a send,
//     a receive, a range over a channel or close. Same reason.
//   - map-range: a for ... range over a map (a value whose underlying type is a map,
//     or a type parameter whose constraint has a map in it) or over maps.Keys,
//     maps.Values or maps.All, and any other use of those iterators except as the
//     argument of slices.Sorted, slices.SortedFunc or slices.SortedStableFunc. Go
//     randomises map iteration order; the two allowed forms are described below.
//   - lint-directive: a //lint:ordered comment without a reason (which exempts
//     nothing), or one that is not attached to a range over a map (stale after a
//     refactoring, or misplaced).
//
// A range over a map is allowed in two forms. (a) The collect-then-sort idiom: the
// loop body is the single statement s = append(s, k) where k is the loop's key or
// value variable. (b) The loop carries a directive stating why order cannot matter,
// trailing the for line or alone on the line directly above it; the reason is
// mandatory. A directive trailing some other statement does not attach to the loop
// on the next line.
//
//	//lint:ordered integer addition is commutative
//	for _, v := range m {
//		n += v
//	}
//
// The checks are syntactic plus go/types and do not follow data: collect-then-sort
// is trusted to sort afterwards, and a //lint:ordered reason is trusted to be true.
// Reviewers check both.
package lint

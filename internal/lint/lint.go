package lint

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Rule names a determinism rule. It is the third field of a printed Finding.
type Rule string

// The rules, one per kind of nondeterminism. See the package documentation.
const (
	RuleImport    Rule = "forbidden-import" // import of a package in forbiddenImports
	RuleGo        Rule = "go-statement"     // a go statement
	RuleChannel   Rule = "channel"          // select, channel type, send, receive, close, range over a channel
	RuleMapRange  Rule = "map-range"        // ranging over a map (or an unsorted maps iterator)
	RuleDirective Rule = "lint-directive"   // a malformed or stale //lint:ordered comment
)

// forbiddenImport is one row of the forbidden-import table.
type forbiddenImport struct {
	path string // import path; its subpackages (path/...) are forbidden too
	why  string // why it breaks bit-identical runs, and what to use instead
}

// forbiddenImports is the single table of imports that model packages must not use.
// Each entry also forbids the packages below it, so "math/rand" covers math/rand/v2
// and "net" covers net/http. The engine package actors is not a model package and
// may import time (to parse units), sync and runtime (to run workers).
var forbiddenImports = []forbiddenImport{
	{"time", "wall-clock time differs between runs; model code gets the time only from " +
		"actors.Context.Now and spells intervals as actors.Duration"},
	{"math/rand", "math/rand (v1 and v2) offers global or self-seeded generators that the " +
		"run seed does not control; draw from ctx.Rand(), the per-actor stream derived " +
		"from the root seed and the actor path"},
	{"crypto/rand", "crypto/rand reads operating-system entropy and can never be " +
		"replayed; draw from ctx.Rand()"},
	{"sync", "locks, atomics and sync.Pool mean shared-memory concurrency, which " +
		"belongs to the engine in actors/; an actor's state is touched only by its " +
		"own Receive, so it needs no locking"},
	{"os", "files, environment, signals, processes and exit are outside the " +
		"simulation; take inputs through Params and emit outputs through the " +
		"context (Send, tracing, Fatalf)"},
	{"syscall", "system calls are outside the simulation; take inputs through " +
		"Params and emit outputs through the context"},
	{"runtime", "scheduler, GC and stack introspection vary between runs and " +
		"machines; the engine owns workers, and model code must not depend on them"},
	{"unsafe", "pointer values and memory layout vary between runs and platforms; " +
		"use ordinary typed values (and explicit IDs where identity matters)"},
	{"net", "real network I/O is outside the simulation; the SeaStar network is " +
		"modelled by router and link actors exchanging messages"},
}

// Finding is one violation of a rule.
type Finding struct {
	File    string // slash-separated path relative to the module root
	Line    int    // 1-based line number
	Rule    Rule   // the rule violated
	Message string // why the rule exists and what to do instead
}

// String formats f as "file:line: rule: message".
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Rule, f.Message)
}

// Report is the result of checking a module.
type Report struct {
	Module   string    // module path read from go.mod
	Packages []string  // import paths of the model packages checked, sorted
	Findings []Finding // sorted by file, line and rule; at most one per (file, line, rule)
}

// LoadMode is the go/packages mode that CheckPackage needs.
const LoadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
	packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports

// IsModelPackage reports whether importPath is a model package of the module
// modulePath: any package of the module except the engine package actors itself
// (its subpackages are model packages) and anything under the top-level
// directories traces/, cmd/ and internal/. Packages outside the module are not.
func IsModelPackage(modulePath, importPath string) bool {
	if importPath == modulePath {
		return true
	}
	rel, ok := strings.CutPrefix(importPath, modulePath+"/")
	if !ok || rel == "" {
		return false
	}
	if rel == "actors" {
		return false
	}
	top, _, _ := strings.Cut(rel, "/")
	switch top {
	case "traces", "cmd", "internal":
		return false
	}
	return true
}

// FindModuleRoot returns the nearest directory at or above dir that holds a go.mod.
func FindModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("lint: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// CheckModule checks every model package of the module rooted at root (the
// directory holding go.mod). The go command runs in root with the environment env
// (nil means the current environment). It first lists the module's packages
// cheaply, then type-checks only the model ones, so that tools and commands with
// heavy dependencies cost nothing. A model package that fails to load or
// type-check cannot be checked reliably: its errors are returned with the report.
func CheckModule(root string, env []string) (*Report, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	modPath := modulePath(data)
	if modPath == "" {
		return nil, fmt.Errorf("lint: no module line in %s", filepath.Join(root, "go.mod"))
	}
	listCfg := &packages.Config{Dir: root, Env: env, Mode: packages.NeedName | packages.NeedFiles}
	listed, err := packages.Load(listCfg, modPath+"/...")
	if err != nil {
		return nil, err
	}
	report := &Report{Module: modPath}
	for _, p := range listed {
		// A directory of tests only lists with no GoFiles and nothing to check.
		if IsModelPackage(modPath, p.PkgPath) && (len(p.GoFiles) > 0 || len(p.Errors) > 0) {
			report.Packages = append(report.Packages, p.PkgPath)
		}
	}
	slices.Sort(report.Packages)
	if len(report.Packages) == 0 {
		return report, nil
	}
	cfg := &packages.Config{Dir: root, Env: env, Mode: LoadMode, Tests: false}
	pkgs, err := packages.Load(cfg, report.Packages...)
	if err != nil {
		return nil, err
	}
	var loadErrs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			loadErrs = append(loadErrs, fmt.Sprintf("%s: %v", p.PkgPath, e))
		}
		report.Findings = append(report.Findings, CheckPackage(p, root)...)
	}
	report.Findings = normalize(report.Findings)
	if len(loadErrs) > 0 {
		return report, fmt.Errorf("lint: cannot check model packages:\n\t%s",
			strings.Join(loadErrs, "\n\t"))
	}
	return report, nil
}

// modulePath returns the path on the module line of a go.mod file, or "".
func modulePath(gomod []byte) string {
	for line := range bytes.Lines(gomod) {
		s := string(line)
		if i := strings.Index(s, "//"); i >= 0 {
			s = s[:i]
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(s), "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if p, err := strconv.Unquote(rest); err == nil {
			return p
		}
		return rest
	}
	return ""
}

// CheckPackage applies every rule to the files of pkg, which must have been loaded
// with LoadMode. File names in the findings are relative to root. Findings are
// sorted and deduplicated.
func CheckPackage(pkg *packages.Package, root string) []Finding {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	var out []Finding
	for _, file := range pkg.Syntax {
		c := &fileChecker{
			fset:    pkg.Fset,
			info:    pkg.TypesInfo,
			file:    file,
			name:    relName(root, pkg.Fset.Position(file.Pos()).Filename),
			allowed: map[ast.Expr]bool{},
		}
		out = append(out, c.check()...)
	}
	return normalize(out)
}

// relName returns filename relative to root with forward slashes, or filename
// itself if it is not below root.
func relName(root, filename string) string {
	rel, err := filepath.Rel(root, filename)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(filename)
	}
	return filepath.ToSlash(rel)
}

// normalize sorts findings by (file, line, rule) and keeps the first of each key.
func normalize(fs []Finding) []Finding {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(string(a.Rule), string(b.Rule))
	})
	return slices.CompactFunc(fs, func(a, b Finding) bool {
		return a.File == b.File && a.Line == b.Line && a.Rule == b.Rule
	})
}

// Messages shared by several checks.
const (
	msgConcurrency = "the Go scheduler does not order goroutines reproducibly, so " +
		"all concurrency belongs to the engine in actors/"
	msgChannel = msgConcurrency + "; exchange actors.Msg values with ctx.Send and " +
		"keep queues as slices with a hardware bound"
	msgMapRange = "Go randomises map iteration order, so anything that depends on it " +
		"differs between runs; range over slices.Sorted(maps.Keys(m)) (or collect the " +
		"keys with append and sort them), or, if order provably cannot matter (e.g. a " +
		"commutative sum), write //lint:ordered <reason> on the for line or the line above"
)

// directivePrefix starts the comment that exempts a map range.
const directivePrefix = "//lint:ordered"

// directive is one //lint:ordered comment.
type directive struct {
	pos       token.Pos
	reason    string // text after the prefix, trimmed; "" is an error
	wholeLine bool   // nothing but blanks precede it on its line
	used      bool   // attached to a map range
}

// fileChecker applies the rules to one file.
type fileChecker struct {
	fset       *token.FileSet
	info       *types.Info
	file       *ast.File
	name       string
	directives map[int]*directive // by line
	allowed    map[ast.Expr]bool  // maps iterator calls that are sorted or ranged over
	findings   []Finding
}

func (c *fileChecker) check() []Finding {
	c.collectDirectives()
	c.checkImports()
	ast.Inspect(c.file, c.visit)
	c.checkDirectives()
	return c.findings
}

func (c *fileChecker) report(pos token.Pos, rule Rule, msg string) {
	c.findings = append(c.findings, Finding{File: c.name, Line: c.line(pos), Rule: rule, Message: msg})
}

func (c *fileChecker) line(pos token.Pos) int { return c.fset.Position(pos).Line }

func (c *fileChecker) checkImports() {
	for _, spec := range c.file.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		for _, f := range forbiddenImports {
			if path == f.path || strings.HasPrefix(path, f.path+"/") {
				c.report(spec.Pos(), RuleImport, fmt.Sprintf("import %q: %s", path, f.why))
				break
			}
		}
	}
}

// visit is the ast.Inspect callback for everything but imports.
func (c *fileChecker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.GoStmt:
		c.report(n.Go, RuleGo, "go statement: "+msgConcurrency+
			"; model the work as an actor and send it a message (ctx.Send with a delay)")
	case *ast.SelectStmt:
		c.report(n.Select, RuleChannel, "select statement: "+msgChannel)
		// The cases are part of the select; check only their bodies.
		for _, clause := range n.Body.List {
			for _, stmt := range clause.(*ast.CommClause).Body {
				ast.Inspect(stmt, c.visit)
			}
		}
		return false
	case *ast.ChanType:
		c.report(n.Begin, RuleChannel, "channel type: "+msgChannel)
		return false
	case *ast.SendStmt:
		c.report(n.Arrow, RuleChannel, "channel send: "+msgChannel)
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			c.report(n.OpPos, RuleChannel, "channel receive: "+msgChannel)
		}
	case *ast.CallExpr:
		c.visitCall(n)
	case *ast.RangeStmt:
		c.visitRange(n)
	}
	return true
}

func (c *fileChecker) visitCall(call *ast.CallExpr) {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := c.info.Uses[id].(*types.Builtin); ok && b.Name() == "close" {
			c.report(call.Pos(), RuleChannel, "close of a channel: "+msgChannel)
		}
		return
	}
	if isSortedCall(c.info, call) && len(call.Args) > 0 {
		c.allowed[ast.Unparen(call.Args[0])] = true
	}
	if name := mapsIterator(c.info, call); name != "" && !c.allowed[call] {
		c.report(call.Pos(), RuleMapRange, name+" yields in random order: "+msgMapRange)
	}
}

func (c *fileChecker) visitRange(rs *ast.RangeStmt) {
	x := ast.Unparen(rs.X)
	t := c.info.TypeOf(rs.X)
	switch {
	case hasCore[*types.Map](t):
		c.checkMapRange(rs, "range over a map")
	case isCall(x) && mapsIterator(c.info, x.(*ast.CallExpr)) != "":
		c.allowed[x] = true
		c.checkMapRange(rs, "range over "+mapsIterator(c.info, x.(*ast.CallExpr)))
	case hasCore[*types.Chan](t):
		c.report(rs.For, RuleChannel, "range over a channel: "+msgChannel)
	}
}

func isCall(e ast.Expr) bool {
	_, ok := e.(*ast.CallExpr)
	return ok
}

// checkMapRange reports rs unless a valid //lint:ordered directive is attached or
// its body only collects keys or values.
func (c *fileChecker) checkMapRange(rs *ast.RangeStmt, what string) {
	line := c.line(rs.For)
	d := c.directives[line]
	if d == nil {
		if above := c.directives[line-1]; above != nil && above.wholeLine {
			d = above
		}
	}
	if d != nil {
		d.used = true
		if d.reason != "" {
			return
		}
	}
	if isCollect(c.info, rs) {
		return
	}
	c.report(rs.For, RuleMapRange, what+": "+msgMapRange)
}

// isCollect reports whether the body of rs is the single statement
// s = append(s, k) where k is the key or value variable of rs: the first half of
// the collect-then-sort idiom.
func isCollect(info *types.Info, rs *ast.RangeStmt) bool {
	if len(rs.Body.List) != 1 {
		return false
	}
	as, ok := rs.Body.List[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return false
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok || call.Ellipsis.IsValid() || len(call.Args) != 2 {
		return false
	}
	fun, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	if b, ok := info.Uses[fun].(*types.Builtin); !ok || b.Name() != "append" {
		return false
	}
	if types.ExprString(call.Args[0]) != types.ExprString(as.Lhs[0]) {
		return false
	}
	elem := identObject(info, call.Args[1])
	return elem != nil && (elem == identObject(info, rs.Key) || elem == identObject(info, rs.Value))
}

// identObject returns the object a plain identifier denotes, or nil.
func identObject(info *types.Info, e ast.Expr) types.Object {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	return info.ObjectOf(id)
}

// calledFunc returns the package-level function call invokes, or nil.
func calledFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr: // explicit instantiation, maps.Keys[M]
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	fn, _ := info.Uses[sel.Sel].(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return nil
	}
	return fn
}

// mapsIterator returns "maps.Keys", "maps.Values" or "maps.All" if call makes
// one of those iterators, which yield in map order; otherwise "".
func mapsIterator(info *types.Info, call *ast.CallExpr) string {
	fn := calledFunc(info, call)
	if fn == nil || fn.Pkg().Path() != "maps" {
		return ""
	}
	switch fn.Name() {
	case "Keys", "Values", "All":
		return "maps." + fn.Name()
	}
	return ""
}

// isSortedCall reports whether call is slices.Sorted, SortedFunc or
// SortedStableFunc, which make a deterministic slice from any iterator.
func isSortedCall(info *types.Info, call *ast.CallExpr) bool {
	fn := calledFunc(info, call)
	if fn == nil || fn.Pkg().Path() != "slices" {
		return false
	}
	switch fn.Name() {
	case "Sorted", "SortedFunc", "SortedStableFunc":
		return true
	}
	return false
}

// hasCore reports whether t's underlying type is a T or, for a type parameter,
// whether some type in its constraint has underlying type T.
func hasCore[T types.Type](t types.Type) bool {
	if t == nil {
		return false
	}
	tp, ok := t.(*types.TypeParam)
	if !ok {
		_, ok := t.Underlying().(T)
		return ok
	}
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := range iface.NumEmbeddeds() {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				if _, ok := e.Term(j).Type().Underlying().(T); ok {
					return true
				}
			}
		default:
			if _, ok := e.Underlying().(T); ok {
				return true
			}
		}
	}
	return false
}

// collectDirectives records every //lint:ordered comment of the file by line.
func (c *fileChecker) collectDirectives() {
	c.directives = map[int]*directive{}
	var src []byte // read lazily, only if the file has directives
	for _, group := range c.file.Comments {
		for _, cm := range group.List {
			rest, ok := strings.CutPrefix(cm.Text, directivePrefix)
			if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
				continue // not ours, e.g. //lint:orderedness or /* ... */
			}
			pos := c.fset.Position(cm.Slash)
			if src == nil {
				src, _ = os.ReadFile(pos.Filename)
			}
			c.directives[pos.Line] = &directive{
				pos:       cm.Slash,
				reason:    strings.TrimSpace(rest),
				wholeLine: startsLine(src, pos),
			}
		}
	}
}

// startsLine reports whether only blanks precede pos on its line in src. If the
// source cannot be read it answers true, the lenient choice.
func startsLine(src []byte, pos token.Position) bool {
	off := pos.Offset - (pos.Column - 1)
	if off < 0 || pos.Offset > len(src) {
		return true
	}
	return len(bytes.TrimLeft(src[off:pos.Offset], " \t")) == 0
}

// checkDirectives reports directives without a reason and directives attached
// to no map range (stale after a refactoring, or misplaced).
func (c *fileChecker) checkDirectives() {
	for _, line := range slices.Sorted(maps.Keys(c.directives)) {
		switch d := c.directives[line]; {
		case d.reason == "":
			c.report(d.pos, RuleDirective, directivePrefix+" needs a reason saying why "+
				"iteration order cannot matter (e.g. \"commutative sum\"); without one "+
				"it exempts nothing")
		case !d.used:
			c.report(d.pos, RuleDirective, directivePrefix+" is not on or directly above "+
				"a range over a map, so it exempts nothing; move it or delete it")
		}
	}
}

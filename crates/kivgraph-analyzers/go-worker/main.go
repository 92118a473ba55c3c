// Command kivgraph-go-worker type-checks one Go module with go/types and prints, as JSON,
// every identifier the checker resolved: where it is, and where the object it denotes is
// declared. Standard library only: packages come from `go list`, the packages of the build
// (the module's, the other workspace modules') are checked from source, and what they import
// from outside it is read from the export data `go list -export` compiles for those packages
// alone.
//
//	kivgraph-go-worker -dir MODULE_DIR [-tags a,b] [-tests]
//
// The environment carries the hermetic settings (GOPROXY=off, GOTOOLCHAIN=local, GOWORK).
// A module the go command cannot load is reported in `load_errors`, with no documents.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

type listedPackage struct {
	ImportPath  string
	Dir         string
	Name        string
	GoFiles     []string
	CgoFiles    []string
	TestGoFiles  []string
	TestImports  []string
	XTestGoFiles []string
	XTestImports []string
	ImportMap   map[string]string
	Standard    bool
	DepOnly     bool
	Incomplete  bool
	Module      *struct {
		Path string
		Main bool
		Dir  string
	}
	Error *struct {
		Err string
	}
	DepsErrors []struct {
		Err         string
		ImportStack []string
	}
}

// Occurrence is one resolved identifier: its position (0-based line, byte columns) and
// the symbol it denotes. A symbol is `go <file>:<line> <name>` of the declaration for
// package-level objects, fields and methods (export data keeps lines, not columns),
// `local <n>` for function-local objects, and `go-package <path>` for an imported package
// or the universe.
type Occurrence struct {
	Line       int    `json:"line"`
	Column     int    `json:"column"`
	EndColumn  int    `json:"end_column"`
	Symbol     string `json:"symbol"`
	Definition bool   `json:"definition"`
}

type Document struct {
	Path        string       `json:"path"`
	Occurrences []Occurrence `json:"occurrences"`
}

type Output struct {
	GoVersion string     `json:"go_version"`
	Documents []Document `json:"documents"`
	// LoadErrors: the go command could not list the module at all.
	LoadErrors []string `json:"load_errors"`
	// NotLoaded: packages of the module that import a required module the go command
	// could not load (not in the local module cache): they are checked, but what they use
	// of it resolves to nothing.
	NotLoaded    []Scope  `json:"not_loaded"`
	NotBuildable []Scope  `json:"not_buildable"`
	TypeErrors   []string `json:"type_errors"`
}

type Scope struct {
	Package string `json:"package"`
	Detail  string `json:"detail"`
}

func main() {
	dir := flag.String("dir", ".", "the module's directory")
	tags := flag.String("tags", "", "build tags, comma-separated")
	tests := flag.Bool("tests", false, "check each package's _test.go files, its external tests included")
	version := flag.Bool("version", false, "print the Go version this worker checks with")
	flag.Parse()
	if *version {
		fmt.Println("kivgraph-go-worker 3 " + goVersion())
		return
	}
	out := run(*dir, *tags, *tests)
	encoder := json.NewEncoder(os.Stdout)
	if err := encoder.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// goCommand is the go command the worker loads with: $KIVGRAPH_GO, else the toolchain the
// setup script extracted beside the worker, else the PATH's.
func goCommand() string {
	if configured := os.Getenv("KIVGRAPH_GO"); configured != "" {
		return configured
	}
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), "..", "go", "current", "bin", "go")
		if _, err := os.Stat(beside); err == nil {
			return beside
		}
	}
	return "go"
}

func goVersion() string {
	output, err := exec.Command(goCommand(), "env", "GOVERSION").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(output))
}

func run(dir, tags string, tests bool) Output {
	out := Output{GoVersion: goVersion(), Documents: []Document{}, LoadErrors: []string{}, NotLoaded: []Scope{}, NotBuildable: []Scope{}, TypeErrors: []string{}}
	stdout, err := goList(dir, tags, []string{"-deps", "-json"}, []string{"./..."})
	if err != nil {
		out.LoadErrors = append(out.LoadErrors, err.Error())
		return out
	}
	var packages []listedPackage
	decoder := json.NewDecoder(bytes.NewReader(stdout))
	for {
		var p listedPackage
		if err := decoder.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			out.LoadErrors = append(out.LoadErrors, "go list output: "+err.Error())
			return out
		}
		packages = append(packages, p)
	}
	failed := map[string]*listedPackage{}
	listed := map[string]bool{}
	inBuild := map[string]bool{}
	for i := range packages {
		p := &packages[i]
		if p.Error != nil {
			failed[p.Error.Err] = p
		}
		if ofTheBuild(p) {
			inBuild[p.ImportPath] = true
			if !p.DepOnly {
				listed[p.Dir] = true
			}
		}
	}
	var outside []string
	needed := map[string]bool{}
	need := func(path string) {
		if !inBuild[path] && !needed[path] {
			needed[path] = true
			outside = append(outside, path)
		}
	}
	for _, p := range packages {
		if !ofTheBuild(&p) && p.Error == nil {
			need(p.ImportPath)
		}
		// What only the tests import ("testing", "net/http/httptest"…) is compiled too;
		// `go list -export` adds what those import.
		if tests && ofTheBuild(&p) && !p.DepOnly {
			for _, path := range append(append([]string{}, p.TestImports...), p.XTestImports...) {
				need(path)
			}
		}
	}
	exports, err := exportData(dir, tags, outside)
	if err != nil {
		out.LoadErrors = append(out.LoadErrors, err.Error())
		return out
	}
	out.NotBuildable = unbuildable(dir, tags, listed)
	load := newLoader(exports)
	var xtests []listedPackage
	// `go list -deps` lists dependencies first: every package is checked after what it
	// imports.
	for _, p := range packages {
		if !ofTheBuild(&p) {
			continue
		}
		if p.Error != nil && len(p.GoFiles) == 0 {
			if p.DepOnly {
				continue
			}
			if strings.Contains(p.Error.Err, "build constraints exclude all Go files") {
				out.NotBuildable = append(out.NotBuildable, Scope{Package: p.ImportPath, Detail: p.Error.Err})
			} else {
				out.NotLoaded = append(out.NotLoaded, Scope{Package: p.ImportPath, Detail: p.Error.Err})
			}
			continue
		}
		// The packages of the build (the module's and the other workspace modules') are
		// checked from source: compiling them for export data would cost more than
		// checking them.
		files := append([]string{}, p.GoFiles...)
		files = append(files, p.CgoFiles...)
		if tests && !p.DepOnly {
			files = append(files, p.TestGoFiles...)
		}
		documents, problems := load.check(p, files)
		if p.DepOnly {
			continue
		}
		out.Documents = append(out.Documents, documents...)
		out.TypeErrors = append(out.TypeErrors, problems...)
		if detail := unavailableModules(p, failed); detail != "" {
			out.NotLoaded = append(out.NotLoaded, Scope{Package: p.ImportPath, Detail: detail})
		}
		if tests && len(p.XTestGoFiles) > 0 {
			xtests = append(xtests, p)
		}
	}
	// A package's external tests (`package p_test`) import it like any client, and may
	// import packages that import it: they are checked once every package is.
	for _, p := range xtests {
		external := listedPackage{ImportPath: p.ImportPath + "_test", Dir: p.Dir, ImportMap: p.ImportMap}
		documents, problems := load.check(external, p.XTestGoFiles)
		out.Documents = append(out.Documents, documents...)
		out.TypeErrors = append(out.TypeErrors, problems...)
	}
	sort.Slice(out.Documents, func(i, j int) bool { return out.Documents[i].Path < out.Documents[j].Path })
	return out
}

// goList runs the go command's list in dir with the build tags.
func goList(dir, tags string, flags, patterns []string) ([]byte, error) {
	args := append([]string{"list", "-e"}, flags...)
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, patterns...)
	command := exec.Command(goCommand(), args...)
	command.Dir = dir
	var stderr bytes.Buffer
	command.Stderr = &stderr
	stdout, err := command.Output()
	if err != nil {
		// What the go command said is the reason; its exit status adds nothing to it.
		if said := strings.TrimSpace(stderr.String()); said != "" {
			return nil, fmt.Errorf("%s", said)
		}
		return nil, err
	}
	return stdout, nil
}

// exportData compiles the packages outside the build (the standard library, the module
// cache's) for their export data: the importer reads what the module's packages import
// from there. By import path, the file the compiler wrote.
func exportData(dir, tags string, paths []string) (map[string]string, error) {
	exports := map[string]string{}
	if len(paths) == 0 {
		return exports, nil
	}
	stdout, err := goList(dir, tags, []string{"-export", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(stdout), "\n") {
		path, export, found := strings.Cut(line, "\t")
		if found && export != "" {
			exports[path] = export
		}
	}
	return exports, nil
}

// ofTheBuild says whether a package belongs to a module of the build (the module, or another
// module of the workspace), not to the module cache or the standard library.
func ofTheBuild(p *listedPackage) bool {
	return p.Module != nil && p.Module.Main
}

// unavailableModules names what a package imports from a required module the go command
// could not load (not in the local module cache, no go.sum entry). An import no module
// requires at all is not one: the syntax layer declares it as a provider nobody has.
func unavailableModules(p listedPackage, failed map[string]*listedPackage) string {
	var details []string
	for _, e := range p.DepsErrors {
		if strings.Contains(e.Err, "no required module provides package") {
			continue
		}
		// A dependency error is the failing package's own error.
		failing := failed[e.Err]
		if failing == nil || ofTheBuild(failing) {
			continue
		}
		details = append(details, failing.ImportPath+": "+strings.TrimSpace(e.Err))
	}
	return strings.Join(details, "; ")
}

// loader checks packages from source; what they import comes from export data, or, for a
// package of the build, from its own check from source.
type loader struct {
	fset    *token.FileSet
	exports map[string]string
	checked map[string]*types.Package
	gc      types.Importer
}

func newLoader(exports map[string]string) *loader {
	fset := token.NewFileSet()
	lookup := func(path string) (io.ReadCloser, error) {
		export, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(export)
	}
	return &loader{fset: fset, exports: exports, checked: map[string]*types.Package{}, gc: importer.ForCompiler(fset, "gc", lookup)}
}

type packageImporter struct {
	load      *loader
	importMap map[string]string
}

func (i packageImporter) Import(path string) (*types.Package, error) {
	if mapped, ok := i.importMap[path]; ok {
		path = mapped
	}
	if _, ok := i.load.exports[path]; !ok {
		if checked, ok := i.load.checked[path]; ok {
			return checked, nil
		}
	}
	return i.load.gc.Import(path)
}

// check type-checks one package from source.
func (load *loader) check(p listedPackage, names []string) ([]Document, []string) {
	fset := load.fset
	var files []*ast.File
	var problems []string
	for _, name := range names {
		path := filepath.Join(p.Dir, name)
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			problems = append(problems, err.Error())
		}
		if file != nil {
			files = append(files, file)
		}
	}
	config := types.Config{
		Importer: packageImporter{load: load, importMap: p.ImportMap},
		Error: func(err error) {
			problems = append(problems, err.Error())
		},
		FakeImportC: true,
	}
	info := &types.Info{
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	pkg, _ := config.Check(p.ImportPath, fset, files, info)
	if pkg != nil {
		load.checked[p.ImportPath] = pkg
	}
	symbol := func(object types.Object) string {
		switch object := object.(type) {
		case *types.PkgName:
			return "go-package " + object.Imported().Path()
		case *types.Label:
			return localSymbol(object)
		}
		if object.Pkg() == nil {
			return "go-package builtin"
		}
		parent := object.Parent()
		if parent != nil && pkg != nil && parent != object.Pkg().Scope() && parent != types.Universe {
			return localSymbol(object)
		}
		position := fset.Position(object.Pos())
		if !position.IsValid() {
			return "go-package " + object.Pkg().Path()
		}
		return fmt.Sprintf("go %s:%d %s", position.Filename, position.Line, object.Name())
	}
	byFile := map[string]*Document{}
	add := func(ident *ast.Ident, object types.Object, definition bool) {
		if object == nil || ident.Name == "_" {
			return
		}
		position := fset.Position(ident.Pos())
		document := byFile[position.Filename]
		if document == nil {
			document = &Document{Path: position.Filename, Occurrences: []Occurrence{}}
			byFile[position.Filename] = document
		}
		document.Occurrences = append(document.Occurrences, Occurrence{
			Line:       position.Line - 1,
			Column:     position.Column - 1,
			EndColumn:  position.Column - 1 + len(ident.Name),
			Symbol:     symbol(object),
			Definition: definition,
		})
	}
	for ident, object := range info.Defs {
		add(ident, object, true)
	}
	for ident, object := range info.Uses {
		add(ident, object, false)
	}
	var documents []Document
	for _, document := range byFile {
		sort.Slice(document.Occurrences, func(i, j int) bool {
			a, b := document.Occurrences[i], document.Occurrences[j]
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			if a.Column != b.Column {
				return a.Column < b.Column
			}
			return a.Symbol < b.Symbol
		})
		documents = append(documents, *document)
	}
	return documents, problems
}

// localSymbol names a function-local object by where it is declared, so that the output
// does not depend on map order.
// unbuildable lists the module's directories holding Go files that `./...` left out: the
// build configuration excludes every file of theirs.
func unbuildable(dir, tags string, listed map[string]bool) []Scope {
	scopes := []Scope{}
	root, err := filepath.Abs(dir)
	if err != nil {
		return scopes
	}
	var missing []string
	filepath.WalkDir(root, func(path string, entry os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := entry.Name()
		if entry.IsDir() {
			skip := name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
			if path != root && skip {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		directory := filepath.Dir(path)
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && !listed[directory] {
			listed[directory] = true
			missing = append(missing, directory)
		}
		return nil
	})
	if len(missing) == 0 {
		return scopes
	}
	args := []string{"list", "-e", "-json"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	command := exec.Command(goCommand(), append(args, missing...)...)
	command.Dir = root
	stdout, _ := command.Output()
	decoder := json.NewDecoder(bytes.NewReader(stdout))
	for {
		var p listedPackage
		if decoder.Decode(&p) != nil {
			break
		}
		if p.Error != nil {
			scopes = append(scopes, Scope{Package: p.ImportPath, Detail: p.Error.Err})
		}
	}
	return scopes
}

func localSymbol(object types.Object) string {
	return fmt.Sprintf("local %d", object.Pos())
}

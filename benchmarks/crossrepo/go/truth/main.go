// Ground truth for the Go cross-repository questions (../questions.json), from go/types over
// the combined workspace: one go.work using every registered module (as a developer working
// on all of them sets up), every package of every registered module type-checked from
// source in dependency order — so an object declared in one repository is the same object
// wherever another repository uses it — and the standard library and unregistered modules
// from the export data `go list -export` compiles. Test files are left out, as
// `go.include_tests: false` (the default) leaves them out of the graph.
//
// For each question's subject it writes the files holding a use (`repository/path`), and
// for an interface's method the files declaring a method that implements it:
// `find_references` counts every file, `find_cross_repo_consumers` the files of other
// repositories. `-survey` lists instead every declaration another repository uses, with how
// many files use it, to choose questions from.
//
//	go run . -corpus CORPUS [-write | -survey]   (CORPUS: .../corpus/crossrepo-go)
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	GoFiles    []string
	CgoFiles   []string
	ImportMap  map[string]string
	Export     string
	Module     *struct{ Path, Dir string }
	Error      *struct{ Err string }
}

type question struct {
	ID        string          `json:"id"`
	Class     string          `json:"class"`
	Language  string          `json:"language"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Name      string          `json:"name"`
	Truth     []string        `json:"truth"`
	Note      string          `json:"note"`
}

type subject struct {
	Repository    string `json:"repository"`
	Path          string `json:"path"`
	QualifiedName string `json:"qualified_name"`
}

// fileSet holds every file parsed, from source or export data.
var fileSet = token.NewFileSet()

// checked is one registered package after type-checking.
type checked struct {
	repository string
	root       string
	files      []*ast.File
	info       *types.Info
	pkg        *types.Package
}

func main() {
	corpus := flag.String("corpus", "", "the fetched corpus (crossrepo-go)")
	write := flag.Bool("write", false, "write the truth into questions.json")
	survey := flag.Bool("survey", false, "list the declarations other repositories use")
	flag.Parse()
	here, err := os.Getwd()
	check(err)
	repositories := registered(filepath.Join(here, "..", "clusters.json"), *corpus)
	packages := typeCheck(repositories)
	if *survey {
		printSurvey(packages)
		return
	}
	questionsFile := filepath.Join(here, "..", "questions.json")
	var questions []question
	data, err := os.ReadFile(questionsFile)
	check(err)
	check(json.Unmarshal(data, &questions))
	for i := range questions {
		q := &questions[i]
		var s subject
		check(json.Unmarshal(q.Arguments, &s))
		object := find(packages, s)
		if object == nil {
			log.Fatalf("%s: %s %s %s is not declared", q.ID, s.Repository, s.Path, s.QualifiedName)
		}
		consumers := q.Tool == "find_cross_repo_consumers"
		files := usesOf(packages, object)
		for file := range implementationsOf(packages, object, consumers) {
			files[file] = true
		}
		q.Truth = []string{}
		for _, file := range sorted(files) {
			if consumers && strings.HasPrefix(file, s.Repository+"/") {
				continue
			}
			q.Truth = append(q.Truth, file)
		}
		fmt.Fprintf(os.Stderr, "%s %s: %d files\n", q.ID, s.QualifiedName, len(q.Truth))
	}
	if *write {
		out, err := json.MarshalIndent(questions, "", " ")
		check(err)
		check(os.WriteFile(questionsFile, append(out, '\n'), 0o644))
	}
}

// registered reads the clusters: repository name to checkout, for each with a go.mod.
func registered(clustersFile, corpus string) map[string]string {
	var clusters struct {
		Clusters []struct {
			Packages []struct{ Repository string }
		}
	}
	data, err := os.ReadFile(clustersFile)
	check(err)
	check(json.Unmarshal(data, &clusters))
	repositories := map[string]string{}
	for _, c := range clusters.Clusters {
		for _, p := range c.Packages {
			dir, err := filepath.Abs(filepath.Join(corpus, p.Repository))
			check(err)
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
				log.Fatalf("%s is missing: run benchmarks/fetch-crossrepo.sh go", dir)
			}
			repositories[p.Repository] = dir
		}
	}
	return repositories
}

// goCommand runs the go command over the combined workspace.
func goCommand(work string, args ...string) []byte {
	command := exec.Command("go", args...)
	command.Dir = work
	command.Env = append(os.Environ(), "GOWORK="+filepath.Join(work, "go.work"), "GOPROXY=off",
		"GOFLAGS=", "GOTOOLCHAIN=local")
	command.Stderr = os.Stderr
	out, err := command.Output()
	check(err)
	return out
}

func typeCheck(repositories map[string]string) []*checked {
	work, err := os.MkdirTemp("", "crossrepo-go-truth-")
	check(err)
	defer os.RemoveAll(work)
	var workspace strings.Builder
	workspace.WriteString("go 1.27\n\nuse (\n")
	var patterns []string
	owner := map[string]string{}
	names := make([]string, 0, len(repositories))
	for name := range repositories {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		dir := repositories[name]
		fmt.Fprintf(&workspace, "\t%s\n", dir)
		owner[dir] = name
		module := goCommand(filepath.Dir(dir), "mod", "edit", "-json", filepath.Join(dir, "go.mod"))
		var parsed struct{ Module struct{ Path string } }
		check(json.Unmarshal(module, &parsed))
		patterns = append(patterns, parsed.Module.Path+"/...")
	}
	workspace.WriteString(")\n")
	check(os.WriteFile(filepath.Join(work, "go.work"), []byte(workspace.String()), 0o644))

	listed := decodeList(goCommand(work, append([]string{"list", "-e", "-json", "-deps"}, patterns...)...))
	// Export data for what is not checked from source.
	var outside []string
	for _, p := range listed {
		if p.Module == nil || owner[p.Module.Dir] == "" {
			outside = append(outside, p.ImportPath)
		}
	}
	exports := map[string]string{}
	if len(outside) > 0 {
		for _, line := range strings.Split(string(goCommand(work, append([]string{"list", "-e", "-export",
			"-f", "{{.ImportPath}}\t{{.Export}}"}, outside...)...)), "\n") {
			if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
				exports[path] = file
			}
		}
	}
	fromExport := importer.ForCompiler(fileSet, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	bySource := map[string]*types.Package{}
	var result []*checked
	for _, p := range listed {
		if p.Module == nil || owner[p.Module.Dir] == "" {
			continue
		}
		repository := owner[p.Module.Dir]
		if p.Error != nil {
			fmt.Fprintf(os.Stderr, "not loaded: %s: %s\n", p.ImportPath, p.Error.Err)
			continue
		}
		var files []*ast.File
		for _, name := range append(append([]string{}, p.GoFiles...), p.CgoFiles...) {
			file, err := parser.ParseFile(fileSet, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			check(err)
			files = append(files, file)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
		importMap := p.ImportMap
		config := types.Config{
			FakeImportC: true,
			Error:       func(error) {},
			Importer: importerFunc(func(path string) (*types.Package, error) {
				if mapped, ok := importMap[path]; ok {
					path = mapped
				}
				if pkg, ok := bySource[path]; ok {
					return pkg, nil
				}
				return fromExport.Import(path)
			}),
		}
		pkg, _ := config.Check(p.ImportPath, fileSet, files, info)
		bySource[p.ImportPath] = pkg
		result = append(result, &checked{repository: repository, root: p.Module.Dir, files: files, info: info, pkg: pkg})
	}
	return result
}

func decodeList(out []byte) []listedPackage {
	decoder := json.NewDecoder(strings.NewReader(string(out)))
	var listed []listedPackage
	for decoder.More() {
		var p listedPackage
		check(decoder.Decode(&p))
		listed = append(listed, p)
	}
	return listed
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// find is the subject's object: a package-level name, or `Type.Member` (a method declared on
// the type, or a field of its struct), declared in the subject's file.
func find(packages []*checked, s subject) types.Object {
	for _, c := range packages {
		if c.repository != s.Repository || c.pkg == nil {
			continue
		}
		var object types.Object
		typeName, member, isMember := strings.Cut(s.QualifiedName, ".")
		if !isMember {
			object = c.pkg.Scope().Lookup(s.QualifiedName)
		} else if named, ok := c.pkg.Scope().Lookup(typeName).(*types.TypeName); ok {
			object, _, _ = types.LookupFieldOrMethod(named.Type(), true, c.pkg, member)
		}
		if object != nil && relative(c, object.Pos()) == s.Path {
			return object
		}
	}
	return nil
}

// relative is the position's file under its repository, as `path/to/file.go`.
func relative(c *checked, pos token.Pos) string {
	name := fileSet.PositionFor(pos, false).Filename
	rel, err := filepath.Rel(c.root, name)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// origin is the generic declaration an instantiated function, method or field comes from.
func origin(object types.Object) types.Object {
	switch o := object.(type) {
	case *types.Func:
		return o.Origin()
	case *types.Var:
		return o.Origin()
	}
	return object
}

// usesOf is the set of files (`repository/path`) holding a use of the object.
func usesOf(packages []*checked, object types.Object) map[string]bool {
	files := map[string]bool{}
	for _, c := range packages {
		for id, used := range c.info.Uses {
			if origin(used) == object {
				if file := relative(c, id.Pos()); file != "" {
					files[c.repository+"/"+file] = true
				}
			}
		}
	}
	return files
}

// implementationsOf is the set of files declaring a concrete method that implements the
// object, when it is an interface's method: Go's implements relation, which
// find_references reports as IMPLEMENTS. A consumer must see the interface: with
// `visible`, only types whose package imports the interface's, directly or not.
func implementationsOf(packages []*checked, object types.Object, visible bool) map[string]bool {
	files := map[string]bool{}
	method, ok := object.(*types.Func)
	if !ok || method.Signature().Recv() == nil {
		return files
	}
	iface, ok := method.Signature().Recv().Type().Underlying().(*types.Interface)
	if !ok {
		return files
	}
	for _, c := range packages {
		if c.pkg == nil || (visible && !imports(c.pkg, method.Pkg(), map[*types.Package]bool{})) {
			continue
		}
		for id, defined := range c.info.Defs {
			concrete, ok := defined.(*types.Func)
			if !ok || concrete.Name() != method.Name() || concrete.Signature().Recv() == nil {
				continue
			}
			receiver := concrete.Signature().Recv().Type()
			if pointer, ok := receiver.(*types.Pointer); ok {
				receiver = pointer.Elem()
			}
			if _, isInterface := receiver.Underlying().(*types.Interface); isInterface {
				continue
			}
			if types.Implements(receiver, iface) || types.Implements(types.NewPointer(receiver), iface) {
				if file := relative(c, id.Pos()); file != "" {
					files[c.repository+"/"+file] = true
				}
			}
		}
	}
	return files
}

// imports tells whether pkg imports target, directly or through its imports.
func imports(pkg, target *types.Package, seen map[*types.Package]bool) bool {
	if pkg == target {
		return true
	}
	if seen[pkg] {
		return false
	}
	seen[pkg] = true
	for _, imported := range pkg.Imports() {
		if imports(imported, target, seen) {
			return true
		}
	}
	return false
}

func sorted(set map[string]bool) []string {
	list := make([]string, 0, len(set))
	for item := range set {
		list = append(list, item)
	}
	sort.Strings(list)
	return list
}

// printSurvey lists every declaration of a registered repository that another one uses:
// repository, file, qualified name, kind, and the using files of other repositories.
func printSurvey(packages []*checked) {
	type declaration struct{ repository, file, name, kind string }
	declared := map[types.Object]declaration{}
	for _, c := range packages {
		for id, object := range c.info.Defs {
			if object == nil || !object.Exported() {
				continue
			}
			name := ""
			switch o := object.(type) {
			case *types.Func:
				if recv := o.Signature().Recv(); recv != nil {
					named := typeNameOf(recv.Type())
					if named == "" {
						continue
					}
					name = named + "." + o.Name()
				} else {
					name = o.Name()
				}
			case *types.TypeName, *types.Const:
				if object.Parent() != c.pkg.Scope() {
					continue
				}
				name = o.Name()
			case *types.Var:
				if !o.IsField() && object.Parent() != c.pkg.Scope() {
					continue
				}
				if o.IsField() {
					continue
				}
				name = o.Name()
			default:
				continue
			}
			declared[object] = declaration{c.repository, relative(c, id.Pos()), name, fmt.Sprintf("%T", object)}
		}
	}
	users := map[types.Object]map[string]bool{}
	for _, c := range packages {
		for id, used := range c.info.Uses {
			d, ok := declared[origin(used)]
			if !ok || d.repository == c.repository {
				continue
			}
			if users[origin(used)] == nil {
				users[origin(used)] = map[string]bool{}
			}
			users[origin(used)][c.repository+"/"+relative(c, id.Pos())] = true
		}
	}
	var lines []string
	for object, files := range users {
		d := declared[object]
		lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%s", d.repository, d.file, d.name,
			strings.TrimPrefix(d.kind, "*types."), len(files), strings.Join(sorted(files), " ")))
	}
	sort.Strings(lines)
	fmt.Println(strings.Join(lines, "\n"))
}

func typeNameOf(t types.Type) string {
	if pointer, ok := t.(*types.Pointer); ok {
		t = pointer.Elem()
	}
	if named, ok := t.(*types.Named); ok {
		return named.Obj().Name()
	}
	return ""
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

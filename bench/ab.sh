#!/usr/bin/env bash
# npm run bench:ab -- <git revision> [messages] [rounds]: the working tree's delivery latency (B)
# against that revision's (A), in one process (see bench/ab.ts).
set -euo pipefail
rev=${1:?usage: npm run bench:ab -- <git revision> [messages] [rounds]}
out=node_modules/.cache/switchboard-ab
rm -rf "$out"
mkdir -p "$out/base"
git archive "$rev" src | tar -x -C "$out/base"
bundle() {
  esbuild "$1" --bundle --platform=node --format=esm --target=node22 --packages=external --outfile="$2" --log-level=warning
}
bundle "$out/base/src/wiring/node-mailbox.ts" "$out/a.mjs"
bundle src/wiring/node-mailbox.ts "$out/b.mjs"
bundle bench/ab.ts "$out/run.mjs"
node "$out/run.mjs" "$out/a.mjs" "$out/b.mjs" "${2:-1000}" "${3:-3}"

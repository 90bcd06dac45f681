#!/usr/bin/env bash
# Packs agentdevel, installs the tarball into a clean folder (offline from the npm cache when it
# can), and runs the installed CLI as a new user would: --version, init, run, and the library
# entry point. It prints the npm warnings it saw; it fails on any, and on any failing step.
# Not part of `npm test`: better-sqlite3 builds from source here (a few minutes).
# Run: bash scripts/check-package.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$repo"
tarball="$(npm pack --silent --pack-destination "$work" 2>"$work/pack.log" | tail -1)"
echo "packed $tarball ($(du -h "$work/$tarball" | cut -f1))"

mkdir "$work/app"
cd "$work/app"
npm init -y >/dev/null 2>&1
# npm 11 warns about dependencies' install scripts the installing project has not approved, and
# only the installing project can approve them: better-sqlite3 (a native build) and esbuild. The
# README tells users to add the same "allowScripts" block; agentdevel's own package.json is the source.
# A tarball is a non-registry install, for which npm 11 also lists agentdevel's own `prepare`
# (it builds dist/); from the registry it never runs, since the package ships dist/ built. It is
# declined here as the registry install would skip it, and the check below proves dist/ is used.
node -e '
  const fs = require("node:fs");
  const own = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  const app = JSON.parse(fs.readFileSync("package.json", "utf8"));
  // npm names a tarball in allowScripts by its file spec, not by its package name.
  fs.writeFileSync("package.json", JSON.stringify({ ...app, allowScripts: { ...own.allowScripts, [`file:${process.argv[2]}`]: false } }, null, 2));
' "$repo/package.json" "$work/$tarball"
start=$(date +%s)
npm install --no-audit --no-fund --prefer-offline "$work/$tarball" >"$work/install.log" 2>&1
echo "installed in $(( $(date +%s) - start )) s"
grep -i "warn" "$work/install.log" | grep -v 'Unknown user config "nodedir"' >"$work/warnings.log" || true

echo "npx agentdevel --version: $(npx --no-install agentdevel --version)"
# The installed CLI starts from the shipped bundle, not by compiling its sources.
node --input-type=module -e '
  const { bundleIsFresh } = await import(process.argv[1]);
  if (!bundleIsFresh()) throw new Error("the installed package does not start from its bundle (dist/ missing or stale)");
  console.log("bundle: dist/ shipped and current");
' "$work/app/node_modules/agentdevel/lib/load-entry.mjs"
mkdir "$work/ws"
cd "$work/ws"
git init -q
npx --prefix "$work/app" --no-install agentdevel init --runtime command >/dev/null
CI=true npx --prefix "$work/app" --no-install agentdevel run
# The library as a program calls it: from the folder above the workspace, naming it by a relative
# dir (resolved against the current directory, like the CLI's -C), with a relative JUnit path too.
cat > "$work/app/library.mjs" <<JS
import { existsSync } from 'node:fs';
import { run } from 'agentdevel';
const summary = await run({ dir: process.argv[2], junit: 'library-run.xml' });
if (summary.passRate !== 1 || summary.simulated) throw new Error('library run: ' + JSON.stringify(summary));
if (!existsSync('library-run.xml')) throw new Error('library run: no JUnit file in ' + process.cwd());
console.log('library: run passes ' + summary.passRate * 100 + '%, simulated ' + summary.simulated);
JS
(cd "$work" && node app/library.mjs ws)

if [ -s "$work/warnings.log" ]; then
  echo "npm warnings on install:"
  cat "$work/warnings.log"
  exit 1
fi
echo "no npm warnings on install"

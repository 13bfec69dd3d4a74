#!/usr/bin/env bash
# Fails when a tracked .cpp/.h/.c file differs from clang-format 14's output
# under the project's .clang-format. Run by ctest (test 'format'); exits 77
# (skipped) without clang-format 14 or outside a git checkout.
#   scripts/check-format.sh [SOURCE_DIR]   (scripts/check-format.sh --fix rewrites)
set -uo pipefail
fix=0
[[ ${1:-} == --fix ]] && { fix=1; shift; }
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cf=""
for c in clang-format-14 clang-format; do
  if command -v "$c" >/dev/null && "$c" --version | grep -q 'version 14\.'; then cf=$c; break; fi
done
[[ -n $cf ]] || { echo "format: SKIPPED (no clang-format 14)"; exit 77; }
cd "$root" || exit 1
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "format: SKIPPED (not a git checkout)"; exit 77; }
mapfile -d '' files < <(git ls-files -z -- '*.cpp' '*.h' '*.c')
[[ ${#files[@]} -gt 0 ]] || { echo "format: no files"; exit 1; }
if [[ $fix == 1 ]]; then
  "$cf" -i -- "${files[@]}"
  exit 0
fi
bad=$("$cf" --dry-run -- "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: .*-Wclang-format-violations.*/\1/p' | sort -u)
if [[ -n $bad ]]; then
  echo "$bad" | sed 's/^/format: differs from clang-format: /'
  echo "format: FAILED ($(wc -l <<<"$bad") files; scripts/check-format.sh --fix)"
  exit 1
fi
echo "format: ok (${#files[@]} files, $cf)"

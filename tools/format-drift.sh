#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Measures how far the C++ sources are from .clang-format without changing any file: formats each
# .h/.cpp under broker/, app/, ui/, tests/ and bench/ (or only the files named as arguments, e.g.
# `tools/format-drift.sh $(git diff --name-only main -- '*.h' '*.cpp')`) to a temporary copy and
# counts the lines of the file that clang-format would rewrite (the "<" lines of a diff).
# Prints a summary: files checked, files that would change, lines that would change; with
# VERBOSE=1 first one line per file that would change (lines, path), most changed first.
# Exits 0 whatever the drift (it is a measure, not a gate), 2 when clang-format fails.
# CLANG_FORMAT (default clang-format, version 14) and STYLE (default "file"; "file:PATH" tries
# another configuration) may be set from outside.
set -eu
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format}
style=${STYLE:-file}
verbose=${VERBOSE:-0}

list_sources() {
    if [ "$#" -gt 0 ]; then
        printf '%s\n' "$@"
    else
        for dir in broker app ui tests bench; do
            if [ -d "$dir" ]; then
                find "$dir" -type f \( -name '*.h' -o -name '*.cpp' \)
            fi
        done | LC_ALL=C sort
    fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

list_sources "$@" >"$work/files"
while IFS= read -r file; do
    if ! "$clang_format" --style="$style" "$file" >"$work/formatted" 2>"$work/error"; then
        echo "format-drift: clang-format failed on $file:" >&2
        cat "$work/error" >&2
        exit 2
    fi
    changed=$(diff "$file" "$work/formatted" | grep -c '^<' || true)
    printf '%s %s\n' "$changed" "$file"
done <"$work/files" >"$work/counts"

if [ "$verbose" = 1 ]; then
    awk '$1 > 0' "$work/counts" | sort -k1,1nr -k2,2
fi
awk '{ files++; if ($1 > 0) { changed++; lines += $1 } }
     END { printf "files checked: %d, files that would change: %d, lines that would change: %d\n",
                  files, changed, lines }' "$work/counts"
